/**
 * Statistical tests of the generator's output distribution against the exact distribution it
 * must have. Every test states its false-alarm rate: alpha = 1e-6 per `it` (Bonferroni within a
 * test where several statistics are combined), so a correct generator fails a full run of this
 * file with probability below 1e-5. Samples come from the real CSPRNG.
 *
 * Each test is shown to have teeth: the same test function is run on deliberately biased
 * generators (`byte % n`, place-one-of-each-then-shuffle, `u16 % 7772`) and must reject them.
 *
 * Independence: characters of one password are not independent under the each-class rule, so
 * pooled per-character counts are used only for single-class pools (i.i.d.); multi-class pools
 * are tested per position (one character per password: independent across passwords) and by the
 * class-count distribution (one statistic per password). Words of a passphrase are i.i.d.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generatePassword, isPlan, planPassword, type PasswordPlan } from '../../lib/core/password.ts';
import { generatePassphrase, planPassphrase, WORDLIST } from '../../lib/core/passphrase.ts';
import { defaultRandom } from '../../lib/core/random.ts';
import { validateRequest, type PasswordOptions } from '../../lib/core/validate.ts';
import { chiSquareTest } from '../helpers/stats.ts';

const ALPHA = 1e-6;

function plan(given: Partial<PasswordOptions>): PasswordPlan {
  const r = validateRequest({ mode: 'password', options: given });
  assert.ok(r.ok && r.request.mode === 'password');
  const p = planPassword(r.request.options);
  assert.ok(isPlan(p));
  return p;
}

const classSizes = (p: PasswordPlan) => p.metadata.classes.map((c) => c.size);

/** Strings of length L over a pool of N holding >= 1 character of each class in `required`. */
function countCovering(required: number[], N: number, L: number): bigint {
  let sum = 0n;
  for (let s = 0; s < 1 << required.length; s++) {
    let removed = 0;
    let sign = 1n;
    required.forEach((size, i) => {
      if (s & (1 << i)) {
        removed += size;
        sign = -sign;
      }
    });
    sum += sign * BigInt(N - removed) ** BigInt(L);
  }
  return sum;
}

const ratio = (a: bigint, b: bigint) => Number((a * 10n ** 18n) / b) / 1e18;

/** Exact P(a fixed position = c) for each pool character c, under uniform sampling of V. */
function positionProbabilities(p: PasswordPlan): number[] {
  const sizes = classSizes(p);
  const N = p.pool.length;
  const total = countCovering(sizes, N, p.length);
  const perClass = sizes.map((_, j) => ratio(countCovering(sizes.filter((__, i) => i !== j), N, p.length - 1), total));
  return p.pool.map((_, idx) => perClass[Math.log2(p.classBit[idx])]);
}

/** Exact distribution of the number of characters of class `j` in a password from V. */
function classCountProbabilities(p: PasswordPlan, j: number): number[] {
  const sizes = classSizes(p);
  const N = p.pool.length;
  const L = p.length;
  const others = sizes.filter((_, i) => i !== j);
  const total = countCovering(sizes, N, L);
  const probs: number[] = [];
  let binom = 1n;
  for (let k = 0; k <= L; k++) {
    if (k > 0) binom = (binom * BigInt(L - k + 1)) / BigInt(k);
    const ways = k === 0 ? 0n : binom * BigInt(sizes[j]) ** BigInt(k) * countCovering(others, N - sizes[j], L - k);
    probs.push(ratio(ways, total));
  }
  return probs;
}

type PasswordSource = (p: PasswordPlan) => string;
const realPassword: PasswordSource = (p) => generatePassword(p, defaultRandom);

/** Mutant 1: the classic modulo bias, one byte per character, each-class redraw kept. */
const moduloPassword: PasswordSource = (p) => {
  const bytes = new Uint8Array(p.length);
  for (;;) {
    globalThis.crypto.getRandomValues(bytes);
    let seen = 0;
    let out = '';
    for (const b of bytes) {
      const j = b % p.pool.length;
      seen |= p.classBit[j];
      out += p.pool[j];
    }
    if (seen === p.allClasses) return out;
  }
};

/** Mutant 2: one character of each class placed first, the rest from the pool, then shuffled. */
const placeThenShuffle: PasswordSource = (p) => {
  const chars: string[] = [];
  const classes = p.metadata.classes.length;
  for (let c = 0; c < classes; c++) {
    const members = p.pool.filter((_, i) => p.classBit[i] === 1 << c);
    chars.push(members[defaultRandom.below(members.length)]);
  }
  while (chars.length < p.length) chars.push(p.pool[defaultRandom.below(p.pool.length)]);
  for (let i = chars.length - 1; i > 0; i--) {
    const k = defaultRandom.below(i + 1);
    [chars[i], chars[k]] = [chars[k], chars[i]];
  }
  return chars.join('');
};

function pooledCharacterTest(p: PasswordPlan, source: PasswordSource, passwords: number): number {
  const counts = new Array<number>(p.pool.length).fill(0);
  const index = new Map(p.pool.map((c, i) => [c, i]));
  for (let i = 0; i < passwords; i++) for (const ch of source(p)) counts[index.get(ch)!]++;
  return chiSquareTest(counts, counts.map(() => 1 / p.pool.length)).p;
}

/** Smallest per-position p-value times the number of positions (Bonferroni). */
function perPositionTest(p: PasswordPlan, source: PasswordSource, passwords: number): number {
  const probs = positionProbabilities(p);
  const index = new Map(p.pool.map((c, i) => [c, i]));
  const counts = Array.from({ length: p.length }, () => new Array<number>(p.pool.length).fill(0));
  for (let i = 0; i < passwords; i++) {
    const v = source(p);
    for (let pos = 0; pos < p.length; pos++) counts[pos][index.get(v[pos])!]++;
  }
  return Math.min(1, p.length * Math.min(...counts.map((c) => chiSquareTest(c, probs).p)));
}

/** Class-count distribution of every class; Bonferroni over classes. */
function classCountTest(p: PasswordPlan, source: PasswordSource, passwords: number): number {
  const classes = p.metadata.classes.length;
  const counts = Array.from({ length: classes }, () => new Array<number>(p.length + 1).fill(0));
  for (let i = 0; i < passwords; i++) {
    const v = source(p);
    const perClass = new Array<number>(classes).fill(0);
    for (const ch of v) perClass[Math.log2(p.classBit[p.pool.indexOf(ch)])]++;
    perClass.forEach((k, c) => counts[c][k]++);
  }
  let minP = 1;
  for (let c = 0; c < classes; c++) minP = Math.min(minP, chiSquareTest(counts[c], classCountProbabilities(p, c)).p);
  return Math.min(1, classes * minP);
}

describe('exact expected distributions (sanity of the oracles)', () => {
  it('position and class-count probabilities each sum to 1', () => {
    for (const p of [plan({ length: 8 }), plan({ length: 12, includeSymbols: true, avoidAmbiguous: true })]) {
      const pos = positionProbabilities(p).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(pos - 1) < 1e-9, String(pos));
      for (let c = 0; c < p.metadata.classes.length; c++) {
        const s = classCountProbabilities(p, c).reduce((a, b) => a + b, 0);
        assert.ok(Math.abs(s - 1) < 1e-9, String(s));
      }
    }
  });
});

describe('password characters (alpha = 1e-6 per test)', () => {
  const singleClassPools: [string, Partial<PasswordOptions>][] = [
    ['a-z (26)', { includeUppercase: false, includeNumbers: false, length: 16 }],
    ['0-9 (10)', { includeLowercase: false, includeUppercase: false, length: 16 }],
    ['symbols (23)', { includeLowercase: false, includeUppercase: false, includeNumbers: false, includeSymbols: true, length: 16 }],
    ['A-Z without ambiguous and QXZ (20)', { includeLowercase: false, includeNumbers: false, avoidAmbiguous: true, excludedCharacters: 'QXZ', length: 16 }],
  ];
  for (const [name, given] of singleClassPools) {
    it(`pooled per-character chi-square is uniform for ${name}`, () => {
      assert.ok(pooledCharacterTest(plan(given), realPassword, 4000) > ALPHA);
    });
  }

  const multiClassPools: [string, Partial<PasswordOptions>][] = [
    ['default a-z A-Z 0-9, length 8', { length: 8 }],
    ['all four classes (85), length 10', { length: 10, includeSymbols: true }],
    ['avoidAmbiguous + symbols (76), length 8', { length: 8, includeSymbols: true, avoidAmbiguous: true }],
  ];
  for (const [name, given] of multiClassPools) {
    it(`per-position chi-square against the exact each-class distribution, ${name} (Bonferroni over positions)`, () => {
      assert.ok(perPositionTest(plan(given), realPassword, 20000) > ALPHA);
    });
  }

  it('class-count distribution matches uniform-over-V, length 8 and length 12 with symbols (Bonferroni over classes)', () => {
    assert.ok(classCountTest(plan({ length: 8 }), realPassword, 20000) > ALPHA / 2);
    assert.ok(classCountTest(plan({ length: 12, includeSymbols: true }), realPassword, 20000) > ALPHA / 2);
  });
});

describe('the tests have teeth: biased generators are rejected', () => {
  it('byte % n fails the pooled character test (a-z: 22 letters get 10/256, 4 get 9/256)', () => {
    assert.ok(pooledCharacterTest(plan({ includeUppercase: false, includeNumbers: false, length: 16 }), moduloPassword, 4000) < ALPHA);
  });
  it('byte % n fails the per-position test (default pool: 8 characters get 5/256, 54 get 4/256)', () => {
    assert.ok(perPositionTest(plan({ length: 8 }), moduloPassword, 20000) < ALPHA);
  });
  it('place-then-shuffle fails the class-count test', () => {
    assert.ok(classCountTest(plan({ length: 8 }), placeThenShuffle, 20000) < ALPHA);
  });
});

describe('passphrase words and numbers (alpha = 1e-6 per test)', () => {
  const WORDS = 400_000;
  const wordIndex = new Map(WORDLIST.map((w, i) => [w, i]));
  const wordTest = (draw: () => number) => {
    const counts = new Array<number>(WORDLIST.length).fill(0);
    for (let i = 0; i < WORDS; i++) counts[draw()]++;
    return chiSquareTest(counts, counts.map(() => 1 / WORDLIST.length)).p;
  };

  it('word indices are uniform over the 7,772 words (chi-square, 400,000 words)', () => {
    const p = planPassphrase({ wordCount: 8, separator: 'space', capitalize: false, addNumber: false });
    const queue: number[] = [];
    const draw = () => {
      if (queue.length === 0) for (const w of generatePassphrase(p, defaultRandom).split(' ')) queue.push(wordIndex.get(w)!);
      return queue.pop()!;
    };
    assert.ok(wordTest(draw) > ALPHA);
  });

  it('the two-digit number is uniform over 00-99 (chi-square, 40,000 numbers)', () => {
    const p = planPassphrase({ wordCount: 4, separator: 'dot', capitalize: false, addNumber: true });
    const counts = new Array<number>(100).fill(0);
    for (let i = 0; i < 40_000; i++) counts[Number(generatePassphrase(p, defaultRandom).split('.')[4])]++;
    assert.ok(chiSquareTest(counts, counts.map(() => 0.01)).p > ALPHA);
  });

  it('teeth: u16 % 7772 (3,360 words get 9/65536, the rest 8/65536) is rejected', () => {
    const u16 = new Uint16Array(32_768);
    let next = u16.length;
    const biased = () => {
      if (next === u16.length) {
        globalThis.crypto.getRandomValues(u16);
        next = 0;
      }
      return u16[next++] % WORDLIST.length;
    };
    assert.ok(wordTest(biased) < ALPHA);
  });

});
