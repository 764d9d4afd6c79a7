/**
 * Drawing a password uniformly from exactly the strings a rule allows at the plan's length.
 *
 * Two samplers, both uniform over the same set V, chosen per plan (plan.ts):
 * - rejection: every character uniform over the allowed set, the attempt kept when it hits
 *   every required set and has no run longer than max-consecutive. Each string of V is drawn
 *   with the same probability |A|^-L per attempt, so a kept one is uniform over V. An attempt
 *   is abandoned as soon as a run is too long: that decides its fate without changing which
 *   strings are kept.
 * - exact: one uniform integer below |V| (uniform-bigint.ts), turned into a password by
 *   unranking: the password is built run by run (a run is a maximal block of one repeated
 *   character; every string of V splits into runs in one way), each choice of the next run's
 *   character and length taking the slice of the rank proportional to the number of valid
 *   ways to finish. The completion counts come from count.ts's table, indexed by the required
 *   sets still unhit and the characters left; the state needs no run length because a run is
 *   chosen whole, and no last character beyond excluding it from the next run (the table does
 *   not depend on it).
 * Both only call `random.below(n)`.
 * @module
 */
import type { RandomSource } from '../random.ts';
import type { RulesPlan } from './plan.ts';
import { uniformBigIntBelow } from './uniform-bigint.ts';

export function generateRulesPassword(plan: RulesPlan, random: RandomSource): string {
  return plan.sampler === 'exact' ? sampleExactly(plan, random) : sampleByRejection(plan, random);
}

export function sampleByRejection(plan: RulesPlan, random: RandomSource): string {
  const { codes, signatures, allRequired, maxRun, length } = plan;
  const n = codes.length;
  const chars = new Array<number>(length).fill(0);
  attempt: for (;;) {
    let hit = 0;
    let run = 0;
    let previous = -1;
    for (let i = 0; i < length; i++) {
      const j = random.below(n);
      if (j === previous) {
        if (++run > maxRun) continue attempt;
      } else {
        previous = j;
        run = 1;
      }
      hit |= signatures[j];
      chars[i] = codes[j];
    }
    if (hit === allRequired) return finish(chars);
  }
}

export function sampleExactly(plan: RulesPlan, random: RandomSource): string {
  return unrankPassword(plan, uniformBigIntBelow(plan.count, random));
}

/**
 * The password of rank x (0 <= x < plan.count) in a fixed order of the valid set: a bijection
 * from [0, count) onto V, so a uniform x gives a uniform password (and the tests check the
 * bijection exhaustively on small rules).
 *
 * The password is built run by run. At each step x is below the number of ways to finish from
 * the current state, and those ways are split into consecutive intervals: by the next run's
 * atom (its characters other than the previous one, times the ways to finish after one of
 * them), then by the character (x / perCharacter), then by the run length; what is left of x
 * ranks the completion within the chosen branch and carries on.
 */
export function unrankPassword(plan: RulesPlan, rank: bigint): string {
  const { atoms, length, maxRun } = plan;
  const prefix = plan.completions;
  if (prefix === null)
    throw new Error('unrankPassword: the plan has no completion table (plan it with sampler "exact")');
  if (rank < 0n || rank >= plan.count) throw new RangeError('unrankPassword: rank out of range');
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
  return finish(chars);
}

/** The string of the codes, the codes then wiped (no drawn value left in the scratch). */
function finish(chars: number[]): string {
  const out = String.fromCharCode.apply(null, chars);
  chars.fill(0);
  return out;
}
