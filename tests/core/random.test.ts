import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRandom, defaultRandom, uniformBigIntBelow } from '../../lib/core/random.ts';
import { scriptedFill, seededRandom } from '../helpers/seeded.ts';
import { chiSquareTest } from '../helpers/stats.ts';

const TWO_32 = 2 ** 32;

describe('createRandom().below', () => {
  it('keeps the low k bits of a word, 2^k the smallest power of two >= n, and redraws values >= n (n = 62)', () => {
    // k = 6: 62 and 63 are redrawn; the high bits are ignored, so 64 + 5 is 5.
    const fill = scriptedFill([62, 63, 64 + 5, TWO_32 - 1, 61, 0xffff_ffc0]);
    const r = createRandom(fill, 6);
    assert.deepEqual([r.below(62), r.below(62), r.below(62)], [5, 61, 0]); // 2^32 - 1 ends in 63: redrawn
    assert.equal(fill.calls, 1);
  });

  it('uses exactly the bits n needs: n = 2^k takes k bits and never redraws', () => {
    const fill = scriptedFill([0x1ff, 0xff, 0x100, TWO_32 - 1]);
    const r = createRandom(fill, 4);
    assert.equal(r.below(256), 0xff);
    assert.equal(r.below(256), 0xff);
    assert.equal(r.below(256), 0);
    assert.equal(r.below(TWO_32), TWO_32 - 1, 'n = 2^32 takes the whole word');
  });

  it('one more than a power of two takes one bit more and keeps just over half the words (n = 2^31 + 1)', () => {
    const n = 2 ** 31 + 1;
    const fill = scriptedFill([n, TWO_32 - 1, 2 ** 31]);
    assert.equal(createRandom(fill, 3).below(n), 2 ** 31);
  });

  it('returns 0 for n = 1 (a word is still consumed, so timing does not depend on n)', () => {
    const fill = scriptedFill([12345]);
    assert.equal(createRandom(fill, 1).below(1), 0);
    assert.equal(fill.calls, 1);
  });

  it('spans batches: a draw continues in the next batch, one fill per batch', () => {
    const fill = scriptedFill([1, 2, 3, 4, 5, 6, 7, 8]);
    const random = createRandom(fill, 4);
    assert.deepEqual(
      Array.from({ length: 6 }, () => random.below(100)),
      [1, 2, 3, 4, 5, 6],
    );
    assert.equal(fill.calls, 2);
    assert.equal(random.below(100), 7, 'the next draw takes the next word');
  });

  it('zeroes every word it consumes, rejected ones included, and refills only when the batch is used up', () => {
    const seen: Uint32Array[] = [];
    const random = createRandom((buffer) => {
      seen.push(buffer);
      buffer.set([15, 3, 4, 9]);
    }, 4);
    assert.equal(random.below(10), 3); // 15 is redrawn
    assert.equal(random.below(10), 4);
    assert.deepEqual([...seen[0]], [0, 0, 0, 9]);
    assert.equal(seen.length, 1);
  });

  it('throws RangeError for n outside [1, 2^32] or not an integer', () => {
    const r = createRandom(scriptedFill([]), 1);
    for (const n of [0, -1, 1.5, NaN, Infinity, TWO_32 + 1]) assert.throws(() => r.below(n), RangeError);
  });

  it('throws RangeError for a bad batch size', () => {
    for (const b of [0, -1, 1.5, 16385]) assert.throws(() => createRandom(undefined, b), RangeError);
  });

  it('draws from crypto.getRandomValues by default, one call per 64 KiB batch', () => {
    const original = globalThis.crypto.getRandomValues.bind(globalThis.crypto);
    const sizes: number[] = [];
    const spy = <T extends ArrayBufferView | null>(array: T): T => {
      sizes.push(array?.byteLength ?? 0);
      return original(array as never);
    };
    Object.defineProperty(globalThis.crypto, 'getRandomValues', { value: spy, configurable: true, writable: true });
    try {
      const r = createRandom();
      for (let i = 0; i < 1000; i++) {
        const v = r.below(10);
        assert.ok(Number.isInteger(v) && v >= 0 && v < 10);
      }
      assert.deepEqual(sizes, [65_536]);
    } finally {
      Object.defineProperty(globalThis.crypto, 'getRandomValues', {
        value: original,
        configurable: true,
        writable: true,
      });
    }
    const d = defaultRandom.below(7);
    assert.ok(d >= 0 && d < 7);
  });
});

describe('uniformBigIntBelow', () => {
  it('n up to 2^32 is one below(n)', () => {
    const fill = scriptedFill([7, 2 ** 32 - 1]);
    const random = createRandom(fill, 1);
    assert.equal(uniformBigIntBelow(10n, random), 7n);
    assert.equal(uniformBigIntBelow(2n ** 32n, random), 2n ** 32n - 1n);
  });

  it('above 2^32 it joins a short top word and full words, and redraws a candidate >= n', () => {
    // n = 2^40 + 5: n - 1 has 41 bits, so a top word below 2^9 and one full word.
    const n = 2n ** 40n + 5n;
    // Candidate 1: top 256, low 10 -> 2^40 + 10 >= n, redrawn. Candidate 2: top 256, low 4 -> 2^40 + 4.
    const random = createRandom(scriptedFill([256, 10, 256, 4]), 1);
    assert.equal(uniformBigIntBelow(n, random), 2n ** 40n + 4n);
    // The top word is drawn below 2^9: a word of 2^9 + 3 maps to 3 (2^32 is a multiple of 2^9).
    const random2 = createRandom(scriptedFill([512 + 3, 0]), 1);
    assert.equal(uniformBigIntBelow(n, random2), 3n * 2n ** 32n);
  });

  it('refuses n < 1', () => {
    assert.throws(() => uniformBigIntBelow(0n, seededRandom(1)), RangeError);
  });

  it('is uniform over [0, 3 x 2^31 + 1) in 12 equal slices (chi-square, alpha = 1e-6)', () => {
    const n = 3n * 2n ** 31n + 1n; // 2^32 < n < 2^33: one bit of top word, rejection near 1/4
    const random = seededRandom(99);
    const counts = new Array<number>(12).fill(0);
    for (let i = 0; i < 24_000; i++) counts[Number((uniformBigIntBelow(n, random) * 12n) / n)]++;
    assert.ok(
      chiSquareTest(
        counts,
        counts.map(() => 1 / 12),
      ).p > 1e-6,
    );
  });
});
