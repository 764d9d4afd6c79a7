/**
 * options.pattern's draws are uniform over every matching password (issue 43), by a chi-square
 * over every valid string, on three patterns with lookaheads whose valid strings are few enough
 * to count each one. The valid strings come from the definition alone: every string over the
 * pattern's symbols of the length, kept when the native `RegExp('^(?:' + pattern + ')$', 'v')`
 * accepts it. Every sampler the plan can use is tested on each pattern: the default path and the
 * automaton forced, each with the exact walk and with rejection. 20 draws are expected per string
 * (the chi-square's bins all hold at least 5), from the real CSPRNG.
 *
 * False alarms: alpha = 1e-6 per test and 12 tests, so a correct sampler fails a run of this file
 * with probability below 1.2e-5.
 *
 * Teeth: on each pattern the same test rejects (p < alpha) a branch-uniform sampler, as randexp,
 * exrex, rstr and Xeger draw: an alternative chosen uniformly, a repeat count uniform over its
 * range, a symbol uniform over its class, and the attempt redrawn until it has the length and
 * matches (so it only ever gives valid passwords, with the wrong chances).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { drawPattern, isPatternPlan, planPattern } from '../../../lib/core/pattern/plan.ts';
import { defaultRandom } from '../../../lib/core/random.ts';
import { chiSquareTest } from '../../helpers/stats.ts';
import { seededRandom } from '../../helpers/seeded.ts';

const ALPHA = 1e-6;
const PER_STRING = 20;

const teeth = seededRandom(4343);
const pick = (s: string) => s[teeth.below(s.length)];
const run = (s: string, min: number, max: number) =>
  Array.from({ length: min + teeth.below(max - min + 1) }, () => pick(s)).join('');
const either = (...alts: (() => string)[]) => alts[teeth.below(alts.length)]();

interface Case {
  readonly pattern: string;
  readonly length: number;
  /** Every symbol the pattern's consuming classes hold. */
  readonly symbols: string;
  /** One attempt of the branch-uniform sampler (before the length and the match are checked). */
  readonly branchUniform: () => string;
}

const CASES: Case[] = [
  {
    // Two counted classes of different sizes: uniform over counts weighs the splits alike.
    pattern: '(?=.*2)(?!.*aa)[abc]{1,3}[12]{1,3}',
    length: 4,
    symbols: 'abc12',
    branchUniform: () => run('abc', 1, 3) + run('12', 1, 3),
  },
  {
    pattern: '(?=.*a)(?:a[ab12]{3}|[b12]{2}[ab]{2})',
    length: 4,
    symbols: 'ab12',
    branchUniform: () =>
      either(
        () => 'a' + run('ab12', 3, 3),
        () => run('b12', 2, 2) + run('ab', 2, 2),
      ),
  },
  {
    // The no-repeat idiom and a k-of-M condition as alternated lookaheads.
    pattern: '(?!.*(.)\\1)(?:(?=.*[12])(?=.*c)|(?=.*[ab])(?=.*c))(?:[ab]|[12c])+',
    length: 5,
    symbols: 'abc12',
    branchUniform: () =>
      Array.from({ length: 5 }, () =>
        either(
          () => pick('ab'),
          () => pick('12c'),
        ),
      ).join(''),
  },
];

function validStrings({ pattern, length, symbols }: Case): string[] {
  const native = new RegExp(`^(?:${pattern})$`, 'v');
  let all = [''];
  for (let i = 0; i < length; i++) all = all.flatMap((s) => [...symbols].map((c) => s + c));
  return all.filter((s) => native.test(s));
}

/** The chi-square p of `draw` against the uniform distribution over the valid strings. */
function uniformity(valid: readonly string[], draw: (n: number) => string[]): number {
  const index = new Map(valid.map((s, i) => [s, i]));
  const observed = new Array<number>(valid.length).fill(0);
  for (const v of draw(PER_STRING * valid.length)) {
    const i = index.get(v);
    assert.ok(i !== undefined, `drew a string that does not match: ${v}`);
    observed[i]++;
  }
  return chiSquareTest(observed, new Array<number>(valid.length).fill(1 / valid.length)).p;
}

describe('options.pattern draws are uniform over every valid string (issue 43)', () => {
  for (const c of CASES) {
    const valid = validStrings(c);
    for (const method of [undefined, 'automaton'] as const)
      for (const sampler of ['exact', 'rejection'] as const)
        it(`${c.pattern} at ${c.length} (${valid.length} strings), ${method ?? 'default'} path, ${sampler}`, () => {
          const plan = planPattern(c.pattern, c.length, { method, sampler });
          assert.ok(isPatternPlan(plan), isPatternPlan(plan) ? '' : plan.error);
          assert.equal(plan.count, BigInt(valid.length));
          const p = uniformity(valid, (n) => drawPattern(plan, defaultRandom, n));
          assert.ok(p >= ALPHA, `p = ${p}`);
        });

    it(`${c.pattern}: a branch-uniform sampler fails the same test`, () => {
      const native = new RegExp(`^(?:${c.pattern})$`, 'v');
      const attempt = () => {
        for (;;) {
          const v = c.branchUniform();
          if (v.length === c.length && native.test(v)) return v;
        }
      };
      const p = uniformity(valid, (n) => Array.from({ length: n }, attempt));
      assert.ok(p < ALPHA, `p = ${p}`);
    });
  }
});
