/**
 * Exact counts and the exact sampler's bijection for `passwordrules` (the plan's refusals, its
 * length and its sampler: tests/core/rules/plan.test.ts). An enumeration file: it runs in
 * `npm test`'s sampling lane, without coverage counters (tests/helpers/test-files.mjs).
 *
 * Counts are checked against brute-force enumeration (every string of small alphabets and
 * lengths, checked by tests/helpers/rules-checker.ts) and against an independent dynamic
 * programme (tests/helpers/rules-oracle.ts) on larger rules, with max-repeating and
 * max-sequential. The counts are the plan's: the rule's spec (plan.ts, ruleSpec) counted by the
 * core's engine (lib/core/engine.ts), also at lengths the service does not offer. The exact
 * sampler's unranking is checked to be a bijection from [0, count) onto the valid strings by
 * unranking every rank of small rules.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PasswordRules } from '../../../lib/core/rules/index.ts';
import { compile, count } from '../../../lib/core/engine.ts';
import { unrank } from '../../../lib/core/unrank.ts';
import { isRulesPlan, planPasswordRules, ruleSpec } from '../../../lib/core/rules/plan.ts';
import { uniformBigIntBelow } from '../../../lib/core/random.ts';
import { plan, planError, rule } from '../../helpers/rule-plans.ts';
import { readRule, violation } from '../../helpers/rules-checker.ts';
import { oracleCount, oracleInput } from '../../helpers/rules-oracle.ts';
import { seededFill, seededRandom } from '../../helpers/seeded.ts';

/** Every string of `length` over `alphabet`, in odometer order. */
function* allStrings(alphabet: string, length: number): Generator<string> {
  const idx = new Array<number>(length).fill(0);
  for (;;) {
    yield idx.map((i) => alphabet[i]).join('');
    let p = length - 1;
    while (p >= 0 && ++idx[p] === alphabet.length) idx[p--] = 0;
    if (p < 0) return;
  }
}

/** Strings of `length` the checker accepts. */
function bruteForceCount(text: string, length: number): bigint {
  const checker = { ...readRule(text), minLength: 0, maxLength: Infinity };
  let n = 0n;
  for (const s of allStrings([...checker.allowed].sort().join(''), length)) if (violation(checker, s) === null) n++;
  return n;
}

/** The plan's count (its spec, counted by the engine) at any length, also those the service
 * does not offer. */
const countOf = (r: PasswordRules, length: number) => count(compile(ruleSpec(r, length)));

/** A custom class of the characters of s: "-" first and "]" last, as the syntax wants. */
const cls = (s: string) => `[${s.includes('-') ? '-' : ''}${s.replace(/[-\]]/g, '')}${s.includes(']') ? ']' : ''}]`;

/** A small seeded generator of test cases (sfc32 words). */
function caseRandom(seed: number) {
  const fill = seededFill(seed);
  const word = new Uint32Array(1);
  return (n: number) => {
    fill(word);
    return word[0] % n; // test-case selection only: bias is irrelevant here
  };
}

describe('run-limited counts f(n, L)', () => {
  it('match brute force for n = 1..4, max run 1..6, L = 1..7', () => {
    for (let n = 1; n <= 4; n++) {
      const alphabet = 'abcd'.slice(0, n);
      for (let m = 1; m <= 6; m++) {
        for (let L = 1; L <= 7; L++) {
          let brute = 0n;
          for (const s of allStrings(alphabet, L)) if (!new RegExp(`(.)\\1{${m}}`).test(s)) brute++;
          const r = rule(`allowed: [${alphabet}]; max-repeating: ${m}`);
          assert.equal(countOf(r, L), brute, `n=${n} m=${m} L=${L}`);
        }
      }
    }
  });

  it('are n^L when the run limit is the length', () => {
    for (const [n, allowed] of [
      [1, '[a]'],
      [2, '[ab]'],
      [10, 'digit'],
      [95, 'ascii-printable'],
    ] as const)
      for (const L of [1, 8, 128])
        assert.equal(countOf(rule(`allowed: ${allowed}; max-repeating: ${L}`), L), BigInt(n) ** BigInt(L));
  });
});

describe('exact counts by inclusion-exclusion', () => {
  it('match exhaustive enumeration on 300 random small rules (overlapping required sets, max-consecutive)', () => {
    const pick = caseRandom(20240613);
    let enumerated = 0;
    for (let c = 0; c < 300; c++) {
      const n = 2 + pick(4); // 2..5 characters
      const alphabet = ['abcde', 'a-]b ', '01xyz'][pick(3)].slice(0, n);
      const length = 1 + pick(n >= 5 ? 6 : 7);
      const sets: string[] = [];
      for (let k = pick(4); k > 0; k--) {
        const set = [...alphabet].filter(() => pick(2) === 1);
        if (set.length > 0) sets.push(set.join(''));
      }
      const maxRun = pick(3) === 0 ? null : 1 + pick(length);
      const text = [
        `allowed: ${cls(alphabet)}`,
        ...sets.map((s) => `required: ${cls(s)}`),
        ...(maxRun === null ? [] : [`max-consecutive: ${maxRun}`]),
      ].join('; ');
      assert.equal(countOf(rule(text), length), bruteForceCount(text, length), `${text} at length ${length}`);
      enumerated += n ** length;
    }
    assert.ok(enumerated > 100_000, `enumerated ${enumerated} strings`);
  });

  it('match exhaustive enumeration on 300 random small rules with max-repeating and max-sequential (the engine itself: 1,000 per kind in tests/core/engine.test.ts)', () => {
    const pick = caseRandom(20260910);
    // Alphabets rich in neighbours (chains inside one range, range ends, a chain cut by a gap,
    // characters next to a range but outside it) so that sequences bind.
    const alphabets = ['abcdef', '012345', 'XYZab', '89:@A', 'abdeg!', 'ABC01', 'yz0', 'abc'];
    let enumerated = 0;
    const seen = { alphabets: new Set<string>(), lengths: new Set<number>(), withRequired: 0, aliased: 0 };
    for (let c = 0; c < 300; c++) {
      const alphabet = alphabets[pick(alphabets.length)].slice(0, 3 + pick(4));
      // Up to 5,000 strings a rule.
      const length = 1 + pick(Math.floor(Math.log(5000) / Math.log(alphabet.length)));
      const sets: string[] = [];
      for (let k = pick(4); k > 0; k--) {
        const set = [...alphabet].filter(() => pick(3) === 0);
        if (set.length > 0) sets.push(set.join(''));
      }
      const limits: string[] = [];
      if (pick(4) === 0) limits.push(`max-consecutive: ${1 + pick(3)}`);
      if (pick(3) !== 0) limits.push(`max-sequential: ${1 + pick(4)}`);
      if (pick(2) === 0) limits.push(`max-repeating: ${1 + pick(3)}`);
      const text = [`allowed: ${cls(alphabet)}`, ...sets.map((s) => `required: ${cls(s)}`), ...limits].join('; ');
      assert.equal(countOf(rule(text), length), bruteForceCount(text, length), `${text} at length ${length}`);
      enumerated += alphabet.length ** length;
      seen.alphabets.add(rule(text).allowed);
      seen.lengths.add(length);
      if (sets.length > 0) seen.withRequired++;
      if (limits.some((l) => l.startsWith('max-consecutive'))) seen.aliased++;
    }
    process.stdout.write(
      `rules counts: 300 rules with max-sequential or max-repeating against enumeration: ${seen.alphabets.size} alphabets, lengths ${[...seen.lengths].sort((a, b) => a - b).join(',')}, ${seen.withRequired} with required sets, ${seen.aliased} with max-consecutive, ${enumerated} strings\n`,
    );
    assert.ok(enumerated > 100_000, `enumerated ${enumerated} strings`);
  });

  it('match the independent dynamic programme on larger rules', () => {
    const cases: [string, number][] = [
      ['max-consecutive: 2; required: lower; required: digit; allowed: [-!]', 12],
      ['max-consecutive: 3; required: [abc]; required: [cde]; required: [0]; allowed: [xyz]', 16],
      ['max-consecutive: 1; required: upper; required: digit', 10],
      ['required: lower; required: upper; required: digit; required: special', 16],
      ['max-consecutive: 2; required: [ab]; required: [b]; allowed: [cd]', 20],
      ['max-sequential: 1; required: [ace]; required: [x]; allowed: [abcdefxyz0189]', 14],
      ['max-sequential: 2; max-repeating: 1; required: [0]; required: [9]; allowed: digit, [ABCD]', 16],
      ['max-sequential: 3; max-repeating: 2; required: [Mm]; allowed: [JKLMNOjklmno56789]', 12],
    ];
    for (const [text, length] of cases) {
      assert.equal(countOf(rule(text), length), oracleCount(oracleInput(readRule(text), length)), text);
    }
  });
});

describe('hand-computed vectors', () => {
  it('length 16, ascii-printable with one each of upper, lower, digit, special: 104.83 bits (naive 105.12)', () => {
    const p = plan(
      'required: upper; required: lower; required: digit; required: special; allowed: ascii-printable',
      16,
    );
    // 95^16 - (69^16 + 69^16 + 85^16 + 62^16) + (43^16 + 59^16 + 36^16 + 59^16 + 36^16 + 52^16)
    //  - (33^16 + 10^16 + 26^16 + 26^16) + 0
    const e = (n: number) => BigInt(n) ** 16n;
    const expected =
      e(95) -
      (e(69) + e(69) + e(85) + e(62)) +
      (e(43) + e(59) + e(36) + e(59) + e(36) + e(52)) -
      (e(33) + e(10) + e(26) + e(26));
    assert.equal(p.count, expected);
    assert.equal(p.bits.toFixed(2), '104.83');
    assert.equal((16 * Math.log2(95)).toFixed(2), '105.12');
  });

  it('length 20, required lower or upper, required digit, nothing else allowed: 119.04 bits', () => {
    const p = plan('required: lower, upper; required: digit', 20);
    assert.equal(p.count, 62n ** 20n - 10n ** 20n - 52n ** 20n);
    assert.equal(p.bits.toFixed(2), '119.04');
    assert.equal(p.rule.allowed.length, 62);
  });

  it('allowed [ab], max-consecutive 2, length 8: 2 x Fibonacci(9) = 68 strings (6.09 bits)', () => {
    // Runs of length 1 or 2 summing to 8: compositions counted by Fibonacci(9) = 34; 2 choices
    // for the first character, the rest alternate. The sequence half of the alias cannot bind:
    // "ab" and "ba" are sequences of 2, and a turn starts a new one.
    const p = plan('allowed: [ab]; max-consecutive: 2', 8);
    assert.equal(p.count, 68n);
    assert.equal(plan('allowed: [ab]; max-repeating: 2', 8).count, 68n);
    assert.equal(bruteForceCount('allowed: [ab]; max-consecutive: 2', 8), 68n);
    assert.equal(p.bits.toFixed(2), '6.09');
  });

  it('allowed [abc], required a and b, max-repeating 1, length 8: 3 x 2^7 - 2 - 2 = 380 strings', () => {
    // No two neighbours equal: 3 x 2^7 = 384; without a: the 2 alternations of b and c;
    // without b: 2 likewise; without both: 0 (c alone repeats).
    const text = 'required: [a]; required: [b]; allowed: [c]; max-repeating: 1';
    assert.equal(plan(text, 8).count, 380n);
    assert.equal(bruteForceCount(text, 8), 380n);
  });

  it('the same with max-consecutive 1 has no password: b may stand beside neither a, c nor b', () => {
    const text = 'required: [a]; required: [b]; allowed: [c]; max-consecutive: 1';
    assert.equal(bruteForceCount(text, 8), 0n);
    assert.deepEqual(planError(text, 8), {
      error:
        'options.passwordRules: no password of length 8 satisfies the rule: max-sequential 1 keeps neighbours such as "ab" or "21" apart, and the allowed characters leave no other way',
      field: 'options.passwordRules',
    });
  });

  it('the examples of PR #1255: aaa, abc, cba, 123, 321 pass a limit of 3 and fail 2; aba holds two sequences of 2', () => {
    // Counted at length 3 over the example's characters: the limit 2 removes exactly the
    // example (and its mirror, which is another example), the limit 3 nothing.
    const at3 = (text: string) => countOf(rule(text), 3);
    assert.equal(at3('allowed: [ab]; max-repeating: 3'), 8n);
    assert.equal(at3('allowed: [ab]; max-repeating: 2'), 6n); // not aaa, bbb
    assert.equal(at3('allowed: [abc]; max-sequential: 3'), 27n);
    assert.equal(at3('allowed: [abc]; max-sequential: 2'), 25n); // not abc, cba
    assert.equal(at3('allowed: [123]; max-sequential: 2'), 25n); // not 123, 321
    assert.equal(at3('allowed: [ab]; max-sequential: 2'), 8n); // aba, bab: two sequences of 2 each
    assert.equal(at3('allowed: [ab]; max-sequential: 1'), 2n); // aaa, bbb: ab and ba are sequences of 2
  });

  it('sequences stay inside a range and do not wrap: 9 then 0, Z then [, @ then A, z then { are no steps', () => {
    for (const pair of ['09', '9:', 'Z[', '@A', 'z{', '/0', '`a']) {
      assert.equal(countOf(rule(`allowed: [${pair}]; max-sequential: 1`), 4), 16n, pair);
    }
    assert.equal(countOf(rule('allowed: [89]; max-sequential: 1'), 4), 2n);
    assert.equal(countOf(rule('allowed: [YZ]; max-sequential: 1'), 4), 2n);
  });

  it('allowed [abc], max-sequential 1, length 8: 1 + 2^8 = 257 strings (b only beside b)', () => {
    const text = 'allowed: [abc]; max-sequential: 1';
    assert.equal(plan(text, 8).count, 257n);
    assert.equal(bruteForceCount(text, 8), 257n);
  });

  it('allowed [0123], max-repeating and max-sequential 1, length 8: walks on the path 2-0-3-1, 2 x Fibonacci(10) = 110', () => {
    const text = 'allowed: [0123]; max-repeating: 1; max-sequential: 1';
    assert.equal(plan(text, 8).count, 110n);
    assert.equal(bruteForceCount(text, 8), 110n);
  });

  it('a..h each required, max-consecutive 1, length 8: the 5,242 permutations with no neighbours side by side', () => {
    // Hertzsprung's problem (OEIS A002464): permutations of 8 with no two consecutive values
    // adjacent; 8! = 40,320 without the sequence half of the alias.
    const text = [...'abcdefgh'].map((c) => `required: [${c}]`).join('; ') + '; max-consecutive: 1';
    assert.equal(plan(text, 8).count, 5242n);
    assert.equal(plan(text.replace('max-consecutive', 'max-repeating'), 8).count, 40320n);
  });

  it('max-consecutive 3 over digits, one letter required, length 8: brute force agrees', () => {
    const text = 'required: [x]; allowed: [0123]; max-consecutive: 3';
    assert.equal(plan(text, 8).count, bruteForceCount(text, 8));
  });
});

describe('the exact sampler is a bijection from [0, count) onto the valid strings', () => {
  const text = (codes: number[]) => String.fromCharCode(...codes);

  for (const rules of [
    'allowed: [ab]; max-consecutive: 2',
    'required: [a]; required: [b]; allowed: [c]; max-repeating: 1',
    'required: [ab]; required: [bc]; allowed: [d]',
    'required: [a]; allowed: [bc]; max-consecutive: 3',
    'required: [a]; required: [b]; required: [c]; required: [d]; max-consecutive: 2',
    'allowed: [abcd]; max-repeating: 1',
    'required: [0]; allowed: [012x]; max-sequential: 1; max-repeating: 2',
    'required: [b]; required: [d]; allowed: [abcd]; max-sequential: 2',
    'allowed: [abcd]; max-sequential: 1',
    'allowed: [012x]; max-sequential: 2; max-repeating: 2',
    'allowed: [abcd]; max-sequential: 3; max-repeating: 1; required: [a]',
    'allowed: [ab!]; max-consecutive: 1',
    'allowed: [abYZ]; max-sequential: 1; max-repeating: 3',
    'allowed: [abc]; required: [b]; max-sequential: 1',
    'required: [0]; required: [3]; allowed: [0123]; max-sequential: 1; max-repeating: 2',
    'required: [a]; required: [c]; allowed: [abcd]; max-consecutive: 2',
  ]) {
    it(`${rules}, length 8: every rank gives a different valid password, as many as enumeration finds`, () => {
      const p = plan(rules, 8, 'exact');
      const tables = p.counted!;
      const checker = readRule(rules);
      const seen = new Set<string>();
      for (let x = 0n; x < p.count; x++) {
        const s = text(unrank(tables, x));
        assert.equal(violation(checker, s), null, s);
        seen.add(s);
      }
      assert.equal(BigInt(seen.size), p.count);
      assert.equal(p.count, bruteForceCount(rules, 8));
    });
  }

  it('on large rules the first, last and random ranks give valid passwords of the right length', () => {
    const random = seededRandom(7);
    for (const [rules, length] of [
      [
        'required: [a]; required: [b]; required: [c]; required: [d]; required: [e]; required: [f]; required: [g]; required: [h]',
        8,
      ],
      ['max-repeating: 1; required: lower; required: upper; required: digit; required: special', 128],
      ['required: [ab]; allowed: ascii-printable', 128],
      ['max-consecutive: 1; required: lower; required: upper; required: digit; required: special', 128],
      ['max-sequential: 2; max-repeating: 1; allowed: digit, [AB]; required: [5]', 128],
    ] as const) {
      // Forced exact and without the budget (the draws of a long exact plan are priced past it):
      // this is about the walk, not the price.
      const p = planPasswordRules(rule(rules), length, 'exact', Infinity);
      assert.ok(isRulesPlan(p), rules);
      const checker = readRule(rules);
      for (const x of [0n, p.count - 1n, ...Array.from({ length: 20 }, () => uniformBigIntBelow(p.count, random))]) {
        const s = text(unrank(p.counted!, x));
        assert.equal(s.length, length);
        assert.equal(violation(checker, s), null, `${rules}: ${s}`);
      }
    }
  });

  it('refuses a rank outside [0, count); only an exact plan keeps the tables', () => {
    const p = plan('allowed: [ab]; max-consecutive: 2', 8, 'exact');
    assert.throws(() => unrank(p.counted!, -1n), RangeError);
    assert.throws(() => unrank(p.counted!, p.count), RangeError);
    assert.equal(p.counted!.count, p.count);
    assert.equal(plan('allowed: [ab]', 8, 'rejection').counted, null);
  });
});
