import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRandom, defaultRandom, webCryptoFill } from '../../lib/core/random.ts';
import { scriptedFill } from '../helpers/seeded.ts';

const TWO_32 = 2 ** 32;

describe('createRandom().below', () => {
  it('accepts the last word under the cutoff and rejects the first at it (n = 62)', () => {
    // 2^32 mod 62 = 4, so the cutoff is 2^32 - 4 = 4,294,967,292.
    assert.equal(TWO_32 % 62, 4);
    const cutoff = TWO_32 - 4;
    const fill = scriptedFill([cutoff - 1, cutoff, TWO_32 - 1, 125]);
    const r = createRandom(fill, 4);
    assert.equal(r.below(62), (cutoff - 1) % 62);
    assert.equal(r.below(62), 125 % 62); // cutoff and 2^32-1 were rejected
    assert.equal(fill.calls, 1);
  });

  it('maps accepted words by remainder, so each residue has floor(2^32/n) preimages', () => {
    const fill = scriptedFill([0, 61, 62, 123, 124]);
    const r = createRandom(fill, 5);
    assert.deepEqual([r.below(62), r.below(62), r.below(62), r.below(62), r.below(62)], [0, 61, 0, 61, 0]);
  });

  it('rejects nothing for n = 2^k and uses the whole word for n = 2^32', () => {
    const fill = scriptedFill([TWO_32 - 1, 7, TWO_32 - 1]);
    const r = createRandom(fill, 3);
    assert.equal(r.below(256), 255);
    assert.equal(r.below(8), 7);
    assert.equal(r.below(TWO_32), TWO_32 - 1);
  });

  it('rejects about half the words for n = 2^31 + 1 and still terminates', () => {
    const n = 2 ** 31 + 1;
    const limit = TWO_32 - (TWO_32 % n);
    assert.equal(limit, n); // only [0, n) is accepted
    const fill = scriptedFill([n, TWO_32 - 1, n - 1]);
    assert.equal(createRandom(fill, 3).below(n), n - 1);
  });

  it('returns 0 for n = 1 (a draw is still consumed, so timing does not depend on n)', () => {
    const fill = scriptedFill([12345]);
    assert.equal(createRandom(fill, 1).below(1), 0);
    assert.equal(fill.calls, 1);
  });

  it('refills once per batch and zeroes every consumed word', () => {
    const seen: Uint32Array[] = [];
    let counter = 1;
    const r = createRandom((buf) => {
      seen.push(buf);
      for (let i = 0; i < buf.length; i++) buf[i] = counter++;
    }, 8);
    for (let i = 0; i < 8; i++) r.below(1000);
    assert.equal(seen.length, 1);
    assert.deepEqual([...seen[0]], [0, 0, 0, 0, 0, 0, 0, 0]);
    r.below(1000);
    assert.equal(seen.length, 2);
  });

  it('throws RangeError for n outside [1, 2^32] or not an integer', () => {
    const r = createRandom(scriptedFill([]), 1);
    for (const n of [0, -1, 1.5, NaN, Infinity, TWO_32 + 1]) assert.throws(() => r.below(n), RangeError);
  });

  it('throws RangeError for a bad batch size', () => {
    for (const b of [0, -1, 1.5, 16385]) assert.throws(() => createRandom(webCryptoFill, b), RangeError);
  });

  it('draws from crypto.getRandomValues by default', () => {
    const original = globalThis.crypto.getRandomValues.bind(globalThis.crypto);
    let calls = 0;
    const spy = <T extends ArrayBufferView | null>(array: T): T => {
      calls++;
      return original(array as never);
    };
    Object.defineProperty(globalThis.crypto, 'getRandomValues', { value: spy, configurable: true, writable: true });
    try {
      const r = createRandom();
      const v = r.below(10);
      assert.ok(Number.isInteger(v) && v >= 0 && v < 10);
      assert.equal(calls, 1);
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

describe('createRandom().belowMany (31-bit draws)', () => {
  it('uses the low 31 bits of each word and redraws at or above floor(2^31 / n) * n (n = 62^4)', () => {
    const n = 62 ** 4;
    const limit = Math.floor(2 ** 31 / n) * n;
    assert.equal(limit, 145 * n);
    // limit and 2^31 - 1 are redrawn; the top bit is dropped, so 2^31 + 5 is 5; limit - 1 is n - 1.
    const fill = scriptedFill([limit, 2 ** 31 - 1, 2 ** 31 + 5, limit - 1, (2 ** 31 + limit) >>> 0, 7]);
    const out = new Uint32Array(3);
    createRandom(fill, 6).belowMany(n, 3, out);
    assert.deepEqual([...out], [5, n - 1, 7]);
  });

  it('maps accepted values by remainder and accepts everything for n = 2^k', () => {
    const out = new Uint32Array(4);
    createRandom(scriptedFill([0, 61, 62, 125]), 4).belowMany(62, 4, out);
    assert.deepEqual([...out], [0, 61, 0, 1]);
    createRandom(scriptedFill([2 ** 31 - 1, 2 ** 32 - 1, 0, 2 ** 31]), 4).belowMany(2 ** 31, 4, out);
    assert.deepEqual([...out], [2 ** 31 - 1, 2 ** 31 - 1, 0, 0]);
  });

  it('spans batches: the draws of one call continue in the next batch, one fill per batch', () => {
    const fill = scriptedFill([1, 2, 3, 4, 5, 6, 7, 8]);
    const random = createRandom(fill, 4);
    const out = new Uint32Array(6);
    random.belowMany(100, 6, out);
    assert.deepEqual([...out], [1, 2, 3, 4, 5, 6]);
    assert.equal(fill.calls, 2);
    assert.equal(random.below(100), 7, 'the next draw takes the next word');
  });

  it('gives the same draws as below(n) where both agree: words under 2^31 and the 31-bit bound', () => {
    // Both sources see the same words; for n = 7772 both bounds exceed every word below.
    const words = [0, 7771, 7772, 123_456, 2 ** 30];
    const many = new Uint32Array(5);
    createRandom(scriptedFill(words), 5).belowMany(7772, 5, many);
    const single = createRandom(scriptedFill(words), 5);
    assert.deepEqual(
      [...many],
      words.map(() => single.below(7772)),
    );
  });

  it('zeroes every word it consumes, rejected ones included', () => {
    const seen: Uint32Array[] = [];
    const random = createRandom((buffer) => {
      seen.push(buffer);
      buffer.set([2 ** 31 - 1, 3, 4, 9]);
    }, 4);
    random.belowMany(10, 2, new Uint32Array(2)); // 2^31 - 1 is rejected
    assert.deepEqual([...seen[0]], [0, 0, 0, 9]);
  });

  it('throws RangeError for n outside [1, 2^31] or not an integer', () => {
    const r = createRandom(scriptedFill([]), 1);
    for (const n of [0, -1, 1.5, NaN, Infinity, 2 ** 31 + 1])
      assert.throws(() => r.belowMany(n, 1, new Uint32Array(1)), RangeError);
  });
});

describe('createRandom().pairsBelow (two table entries per draw)', () => {
  const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  /** The two 16-bit halves of a word in memory order. */
  const halves = (word: number): [number, number] => {
    const h = new Uint16Array(new Uint32Array([word]).buffer);
    return [h[0], h[1]];
  };

  it('makes the draws belowMany(m * m) makes, split into x / m and x mod m, first half first in memory', () => {
    const m = 10;
    const table = Uint32Array.from({ length: m }, (_, i) => 100 + i);
    const words = [99, 100, 2 ** 31 + 42, 7, 2 ** 31 - 1];
    const out = new Uint32Array(5);
    createRandom(scriptedFill(words), 5).pairsBelow(m, table, 4, out, 1);
    const expected = new Uint32Array(4);
    createRandom(scriptedFill(words), 5).belowMany(m * m, 4, expected);
    assert.deepEqual([...expected], [99, 0, 42, 7]); // 100 = m^2 is redrawn
    assert.equal(out[0], 0, 'writes from `at` on');
    for (let i = 0; i < 4; i++)
      assert.deepEqual(halves(out[1 + i]), [100 + Math.floor(expected[i] / m), 100 + (expected[i] % m)]);
  });

  it('returns the OR of every entry it read (flags above bit 16 pass through, a store keeps only 16 bits each)', () => {
    const table = Uint32Array.from([0x1_0061, 0x2_0062, 0x4_0063]);
    const out = new Uint32Array(2);
    // 1 = (0, 1), 5 = (1, 2): entries 0, 1, 1, 2.
    const flags = createRandom(scriptedFill([1, 5]), 2).pairsBelow(3, table, 2, out, 0);
    assert.equal(flags, 0x7_0063);
    assert.deepEqual(halves(out[0]), [0x61, 0x62]);
    assert.deepEqual(halves(out[1]), [0x62, 0x63]);
    assert.equal(LITTLE_ENDIAN ? out[0] : out[0] >>> 16, LITTLE_ENDIAN ? 0x0062_0061 : 0x61);
  });

  it('zeroes the words it consumes and refuses a table shorter than m', () => {
    const seen: Uint32Array[] = [];
    const random = createRandom((buffer) => {
      seen.push(buffer);
      buffer.set([3, 4, 5]);
    }, 3);
    random.pairsBelow(4, new Uint32Array(4), 2, new Uint32Array(2), 0);
    assert.deepEqual([...seen[0]], [0, 0, 5]);
    assert.throws(() => random.pairsBelow(4, new Uint32Array(3), 1, new Uint32Array(1), 0), RangeError);
    assert.throws(() => random.pairsBelow(2 ** 16, new Uint32Array(1), 1, new Uint32Array(1), 0), RangeError);
    assert.throws(() => random.pairsBelow(-2, new Uint32Array(4), 1, new Uint32Array(1), 0), RangeError);
  });
});
