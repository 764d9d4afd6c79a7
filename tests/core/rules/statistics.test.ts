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
 * come from the real CSPRNG. Both samplers (rejection, and exact unranking over the engine's
 * count) are tested on the same rules, each forced where the plan would pick the other.
 *
 * Teeth: the same test function rejects (p < alpha) place-one-of-each-then-shuffle, a
 * rejection sampler that redraws only the last character of a failed attempt, the exact
 * sampler with its rank drawn as a 32-bit word modulo the count (low ranks more likely), the
 * exact sampler over the rule compiled without max-sequential (max-consecutive read as before
 * PR #1255: repeats only) and a sampler that only ever writes valid passwords but picks each
 * next character uniformly among those the previous one allows (ignoring how many passwords
 * each choice leaves), all run here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  generateRulesPasswords,
  isRulesPlan,
  planPasswordRules,
  type RulesPlan,
} from '../../../lib/core/rules/index.ts';
import type { Sampler } from '../../../lib/core/sample.ts';
import { unrank } from '../../../lib/core/unrank.ts';
import { isValid } from '../../../lib/core/check.ts';
import { defaultRandom } from '../../../lib/core/random.ts';
import { generate as generateRequest } from '../../../lib/request/generate.ts';
import { readRule, violation } from '../../helpers/rules-checker.ts';
import { classCountDistribution, oracleInput, positionDistribution } from '../../helpers/rules-oracle.ts';
import { chiSquareTest } from '../../helpers/stats.ts';
import { plan } from '../../helpers/rule-plans.ts';
import { mapStore } from '../../helpers/map-store.ts';

const ALPHA = 1e-6;
const PASSWORDS = 20_000;

type Source = (plan: RulesPlan) => string;

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
const generate: Source = (p) => generateRulesPasswords(p, defaultRandom, 1)[0];

/** Mutant 1: one random character of each required set, the rest uniform over the allowed
 * set, then a Fisher-Yates shuffle (max-consecutive ignored: the rule used has none). */
const placeThenShuffle: Source = (p) => {
  const allowed = String.fromCharCode(...p.spec.codes);
  const chars = p.rule.required.map((set) => set[defaultRandom.below(set.length)]);
  while (chars.length < p.length) chars.push(allowed[defaultRandom.below(allowed.length)]);
  for (let i = chars.length - 1; i > 0; i--) {
    const k = defaultRandom.below(i + 1);
    [chars[i], chars[k]] = [chars[k], chars[i]];
  }
  return chars.join('');
};

/** Mutant 2: rejection that, when an attempt fails, redraws only its last character (and
 * starts over after 64 tries): every output is valid, but the last position carries what the
 * others missed. */
const redrawLast: Source = (p) => {
  const { codes } = p.spec;
  for (;;) {
    const chars = Array.from({ length: p.length }, () => codes[defaultRandom.below(codes.length)]);
    for (let tries = 0; tries < 64; tries++) {
      if (isValid(p.check, chars)) return String.fromCharCode(...chars);
      chars[p.length - 1] = codes[defaultRandom.below(codes.length)];
    }
  }
};

/** Mutant 3: the exact sampler with its rank a 32-bit word modulo the count, the classic
 * modulo bias: with a count c < 2^32, ranks below 2^32 mod c come once more often. */
const moduloRank: Source = (p) =>
  String.fromCharCode(...unrank(p.counted!, BigInt(defaultRandom.below(2 ** 32)) % p.count));

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
  const cases: [string, string, number, Sampler][] = [
    ['4 classes of ascii-printable, length 12 (acceptance 0.70)', FOUR_CLASSES, 12, 'rejection'],
    ['4 classes of ascii-printable, length 12, forced', FOUR_CLASSES, 12, 'exact'],
    ['max-consecutive 2 over 6 characters, length 10 (acceptance 0.69)', RUNS, 10, 'rejection'],
    ['max-consecutive 2 over 6 characters, length 10, forced', RUNS, 10, 'exact'],
    ['three single letters required, max-consecutive 1, length 8', SPARSE, 8, 'exact'],
    ['two pairs, length 8, forced', TWO_PAIRS, 8, 'exact'],
    ['two pairs, length 8', TWO_PAIRS, 8, 'rejection'],
    ['digits, max-consecutive 1, length 16', DIGITS, 16, 'exact'],
    ['digits, max-consecutive 1, length 10 (acceptance 0.053)', DIGITS, 10, 'rejection'],
    ['digits, max-consecutive 1, length 10, forced', DIGITS, 10, 'exact'],
    ['0 and 3 required among 0123, max-sequential 1, length 8', NEIGHBOURS, 8, 'exact'],
    ['0 and 3 required among 0123, max-sequential 1, length 8, forced', NEIGHBOURS, 8, 'rejection'],
    ['a required among abcdef, max-sequential 2, length 8 (acceptance 0.63)', SEQUENCES, 8, 'rejection'],
    ['a required among abcdef, max-sequential 2, length 8, forced', SEQUENCES, 8, 'exact'],
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

/** The request path: `generate()` with the rule as options.passwordRules, 20 a call, with a plan
 * store as the server has one (lib/http/plan-memo.ts): the draws come from the stored plan, as
 * they do in the service, and the file does not plan the rule a thousand times over. */
function throughGenerate(text: string): Source {
  const queue: string[] = [];
  const settings = { plans: mapStore() };
  return (p) => {
    if (queue.length === 0) {
      const r = generateRequest(
        { mode: 'password', count: 20, options: { passwordRules: text, length: p.length } },
        defaultRandom,
        settings,
      );
      assert.equal(r.status, 200);
      if (r.status === 200) for (const { value } of r.body.results) queue.push(value);
    }
    return queue.pop()!;
  };
}

describe(`passwordRules through generate() is uniform over the allowed strings (alpha = ${ALPHA} per test)`, () => {
  const cases: [string, string, number, Sampler][] = [
    ['4 classes of ascii-printable, length 12', FOUR_CLASSES, 12, 'rejection'],
    ['max-consecutive 2 over 6 characters, length 10', RUNS, 10, 'rejection'],
    ['three single letters required, max-consecutive 1, length 8', SPARSE, 8, 'exact'],
    ['digits, max-consecutive 1, length 16', DIGITS, 16, 'exact'],
    ['a required among abcdef, max-sequential 2, length 8', SEQUENCES, 8, 'rejection'],
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

  it('rejection redrawing only the last character of a failed attempt fails on 4 classes, length 12', () => {
    const r = uniformityTest(FOUR_CLASSES, plan(FOUR_CLASSES, 12, 'rejection'), redrawLast);
    assert.equal(r.invalid, 0, 'every output satisfies the rule: only the distribution is wrong');
    process.stdout.write(`rules statistics: last-character redraw rejected with p = ${r.p.toExponential(2)}\n`);
    assert.ok(r.p < ALPHA, `p = ${r.p}`);
  });

  it('the exact sampler with a modulo-biased rank fails on digits, max-consecutive 1, length 11', () => {
    // 3,838,899,962 passwords: 2^32 mod the count = 456,067,334, so the lowest 12 % of the ranks
    // come twice as often.
    const p = plan(DIGITS, 11, 'exact');
    assert.equal(p.count, 3_838_899_962n);
    const r = uniformityTest(DIGITS, p, moduloRank);
    assert.equal(r.invalid, 0, 'every output satisfies the rule: only the distribution is wrong');
    process.stdout.write(`rules statistics: modulo-biased rank rejected with p = ${r.p.toExponential(2)}\n`);
    assert.ok(r.p < ALPHA, `p = ${r.p}`);
  });

  // This mutant moves the marginals only slightly (max-sequential 2 forbids few strings): at
  // 20,000 passwords it escaped (p >= 1e-6) in 7 of 30 runs; at 60,000, p was at most 1.2e-17
  // in 20 runs (median 4e-24), so it is drawn 60,000 times.
  it('the exact sampler over the rule without max-sequential (max-consecutive as repeats only) fails on a required among abcdef, max-sequential 2, length 8', () => {
    const p = plan(SEQUENCES, 8, 'exact');
    const wider = planPasswordRules({ ...p.rule, maxSequential: null }, 8, 'exact');
    assert.ok(isRulesPlan(wider) && wider.count > p.count);
    const passwords = 60_000;
    const r = uniformityTest(SEQUENCES, p, () => generateRulesPasswords(wider, defaultRandom, 1)[0], passwords);
    process.stdout.write(
      `rules statistics: sequence rule ignored: ${r.invalid} of ${passwords} passwords invalid, rejected with p = ${r.p.toExponential(2)}\n`,
    );
    assert.ok(r.invalid > 0);
    assert.ok(r.p < ALPHA, `p = ${r.p}`);
  });

  it('next character uniform among those the previous allows fails on digits, max-consecutive 1, length 16', () => {
    const greedy: Source = (q) => {
      const codes = [...q.spec.codes];
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
});
