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
      return original(array as never) as T;
    };
    Object.defineProperty(globalThis.crypto, 'getRandomValues', { value: spy, configurable: true, writable: true });
    try {
      const r = createRandom();
      const v = r.below(10);
      assert.ok(Number.isInteger(v) && v >= 0 && v < 10);
      assert.equal(calls, 1);
    } finally {
      Object.defineProperty(globalThis.crypto, 'getRandomValues', { value: original, configurable: true, writable: true });
    }
    const d = defaultRandom.below(7);
    assert.ok(d >= 0 && d < 7);
  });
});
