import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  STRENGTH_LEVELS,
  countEachClassStrings,
  log2BigInt,
  passphraseBits,
  passwordBits,
  strength,
} from '../../lib/core/entropy.ts';

/** Brute force: enumerate every string and count those holding each class. */
function bruteForceCount(classSizes: number[], length: number): number {
  const classOf: number[] = [];
  classSizes.forEach((size, c) => {
    for (let i = 0; i < size; i++) classOf.push(c);
  });
  const n = classOf.length;
  let valid = 0;
  const digits = new Array<number>(length).fill(0);
  for (let total = n ** length, k = 0; k < total; k++) {
    let x = k;
    for (let i = 0; i < length; i++) {
      digits[i] = x % n;
      x = Math.floor(x / n);
    }
    const seen = new Set(digits.map((d) => classOf[d]));
    if (seen.size === classSizes.length) valid++;
  }
  return valid;
}

describe('countEachClassStrings (inclusion-exclusion)', () => {
  for (const [sizes, length] of [
    [[2, 3], 4],
    [[1, 1, 1], 5],
    [[3, 2, 1, 2], 5],
    [[4], 3],
    [[2, 2, 2, 2], 4],
  ] as [number[], number][]) {
    it(`equals brute-force enumeration for classes ${JSON.stringify(sizes)}, length ${length}`, () => {
      assert.equal(countEachClassStrings(sizes, length), BigInt(bruteForceCount(sizes, length)));
    });
  }

  it('is 0 when there are more classes than characters', () => {
    assert.equal(countEachClassStrings([1, 1, 1], 2), 0n);
  });

  it('is exact far past 2^53 (85^128 has 821 bits)', () => {
    const v = countEachClassStrings([26, 26, 10, 23], 128);
    assert.ok(v < 85n ** 128n && v > 84n ** 128n);
  });
});

describe('passwordBits', () => {
  it('gives 47.18 for 8 characters of a-z A-Z 0-9 (naive 8 log2 62 = 47.63 over-counts)', () => {
    assert.equal(passwordBits([26, 26, 10], 8).toFixed(2), '47.18');
    assert.equal((8 * Math.log2(62)).toFixed(2), '47.63');
  });
  it('gives 142.88 for the default 24 characters', () => {
    assert.equal(passwordBits([26, 26, 10], 24).toFixed(2), '142.88');
  });
  it('gives L log2 N for a single class', () => {
    assert.ok(Math.abs(passwordBits([26], 8) - 8 * Math.log2(26)) < 1e-12);
  });
  it('gives 820.40 for 128 characters of all four classes', () => {
    assert.equal(passwordBits([26, 26, 10, 23], 128).toFixed(2), '820.40');
  });
});

describe('passphraseBits', () => {
  it('gives 51.70 for 4 words of 7,772 and 58.34 with a two-digit number', () => {
    assert.equal(passphraseBits(7772, 4, false).toFixed(2), '51.70');
    assert.equal(passphraseBits(7772, 4, true).toFixed(2), '58.34');
  });
  it('gives 103.39 for 8 words', () => {
    assert.equal(passphraseBits(7772, 8, false).toFixed(2), '103.39');
  });
});

describe('log2BigInt', () => {
  it('is exact on powers of two and close on large values', () => {
    assert.equal(log2BigInt(1n), 0);
    assert.equal(log2BigInt(2n ** 1000n), 1000);
    assert.ok(Math.abs(log2BigInt(3n ** 500n) - 500 * Math.log2(3)) < 1e-9);
  });
  it('rejects zero and negatives', () => {
    assert.throws(() => log2BigInt(0n), RangeError);
    assert.throws(() => log2BigInt(-5n), RangeError);
  });
});

describe('strength (label table, half-open intervals on the unrounded bits)', () => {
  const cases: [number, string, number][] = [
    [0, 'Weak', 0],
    [47.18, 'Weak', 0],
    [49.999, 'Weak', 0],
    [50, 'Fair', 1],
    [63.999, 'Fair', 1],
    [64, 'Strong', 2],
    [79.999, 'Strong', 2],
    [80, 'Very strong', 3],
    [99.999, 'Very strong', 3],
    [100, 'Excellent', 4],
    [820.4, 'Excellent', 4],
  ];
  for (const [bits, label, level] of cases) {
    it(`labels ${bits} bits ${label} (level ${level})`, () => {
      const s = strength(bits);
      assert.equal(s.label, label);
      assert.equal(s.level, level);
    });
  }
  it('labels from the unrounded figure: 49.996 rounds to 50 but stays Weak', () => {
    assert.deepEqual({ ...strength(49.996) }, { bits: 50, label: 'Weak', level: 0 });
  });
  it('rounds bits to 2 decimals', () => {
    assert.equal(strength(142.87937).bits, 142.88);
  });
  it('rejects negative, NaN and infinite bits', () => {
    for (const b of [-1, NaN, Infinity]) assert.throws(() => strength(b), RangeError);
  });
  it('publishes the table of docs/decisions.md (Entropy and strength)', () => {
    assert.deepEqual(
      STRENGTH_LEVELS.map((s) => [s.level, s.label, s.minBits, s.maxBits]),
      [
        [0, 'Weak', 0, 50],
        [1, 'Fair', 50, 64],
        [2, 'Strong', 64, 80],
        [3, 'Very strong', 80, 100],
        [4, 'Excellent', 100, null],
      ],
    );
  });
});
