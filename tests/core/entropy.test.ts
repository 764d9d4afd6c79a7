import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STRENGTH_LEVELS, log2BigInt, passphraseBits, strength } from '../../lib/core/entropy.ts';

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
