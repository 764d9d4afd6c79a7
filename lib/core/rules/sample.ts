/**
 * Drawing a password uniformly from exactly the strings a rule allows at the plan's length.
 *
 * Four samplers, all uniform over the same set V, chosen per plan (plan.ts). Each draws
 * uniformly from a set that contains V and keeps the draw when it lies in V: every string of V
 * then has the same chance per attempt, so a kept one is uniform over V.
 * - rejection: every character uniform over the allowed set, the attempt kept when it hits
 *   every required set and has no run longer than max-repeating and no sequence longer than
 *   max-sequential. An attempt is abandoned as soon as a run or a sequence is too long: that
 *   decides its fate without changing which strings are kept.
 * - exact: one uniform integer below the number of strings with every required set and no run
 *   too long (uniform-bigint.ts), turned into such a string by unranking: the string is built
 *   run by run (a run is a maximal block of one repeated character; every string splits into
 *   runs in one way), each choice of the next run's character and length taking the slice of
 *   the rank proportional to the number of valid ways to finish. The completion counts come
 *   from count.ts's table, indexed by the required sets still unhit and the characters left;
 *   the state needs no run length because a run is chosen whole, and no last character beyond
 *   excluding it from the next run (the table does not depend on it). The string is kept when
 *   no sequence is too long, which without a binding max-sequential is always.
 * - exact-sequences: one uniform integer below the number of strings with no run and no
 *   sequence too long, unranked by sequence-sample.ts; kept when it hits every required set.
 * - exact-full: one uniform integer below |V|, unranked by full-sample.ts; always kept.
 * All only call `random.below(n)`.
 * @module
 */
import type { RandomSource } from '../random.ts';
import type { RulesPlan } from './plan.ts';
import { unrankFull } from './full-sample.ts';
import { unrankSequences } from './sequence-sample.ts';
import { isRanged } from './sequences.ts';
import { uniformBigIntBelow } from './uniform-bigint.ts';

export function generateRulesPassword(plan: RulesPlan, random: RandomSource): string {
  if (plan.sampler === 'exact') return sampleExactly(plan, random);
  if (plan.sampler === 'exact-sequences') return sampleSequencesExactly(plan, random);
  if (plan.sampler === 'exact-full') return sampleFully(plan, random);
  return sampleByRejection(plan, random);
}

export function sampleByRejection(plan: RulesPlan, random: RandomSource): string {
  const { codes, signatures, allRequired, maxRun, maxSequence, length } = plan;
  const n = codes.length;
  const chars = new Array<number>(length).fill(0);
  attempt: for (;;) {
    let hit = 0;
    let run = 0;
    let sequence = 1;
    let direction = 0;
    let previous = -1;
    for (let i = 0; i < length; i++) {
      const j = random.below(n);
      if (j === previous) {
        if (++run > maxRun) continue attempt;
        sequence = 1;
        direction = 0;
      } else {
        // A step to the next or previous code inside 0-9, A-Z or a-z extends a sequence in the
        // same direction and starts a new one (of 2) in the other; anything else ends it.
        const step = previous < 0 ? 0 : codes[j] - codes[previous];
        if ((step === 1 || step === -1) && isRanged(codes[j]) && isRanged(codes[previous])) {
          sequence = step === direction ? sequence + 1 : 2;
          direction = step;
          if (sequence > maxSequence) continue attempt;
        } else {
          sequence = 1;
          direction = 0;
        }
        previous = j;
        run = 1;
      }
      hit |= signatures[j];
      chars[i] = codes[j];
    }
    if (hit === allRequired) return finish(chars);
  }
}

/** True when no sequence in the codes is longer than the plan's max-sequential. */
function sequencesFit(plan: RulesPlan, chars: readonly number[]): boolean {
  if (!plan.sequenceBound) return true;
  let sequence = 1;
  let direction = 0;
  for (let i = 1; i < chars.length; i++) {
    const step = chars[i] - chars[i - 1];
    if ((step === 1 || step === -1) && isRanged(chars[i]) && isRanged(chars[i - 1])) {
      sequence = step === direction ? sequence + 1 : 2;
      direction = step;
      if (sequence > plan.maxSequence) return false;
    } else {
      sequence = 1;
      direction = 0;
    }
  }
  return true;
}

export function sampleExactly(plan: RulesPlan, random: RandomSource): string {
  for (;;) {
    const chars = unrankCodes(plan, uniformBigIntBelow(plan.countIgnoringSequences, random));
    if (sequencesFit(plan, chars)) return finish(chars);
    chars.fill(0);
  }
}

export function sampleSequencesExactly(plan: RulesPlan, random: RandomSource): string {
  const tables = plan.sequenceTables;
  if (tables === null)
    throw new Error('sampleSequencesExactly: the plan has no sequence tables (plan it with sampler "exact-sequences")');
  for (;;) {
    const indices = unrankSequences(tables, uniformBigIntBelow(plan.countIgnoringRequired, random));
    let hit = 0;
    for (const j of indices) hit |= plan.signatures[j];
    const chars = indices.map((j) => plan.codes[j]);
    indices.fill(0);
    if (hit === plan.allRequired) return finish(chars);
    chars.fill(0);
  }
}

export function sampleFully(plan: RulesPlan, random: RandomSource): string {
  const tables = plan.fullTables;
  if (tables === null) throw new Error('sampleFully: the plan has no full table (plan it with sampler "exact-full")');
  const indices = unrankFull(tables, uniformBigIntBelow(tables.count, random));
  const chars = indices.map((j) => plan.codes[j]);
  indices.fill(0);
  return finish(chars);
}

/**
 * The string of rank x (0 <= x < plan.countIgnoringSequences) in a fixed order of the strings
 * with every required set and no run too long: a bijection from [0, countIgnoringSequences)
 * onto them, so a uniform x gives a uniform string (and the tests check the bijection
 * exhaustively on small rules). Without a binding max-sequential these are exactly V.
 *
 * The password is built run by run. At each step x is below the number of ways to finish from
 * the current state, and those ways are split into consecutive intervals: by the next run's
 * atom (its characters other than the previous one, times the ways to finish after one of
 * them), then by the character (x / perCharacter), then by the run length; what is left of x
 * ranks the completion within the chosen branch and carries on.
 */
export function unrankPassword(plan: RulesPlan, rank: bigint): string {
  return finish(unrankCodes(plan, rank));
}

function unrankCodes(plan: RulesPlan, rank: bigint): number[] {
  const { atoms, length, maxRun } = plan;
  const prefix = plan.completions;
  if (prefix === null)
    throw new Error('unrankPassword: the plan has no completion table (plan it with sampler "exact")');
  if (rank < 0n || rank >= plan.countIgnoringSequences) throw new RangeError('unrankPassword: rank out of range');
  // G(t, U): ways to finish after a completed run, t characters left, U the required sets unhit.
  const completions = (t: number, unhit: number) => prefix[t][unhit] - (t > 0 ? prefix[t - 1][unhit] : 0n);
  // Ways to finish once the next run's character is fixed: sum over its length l of G(t - l, U).
  const afterCharacter = (t: number, unhit: number) => {
    const longest = Math.min(maxRun, t);
    return prefix[t - 1][unhit] - (t - 1 - longest >= 0 ? prefix[t - 1 - longest][unhit] : 0n);
  };
  const chars: number[] = [];
  let x = rank;
  let unhit = plan.allRequired;
  let left = length;
  let previousAtom = -1;
  let previousIndex = -1;
  while (left > 0) {
    let a = 0;
    let perCharacter: bigint;
    for (; ; a++) {
      const available = atoms[a].codes.length - (a === previousAtom ? 1 : 0);
      perCharacter = afterCharacter(left, unhit & ~atoms[a].signature);
      const weight = BigInt(available) * perCharacter;
      if (x < weight) break;
      x -= weight;
    }
    let index = Number(x / perCharacter);
    x %= perCharacter;
    if (a === previousAtom && index >= previousIndex) index++; // skip the previous character
    unhit &= ~atoms[a].signature;
    let run = 1;
    for (;;) {
      const g = completions(left - run, unhit);
      if (x < g) break;
      x -= g;
      run++;
    }
    const code = atoms[a].codes[index];
    for (let i = 0; i < run; i++) chars.push(code);
    left -= run;
    previousAtom = a;
    previousIndex = index;
  }
  return chars;
}

/** The string of the codes, the codes then wiped (no drawn value left in the scratch). */
function finish(chars: number[]): string {
  const out = String.fromCharCode.apply(null, chars);
  chars.fill(0);
  return out;
}
