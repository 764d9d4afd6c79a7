/**
 * Statistical tests of the `passwordrules` samplers against the exact distribution of a
 * password drawn uniformly from the strings the rule allows.
 *
 * The expected distributions come from tests/helpers/rules-oracle.ts, a dynamic programme over
 * explicit states on the rule as the independent checker reads it: nothing from the generator
 * or its counting code. Two statistics per password (independent across passwords):
 * - per position: the character at each position, chi-square against the exact marginal of
 *   that position (positions differ under max-consecutive), Bonferroni over positions;
 * - class counts: the number of characters of each required set, chi-square against its exact
 *   distribution, Bonferroni over the sets.
 * One `it` combines both with a factor 2 (Bonferroni). Alpha = 1e-6 per `it`, so a correct
 * generator fails a run of this file (19 such tests) with probability below 2e-5. Samples
 * come from the real CSPRNG.
 *
 * Teeth: the same test function rejects (p < alpha) place-one-of-each-then-shuffle, an
 * off-by-one in the exact sampler (the previous character not excluded from the next run), the
 * exact sampler without its sequence check (max-consecutive read as before PR #1255: repeats
 * only) and a sampler that only ever writes valid passwords but picks each next character
 * uniformly among those the previous one allows (ignoring how many passwords each choice
 * leaves), all run here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  generateRulesPassword,
  isRulesPlan,
  parsePasswordRules,
  planPasswordRules,
  unrankPassword,
  type RulesPlan,
  type RulesSampler,
} from '../../../lib/core/rules/index.ts';
import { uniformBigIntBelow } from '../../../lib/core/rules/uniform-bigint.ts';
import { defaultRandom } from '../../../lib/core/random.ts';
import { generate as generateRequest } from '../../../lib/core/generate.ts';
import { readRule, violation } from '../../helpers/rules-checker.ts';
import { classCountDistribution, oracleInput, positionDistribution } from '../../helpers/rules-oracle.ts';
import { chiSquareTest } from '../../helpers/stats.ts';

const ALPHA = 1e-6;
const PASSWORDS = 20_000;

type Source = (plan: RulesPlan) => string;

function plan(text: string, length: number, sampler?: RulesSampler): RulesPlan {
  const r = parsePasswordRules(text);
  assert.ok(r.ok);
  const p = planPasswordRules(r.rule, length, sampler);
  assert.ok(isRulesPlan(p));
  return p;
}

/** p-value of the combined per-position and class-count test (Bonferroni over everything). */
function uniformityTest(
  text: string,
  p: RulesPlan,
  source: Source,
  passwords = PASSWORDS,
): { p: number; invalid: number } {
  const checker = readRule(text);
  const oracle = oracleInput(checker, p.length);
  const allowed = oracle.allowed;
  const index = new Map([...allowed].map((c, i) => [c, i]));
  const positions = Array.from({ length: p.length }, () => new Array<number>(allowed.length).fill(0));
  const classCounts = oracle.required.map(() => new Array<number>(p.length + 1).fill(0));
  let invalid = 0;
  for (let n = 0; n < passwords; n++) {
    const v = source(p);
    if (violation(checker, v) !== null) invalid++;
    for (let i = 0; i < p.length; i++) positions[i][index.get(v[i])!]++;
    oracle.required.forEach((set, c) => classCounts[c][[...v].filter((ch) => set.includes(ch)).length]++);
  }
  const expectedPositions = positionDistribution(oracle);
  const positionP = Math.min(...positions.map((counts, i) => chiSquareTest(counts, expectedPositions[i]).p)) * p.length;
  // No required set: nothing to count, the position test alone decides.
  const classP =
    oracle.required.length === 0
      ? 1
      : Math.min(
          ...classCounts.map(
            (counts, c) => chiSquareTest(counts, classCountDistribution(oracle, oracle.required[c])).p,
          ),
        ) * oracle.required.length;
  return { p: Math.min(1, 2 * Math.min(positionP, classP)), invalid };
}

/** The real generator: the plan's sampler, through the public entry point. */
const generate: Source = (p) => generateRulesPassword(p, defaultRandom);

/** Mutant 1: one random character of each required set, the rest uniform over the allowed
 * set, then a Fisher-Yates shuffle (max-consecutive ignored: the rule used has none). */
const placeThenShuffle: Source = (p) => {
  const allowed = String.fromCharCode(...p.codes);
  const chars = p.rule.required.map((set) => set[defaultRandom.below(set.length)]);
  while (chars.length < p.length) chars.push(allowed[defaultRandom.below(allowed.length)]);
  for (let i = chars.length - 1; i > 0; i--) {
    const k = defaultRandom.below(i + 1);
    [chars[i], chars[k]] = [chars[k], chars[i]];
  }
  return chars.join('');
};

/**
 * A line-for-line copy of unrankPassword (lib/core/rules/sample.ts) with one switch: with
 * `offByOne`, the next run may use all of the previous character's atom (n where n - 1 is
 * right), so the previous character can come again and two runs merge. Unswitched, it must
 * reproduce unrankPassword rank for rank (checked below), so the mutant differs from the real
 * sampler in exactly that one count.
 */
function unrankCopy(plan: RulesPlan, rank: bigint, offByOne: boolean): string {
  const { atoms, length, maxRun } = plan;
  const prefix = plan.completions!;
  const completions = (t: number, unhit: number) => prefix[t][unhit] - (t > 0 ? prefix[t - 1][unhit] : 0n);
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
      const available = atoms[a].codes.length - (a === previousAtom && !offByOne ? 1 : 0);
      perCharacter = afterCharacter(left, unhit & ~atoms[a].signature);
      const weight = BigInt(available) * perCharacter;
      if (x < weight) break;
      x -= weight;
    }
    let index = Number(x / perCharacter);
    x %= perCharacter;
    if (a === previousAtom && index >= previousIndex && !offByOne) index++;
    unhit &= ~atoms[a].signature;
    let run = 1;
    for (;;) {
      const g = completions(left - run, unhit);
      if (x < g) break;
      x -= g;
      run++;
    }
    for (let i = 0; i < run; i++) chars.push(atoms[a].codes[index]);
    left -= run;
    previousAtom = a;
    previousIndex = index;
  }
  return String.fromCharCode(...chars);
}

const offByOne: Source = (p) => unrankCopy(p, uniformBigIntBelow(p.count, defaultRandom), true);

const FOUR_CLASSES = 'required: upper; required: lower; required: digit; required: special';
const RUNS = 'max-consecutive: 2; required: [ab]; required: [0]; allowed: [cd1]';
const SPARSE = 'max-consecutive: 1; required: [a]; required: [b]; required: [c]; allowed: lower';
const TWO_PAIRS = 'required: [ab]; required: [cd]';
/** No repeat and no two neighbours side by side: 0 and 9 can be followed by 8 digits, the
 * others by 7, so the first characters are not uniform over V. */
const DIGITS = 'allowed: digit; max-consecutive: 1';
const NEIGHBOURS = 'required: [0]; required: [3]; allowed: [0123]; max-sequential: 1; max-repeating: 2';
const SEQUENCES = 'max-sequential: 2; allowed: [abcdef]; required: [a]';

describe(`passwordrules output is uniform over the allowed strings (alpha = ${ALPHA} per test)`, () => {
  const cases: [string, string, number, RulesSampler][] = [
    ['4 classes of ascii-printable, length 12 (acceptance 0.70)', FOUR_CLASSES, 12, 'rejection'],
    ['4 classes of ascii-printable, length 12, forced', FOUR_CLASSES, 12, 'exact'],
    ['max-consecutive 2 over 6 characters, length 10 (acceptance 0.69)', RUNS, 10, 'rejection'],
    ['max-consecutive 2 over 6 characters, length 10, forced', RUNS, 10, 'exact'],
    ['max-consecutive 2 over 6 characters, length 10, forced', RUNS, 10, 'exact-sequences'],
    ['max-consecutive 2 over 6 characters, length 10, forced', RUNS, 10, 'exact-full'],
    ['three single letters required, max-consecutive 1, length 8 (kept draws: 0.37)', SPARSE, 8, 'exact'],
    ['two pairs, length 8, forced', TWO_PAIRS, 8, 'exact'],
    ['two pairs, length 8', TWO_PAIRS, 8, 'rejection'],
    ['digits, max-consecutive 1, length 16 (kept draws: every one)', DIGITS, 16, 'exact-sequences'],
    ['digits, max-consecutive 1, length 10 (acceptance 0.053)', DIGITS, 10, 'rejection'],
    ['digits, max-consecutive 1, length 10, forced', DIGITS, 10, 'exact'],
    ['0 and 3 required among 0123, max-sequential 1, length 8 (kept draws: 0.91)', NEIGHBOURS, 8, 'exact-sequences'],
    ['0 and 3 required among 0123, max-sequential 1, length 8, forced', NEIGHBOURS, 8, 'exact-full'],
    ['a required among abcdef, max-sequential 2, length 8 (acceptance 0.63)', SEQUENCES, 8, 'rejection'],
  ];
  for (const [name, text, length, sampler] of cases) {
    it(`${sampler} sampler: ${name}`, () => {
      const p = plan(text, length, sampler);
      assert.equal(p.sampler, sampler);
      const natural = plan(text, length);
      if (!name.endsWith('forced')) assert.equal(natural.sampler, sampler, 'the plan picks this sampler by itself');
      const r = uniformityTest(text, p, generate);
      process.stdout.write(`rules statistics: ${sampler}, ${name}: p = ${r.p.toExponential(2)}\n`);
      assert.equal(r.invalid, 0);
      assert.ok(r.p > ALPHA, `p = ${r.p}`);
    });
  }
});

/** The request path: `generate()` with the rule as options.passwordRules, 20 a call. */
function throughGenerate(text: string): Source {
  const queue: string[] = [];
  return (p) => {
    if (queue.length === 0) {
      const r = generateRequest({ mode: 'password', count: 20, options: { passwordRules: text, length: p.length } });
      assert.equal(r.status, 200);
      if (r.status === 200) for (const { value } of r.body.results) queue.push(value);
    }
    return queue.pop()!;
  };
}

describe(`passwordRules through generate() is uniform over the allowed strings (alpha = ${ALPHA} per test)`, () => {
  const cases: [string, string, number, RulesSampler][] = [
    ['4 classes of ascii-printable, length 12', FOUR_CLASSES, 12, 'rejection'],
    ['max-consecutive 2 over 6 characters, length 10', RUNS, 10, 'rejection'],
    ['three single letters required, max-consecutive 1, length 8', SPARSE, 8, 'exact'],
    ['digits, max-consecutive 1, length 16', DIGITS, 16, 'exact-sequences'],
  ];
  for (const [name, text, length, sampler] of cases) {
    it(`${sampler} sampler: ${name}`, () => {
      const p = plan(text, length);
      assert.equal(p.sampler, sampler, 'the request path takes this sampler');
      const r = uniformityTest(text, p, throughGenerate(text));
      process.stdout.write(`rules statistics: generate(), ${sampler}, ${name}: p = ${r.p.toExponential(2)}\n`);
      assert.equal(r.invalid, 0);
      assert.ok(r.p > ALPHA, `p = ${r.p}`);
    });
  }
});

describe('the tests have teeth: biased generators are rejected', () => {
  it('place-one-of-each-then-shuffle fails on 4 classes, length 12', () => {
    const r = uniformityTest(FOUR_CLASSES, plan(FOUR_CLASSES, 12), placeThenShuffle);
    assert.equal(r.invalid, 0, 'every output satisfies the rule: only the distribution is wrong');
    process.stdout.write(`rules statistics: mutant rejected with p = ${r.p.toExponential(2)}\n`);
    assert.ok(r.p < ALPHA, `p = ${r.p}`);
  });

  it('the copy of the exact sampler matches unrankPassword rank for rank', () => {
    for (const text of [TWO_PAIRS, RUNS, SPARSE]) {
      const p = plan(text, text === RUNS ? 10 : 8, 'exact');
      const n = p.countIgnoringSequences;
      const step = n / 2000n + 1n;
      for (let x = 0n; x < n; x += step) assert.equal(unrankCopy(p, x, false), unrankPassword(p, x));
      assert.equal(unrankCopy(p, n - 1n, false), unrankPassword(p, n - 1n));
    }
  });

  // This mutant moves the marginals only slightly (max-sequential 2 forbids few strings): at
  // 20,000 passwords it escaped (p >= 1e-6) in 7 of 30 runs; at 60,000, p was at most 1.2e-17
  // in 20 runs (median 4e-24), so it is drawn 60,000 times.
  it('the exact sampler without its sequence check (max-consecutive as repeats only) fails on a required among abcdef, max-sequential 2, length 8', () => {
    const p = plan(SEQUENCES, 8, 'exact');
    const passwords = 60_000;
    const r = uniformityTest(
      SEQUENCES,
      p,
      (q) => unrankPassword(q, uniformBigIntBelow(q.countIgnoringSequences, defaultRandom)),
      passwords,
    );
    process.stdout.write(
      `rules statistics: sequence rule ignored: ${r.invalid} of ${passwords} passwords invalid, rejected with p = ${r.p.toExponential(2)}\n`,
    );
    assert.ok(r.invalid > 0);
    assert.ok(r.p < ALPHA, `p = ${r.p}`);
  });

  it('next character uniform among those the previous allows fails on digits, max-consecutive 1, length 16', () => {
    const greedy: Source = (q) => {
      const codes = [...q.codes];
      const out = [codes[defaultRandom.below(codes.length)]];
      while (out.length < q.length) {
        const previous = out[out.length - 1];
        const next = codes.filter((c) => c !== previous && Math.abs(c - previous) !== 1);
        out.push(next[defaultRandom.below(next.length)]);
      }
      return String.fromCharCode(...out);
    };
    // At 20,000 passwords p was at most 1.7e-8 in 30 runs (median 3e-11), close to alpha for a
    // test that must fail every time; at 40,000, at most 2.4e-18 in 20 runs (median 2e-21).
    const r = uniformityTest(DIGITS, plan(DIGITS, 16), greedy, 40_000);
    assert.equal(r.invalid, 0, 'every output satisfies the rule: only the distribution is wrong');
    process.stdout.write(`rules statistics: locally uniform sampler rejected with p = ${r.p.toExponential(2)}\n`);
    assert.ok(r.p < ALPHA, `p = ${r.p}`);
  });

  it('the off-by-one exact sampler fails on two pairs, length 8', () => {
    const r = uniformityTest(TWO_PAIRS, plan(TWO_PAIRS, 8, 'exact'), offByOne);
    assert.equal(r.invalid, 0, 'every output satisfies the rule: only the distribution is wrong');
    process.stdout.write(`rules statistics: mutant rejected with p = ${r.p.toExponential(2)}\n`);
    assert.ok(r.p < ALPHA, `p = ${r.p}`);
  });
});
