/**
 * The one exact engine (lib/core/engine.ts) against brute force. For each constraint kind, 1,000
 * random small specs whose every string is enumerated and judged twice: by the engine's own
 * `validity` (what the rejection sampler keeps) and by the independent judge below, written
 * another way (windows, not running state). Both must agree on every string, the engine's count
 * must equal the number of valid strings, and on the specs with at most 120 valid strings,
 * unranking every rank must give each valid string exactly once.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compile, count, type EngineSpec } from '../../lib/core/engine.ts';
import { tablesOf, unrank } from '../../lib/core/unrank.ts';
import { checkOf, isValid } from '../../lib/core/check.ts';
import { seededRandom } from '../helpers/seeded.ts';

/** Letters and digits in chains (so that sequences exist), and two codes outside every range. */
const CLASSES = ['abcde', 'XYZ', '0123', '#!'];
const random = seededRandom(2029);
const below = (n: number) => random.below(n);
const codesOf = (s: string) => [...s].map((c) => c.charCodeAt(0)).sort((a, b) => a - b);

function pick(pool: string, most: number): string {
  const chars = [...pool].filter(() => below(2) === 0);
  while (chars.length > most) chars.splice(below(chars.length), 1);
  return chars.join('');
}

/** The independent judge: every window of the string is tested for a run or a sequence too long. */
function judge(spec: EngineSpec, s: readonly number[]): boolean {
  const inRange = (a: number, b: number) =>
    [0x30, 0x41, 0x61].some(
      (lo) => a >= lo && b >= lo && a <= lo + (lo === 0x30 ? 9 : 25) && b <= lo + (lo === 0x30 ? 9 : 25),
    );
  const R = spec.maxRepeating ?? Infinity;
  const S = spec.maxSequential ?? Infinity;
  // Every window s[i..j] longer than a limit: all one code, or each step +1 (or each -1) inside a range.
  for (let i = 0; i < s.length; i++)
    for (let j = i + 1; j < s.length; j++) {
      const n = j - i + 1;
      let same = true;
      let up = true;
      let down = true;
      for (let k = i + 1; k <= j; k++) {
        same &&= s[k] === s[i];
        up &&= s[k] - s[k - 1] === 1 && inRange(s[k], s[k - 1]);
        down &&= s[k] - s[k - 1] === -1 && inRange(s[k], s[k - 1]);
      }
      if ((n > R && same) || (n > S && (up || down))) return false;
    }
  if (spec.first && !spec.first.includes(s[0])) return false;
  if (spec.last && !spec.last.includes(s[s.length - 1])) return false;
  const hits = spec.sets.map((set) => s.filter((c) => set.codes.includes(c)).length);
  if (spec.sets.some((set, i) => hits[i] < set.min || (set.max !== undefined && set.max !== null && hits[i] > set.max)))
    return false;
  return spec.sets.filter((set, i) => set.min === 0 && hits[i] > 0).length >= (spec.minSets ?? 0);
}

function strings(codes: readonly number[], length: number): number[][] {
  let out: number[][] = [[]];
  for (let i = 0; i < length; i++) out = out.flatMap((s) => codes.map((c) => [...s, c]));
  return out;
}

type Kind =
  | 'sets'
  | 'minimums'
  | 'minSets'
  | 'first'
  | 'last'
  | 'maxRepeating'
  | 'maxSequential'
  | 'all'
  | 'several minimums'
  | 'maximums'
  | 'cut chains';

/** A random spec exercising `kind`. Class-like sets (whole classes) for minimums, minSets and
 * first/last, as the password compiler makes them; arbitrary sets of min 1 as site rules do. */
function randomSpec(kind: Kind): EngineSpec {
  if (kind === 'several minimums' || kind === 'maximums' || kind === 'cut chains') return moreSpec(kind);
  const classes = CLASSES.map((c) => pick(c, 3)).filter((c) => c.length > 0);
  const alphabet = classes.join('') || 'ab';
  const codes = codesOf(alphabet);
  // At most about 1,300 strings to enumerate: lengths 1-5 over 3 codes, 1-4 over 4-6, 1-3 beyond.
  const length = 1 + below(codes.length <= 3 ? 5 : codes.length <= 6 ? 4 : 3);
  const any = (on: boolean, most: number) => (on ? 1 + below(most) : null);
  const classSet = () => codesOf(classes.filter(() => below(2) === 0).join('') || alphabet);
  const all = kind === 'all';
  let sets = classes.map((c) => ({ codes: codesOf(c), min: 0 }));
  if (kind === 'sets' || (all && below(2) === 0))
    sets = [0, 1, 2].slice(0, below(4)).map(() => ({ codes: codesOf(pick(alphabet, 3) || alphabet[0]), min: 1 }));
  else if (kind === 'minimums' || all) {
    // Mostly 0, some 1, and one set raised to 2 or 3 when the length leaves room.
    sets = sets.map((set) => ({ ...set, min: below(3) === 0 ? 1 : 0 }));
    const raised = below(sets.length);
    if (length >= 2) sets[raised] = { ...sets[raised], min: 2 + below(Math.min(2, length - 1)) };
  }
  const optional = sets.filter((set) => set.min === 0).length;
  return {
    codes,
    sets,
    minSets: kind === 'minSets' || (all && optional > 0) ? below(optional + 1) : 0,
    first: kind === 'first' || (all && below(2) === 0) ? classSet() : null,
    last: kind === 'last' || (all && below(2) === 0) ? classSet() : null,
    length,
    maxRepeating: any(kind === 'maxRepeating' || (all && below(2) === 0), 3),
    maxSequential: any(kind === 'maxSequential' || (all && below(2) === 0), 3),
  };
}

/** Specs the first kinds leave rare: several sets with minimums of 2 or 3 at once; maximums (with
 * minimums, some 0, and the other limits); and whole chains cut by arbitrary required sets under a
 * sequence limit, as site rules make them. */
function moreSpec(kind: 'several minimums' | 'maximums' | 'cut chains'): EngineSpec {
  if (kind === 'cut chains') {
    const alphabet = pick('abcde', 5) + pick('0123', 4) + pick('#!', 2) || 'abc';
    const codes = codesOf(alphabet);
    const length = 1 + below(codes.length <= 4 ? 5 : codes.length <= 6 ? 4 : 3);
    const sets = [0, 1, 2]
      .slice(0, 1 + below(3))
      .map(() => ({ codes: codesOf(pick(alphabet, 2) || alphabet[0]), min: 1 }));
    return { codes, sets, length, maxRepeating: below(2) === 0 ? 1 + below(2) : null, maxSequential: 1 + below(3) };
  }
  const classes = CLASSES.map((c) => pick(c, 3)).filter((c) => c.length > 0);
  const codes = codesOf(classes.join('') || 'ab');
  const length = 1 + below(codes.length <= 3 ? 5 : codes.length <= 6 ? 4 : 3);
  let room = length;
  const sets = classes.map((c) => {
    // Minimums that fit together, so that most specs allow some string.
    const min = kind === 'several minimums' ? below(Math.min(4, room + 1)) : below(2);
    room -= min;
    const max = kind === 'maximums' && below(3) > 0 ? min + below(length - min + 1) : null;
    return { codes: codesOf(c), min, max };
  });
  const optional = sets.filter((set) => set.min === 0).length;
  const any = (most: number) => (below(3) === 0 ? 1 + below(most) : null);
  return {
    codes,
    sets,
    minSets: optional > 0 && below(3) === 0 ? below(optional + 1) : 0,
    first: null,
    last: null,
    length,
    maxRepeating: kind === 'maximums' ? any(3) : null,
    maxSequential: kind === 'maximums' ? any(3) : null,
  };
}

function check(spec: EngineSpec): number {
  const label = JSON.stringify(spec);
  const check = checkOf(spec);
  const valid = (s: readonly number[]) => isValid(check, s);
  const judged = strings(spec.codes, spec.length).filter((s) => {
    const verdict = judge(spec, s);
    assert.equal(valid(s), verdict, `${label}: validity and the judge disagree on ${String.fromCharCode(...s)}`);
    return verdict;
  });
  const compiled = compile(spec);
  const tables = tablesOf(compiled);
  assert.equal(count(compiled, 'series'), BigInt(judged.length), `${label}: by the series`);
  assert.equal(count(compiled, 'recurrence'), BigInt(judged.length), `${label}: by the recurrence`);
  assert.equal(count(compiled), BigInt(judged.length), label);
  assert.equal(tables.count, BigInt(judged.length), label);
  assert.ok(compiled.work.count > 0, label);
  if (judged.length <= 120) {
    const seen = new Set<string>();
    for (let rank = 0n; rank < tables.count; rank++) {
      const s = unrank(tables, rank);
      assert.ok(valid(s), `${label}: rank ${rank} gave an invalid string`);
      seen.add(String.fromCharCode(...s));
    }
    assert.equal(seen.size, judged.length, `${label}: unranking is not one-to-one`);
  } else {
    // Too many to unrank all: the first, the last and 40 seeded ranks give valid strings, distinct.
    const ranks = [0n, tables.count - 1n, ...Array.from({ length: 40 }, () => BigInt(below(judged.length)))];
    const seen = new Map<string, bigint>();
    for (const rank of ranks) {
      const s = unrank(tables, rank);
      assert.ok(valid(s), `${label}: rank ${rank} gave an invalid string`);
      const key = String.fromCharCode(...s);
      assert.ok((seen.get(key) ?? rank) === rank, `${label}: ranks ${seen.get(key)} and ${rank} gave ${key}`);
      seen.set(key, rank);
    }
  }
  return judged.length;
}

describe('the exact engine against enumeration', () => {
  for (const kind of [
    'sets',
    'minimums',
    'minSets',
    'first',
    'last',
    'maxRepeating',
    'maxSequential',
    'all',
    'several minimums',
    'maximums',
    'cut chains',
  ] as const) {
    it(`${kind}: 1,000 random specs, count and unranking`, () => {
      let nonzero = 0;
      for (let i = 0; i < 1000; i++) if (check(randomSpec(kind)) > 0) nonzero++;
      // The cases must mostly allow something, or the agreement proves little.
      assert.ok(nonzero > 400, `${kind}: only ${nonzero} of 1,000 specs allowed any string`);
    });
  }

  it('refuses a spec no compiler makes: a binding chain that changes weight', () => {
    assert.throws(
      () =>
        compile({
          codes: codesOf('abc'),
          sets: [{ codes: codesOf('a'), min: 2 }],
          length: 4,
          maxRepeating: null,
          maxSequential: 2,
        }),
      /binding chain/,
    );
  });
});
