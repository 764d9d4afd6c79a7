/**
 * options.pattern's plan (issue 43): every refusal is a 400 naming options.pattern with its
 * reason in words (and echoes none of the pattern); the length without one; the count of the
 * common shape against inclusion-exclusion; the real regexes of the research note and Apple's
 * converter test patterns, each served at a length it admits with every value matching the native
 * v-flag RegExp, or refused, exactly as the table in docs/pattern.md says; and the draws of both
 * samplers on both paths.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isPatternPlan, planPattern, valueAt, drawPattern, type PatternPlan } from '../../../lib/core/pattern/plan.ts';
import type { ErrorBody } from '../../../lib/core/error-body.ts';
import { seededRandom } from '../../helpers/seeded.ts';

const plan = (pattern: string, length?: number, o = {}) => planPattern(pattern, length, o);
const refusal = (p: PatternPlan | ErrorBody): ErrorBody => {
  assert.ok(!isPatternPlan(p), 'expected a refusal');
  assert.equal(p.status, 400);
  assert.equal(p.field, 'options.pattern');
  assert.match(p.error, /^options\.pattern /);
  return p;
};
const served = (p: PatternPlan | ErrorBody): PatternPlan => {
  assert.ok(isPatternPlan(p), isPatternPlan(p) ? '' : p.error);
  return p;
};

describe('options.pattern refusals (issue 43)', () => {
  const cases: [string, RegExp, number?][] = [
    ['[a-z', /is not a valid HTML pattern \(\^\(\?:pattern\)\$ with the v flag\): .*class$/],
    ['[a-z-]{8}', /not a valid HTML pattern.*; it is valid under the older u flag, but v asks for/],
    ['[\\"a-z]{8}', /not a valid HTML pattern .*escape$/],
    ['([a-z])\\1[a-z]{8}', /uses a backreference; only the no-repeat idiom \(\?!\.\*\(\.\)\\1\{k\}\) is supported/],
    ['(?<=a)[a-z]{8}', /uses a lookbehind/],
    ['(?<!a)[a-z]{8}', /uses a lookbehind/],
    [
      '[a-z]{4}(?=.*\\d)[a-z0-9]{4}',
      /has a lookahead after consumed characters, inside a quantifier or inside another/,
    ],
    ['(?:(?=.*\\d)[a-z0-9])+', /has a lookahead after consumed characters/],
    ['(?=(?=a).*)[a-z]{8}', /has a lookahead after consumed characters/],
    ['\\b[a-z]{8}\\b', /uses \\b or \\B \(a word boundary\)/],
    ['[a-z]{8}\\B', /uses \\b or \\B/],
    ['[\\q{abc}a-z]{8}', /uses a class of strings/],
    ['\\p{RGI_Emoji}[a-z]{8}', /uses a property of strings/],
    ['(?i:[a-z]){8}', /uses a modifier group|is not a valid HTML pattern/],
    ['(?:(?=.*\\d)(?!.*(.)\\1)[a-z0-9]+|[A-Z]+)', /no-repeat idiom .* inside an alternation/],
    ['[a-z]{8,16}', /^options\.pattern matches no password of length 20; it admits lengths 8-16$/, 20],
    ['(?:[a-z]{8}|[a-z]{10,12}|[a-z]{15})', /matches no password of length 9; it admits lengths 8, 10-12, 15$/, 9],
    ['[a-z]$[a-z]', /matches no password: no string of printable ASCII without space \(U\+0021-U\+007E\)/],
    ['[a-z]{2,4}', /admits no length from 8 to 128; it admits lengths 2-4$/],
    // Priced before it is built: the work budget refuses it before the state cap would.
    ['[a-z]{1,128}x{1,128}', /more than the budget of 700000 work units to plan; simplify it or shorten the length$/],
  ];
  for (const [pattern, message, length] of cases)
    it(`${pattern}${length === undefined ? '' : ` at ${length}`}: ${message.source.slice(0, 50)}`, () => {
      const { error } = refusal(plan(pattern, length));
      assert.match(error, message);
      // The reason is in words; the pattern itself is not echoed (a class of it at most).
      assert.ok(pattern.length < 12 || !error.includes(pattern), error);
    });

  it('over the work budget: a 400 naming options.pattern and the budget, and nothing is counted', () => {
    assert.match(
      refusal(plan('(?=.*\\d)(?!.*ab)[a-z0-9]{8,64}', 64, { budget: 1000 })).error,
      /more than the budget of 1000 work units/,
    );
    // Past any budget, the state cap still bounds the automaton.
    assert.match(
      refusal(plan('[a-z]{1,128}x{1,128}', 24, { budget: 1e12 })).error,
      /needs more than 4096 automaton states/,
    );
    // The common shape over the budget as the engine's spec is priced again on the automaton.
    assert.ok(isPatternPlan(plan('(?=.*\\d)[a-z0-9]{8,64}', 64, { budget: 20_000 })));
  });
});

describe('options.pattern: the length without one (issue 43)', () => {
  const cases: [string, number][] = [
    ['[a-z]+', 24],
    ['[a-z]{2,200}', 24],
    ['[a-z]{8,16}', 16],
    ['[a-z]{30,40}', 30],
    ['(?:[a-z]{20}|[a-z]{28})', 28],
    ['(?:[a-z]{4}|[a-z]{9})', 9],
  ];
  for (const [pattern, length] of cases)
    it(`${pattern} takes ${length}`, () => assert.equal(served(plan(pattern)).length, length));
});

describe('options.pattern counts the common shape exactly (issue 43)', () => {
  // Sum over subsets S of {digits, lowercase, uppercase} of (-1)^|S| (94 - |union of S|)^n.
  const inclusionExclusion = (n: number) =>
    [0, 1, 2, 3, 4, 5, 6, 7].reduce((sum, mask) => {
      const size = [10, 26, 26].reduce((u, s, i) => ((mask >> i) & 1 ? u + s : u), 0);
      const sign = [1, 2, 4].filter((b) => mask & b).length % 2 === 0 ? 1n : -1n;
      return sum + sign * BigInt(94 - size) ** BigInt(n);
    }, 0n);
  for (const n of [1, 2, 3, 8, 16, 24, 64, 128])
    it(`(?=.*\\d)(?=.*[a-z])(?=.*[A-Z]).{${n}}: inclusion-exclusion, by the engine and by the automaton`, () => {
      const pattern = `(?=.*\\d)(?=.*[a-z])(?=.*[A-Z]).{${n}}`;
      for (const method of [undefined, 'automaton'] as const) {
        const p = plan(pattern, n, { method });
        // Under three characters no password holds the three classes: the sum is 0 there too.
        if (n < 3) assert.equal(inclusionExclusion(n), 0n);
        if (n < 3) assert.match(refusal(p).error, /matches no password/);
        else assert.equal(served(p).count, inclusionExclusion(n));
        if (n >= 3) assert.equal(served(p).engine === null, method === 'automaton');
      }
    });
});

interface Fixture {
  readonly id: string;
  readonly pattern: string;
}

const real = JSON.parse(readFileSync('tests/fixtures/pattern/real-regexes.json', 'utf8')) as Fixture[];
const apple = (JSON.parse(readFileSync('tests/fixtures/pattern/apple-converter-tests.json', 'utf8')) as Fixture[]).map(
  (f, i) => ({ ...f, id: `A${i + 1}` }),
);

/** What the service does with a pattern, in the words of the table in docs/pattern.md. */
function outcome(pattern: string): string {
  const p = plan(pattern);
  if (isPatternPlan(p)) return `${p.length} | ${p.bits.toFixed(2)} | ${p.engine === null ? 'automaton' : 'engine'}`;
  const reasons: [RegExp, string][] = [
    [/valid under the older u flag/, 'not valid under v (valid under u)'],
    [/not a valid HTML pattern/, 'not valid under v'],
    [/lookahead after consumed/, 'a lookahead after consumed characters'],
    [/backreference/, 'a backreference'],
    [/word boundary/, '\\b'],
    [/matches no password:/, 'matches no password'],
    [/admits no length from 8 to 128; it admits lengths (.*)$/, 'admits only lengths $1'],
  ];
  const [re, words] = reasons.find(([r]) => r.test(p.error)) ?? [/^/, p.error];
  return `- | - | refused: ${words.replace('$1', re.exec(p.error)?.[1] ?? '')}`;
}

describe('options.pattern on real regexes and Apple converter test patterns (issue 43)', () => {
  const doc = readFileSync('docs/pattern.md', 'utf8');
  const rows = new Map(
    [...doc.matchAll(/^\| (E\d+[a-z]?|A\d+) \| `.*` \| (.*) \|$/gm)].map((m) => [m[1], m[2].replace(/`/g, '')]),
  );
  for (const f of [...real, ...apple])
    it(`${f.id}: served with every value matching the native RegExp, or refused, as docs/pattern.md says`, () => {
      const p = plan(f.pattern);
      const validV = (() => {
        try {
          new RegExp(`^(?:${f.pattern})$`, 'v');
          return true;
        } catch {
          return false;
        }
      })();
      if (isPatternPlan(p)) {
        const native = new RegExp(`^(?:${f.pattern})$`, 'v');
        for (const v of drawPattern(p, seededRandom(43), 20))
          assert.ok(native.test(v) && v.length === p.length, `${v} does not match`);
      } else assert.match(outcome(f.pattern), validV ? /refused: (?!not valid|options)/ : /refused: not valid under v/);
      if (validV || f.id.startsWith('E')) assert.equal(rows.get(f.id), outcome(f.pattern), f.pattern);
    });
});

describe('options.pattern draws (issue 43)', () => {
  it('both samplers on both paths give values of the length the native RegExp accepts, and ranks 0 and count - 1', () => {
    for (const [pattern, length] of [
      ['(?=.*\\d)[a-z0-9]{10}', 10],
      ['(?=.*\\d)(?!.*ab)[a-z0-9]{10}', 10],
      ['(?!.*(.)\\1)[ab1]+', 6],
    ] as const) {
      const native = new RegExp(`^(?:${pattern})$`, 'v');
      for (const method of [undefined, 'automaton'] as const)
        for (const sampler of ['exact', 'rejection'] as const) {
          const p = served(plan(pattern, length, { method, sampler }));
          assert.equal(p.sampler, sampler);
          const values = drawPattern(p, seededRandom(7), 30);
          assert.equal(values.length, 30);
          for (const v of values) assert.ok(native.test(v) && v.length === p.length, `${pattern}: ${v}`);
          if (sampler === 'exact')
            for (const r of [0n, p.count - 1n]) assert.ok(native.test(valueAt(p, r)), `${pattern} rank ${r}`);
        }
    }
  });
});
