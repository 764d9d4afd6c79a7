import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedCache } from '../../lib/core/bounded-cache.ts';

describe('BoundedCache', () => {
  it('makes a value once per key and returns the same one on a hit', () => {
    let made = 0;
    const cache = new BoundedCache<string, { n: number }>(4);
    const make = (n: number) => ({ n: (made++, n) });
    const a = cache.getOrMake('a', 1, make);
    assert.equal(cache.getOrMake('a', 2, make), a);
    assert.equal(made, 1);
  });

  it('never holds more than its limit: it clears when full', () => {
    const cache = new BoundedCache<number, number>(3);
    for (let i = 0; i < 10; i++) {
      cache.getOrMake(i, i, (x) => x * 2);
      assert.ok(cache.size <= 3);
    }
    assert.equal(
      cache.getOrMake(9, 0, () => -1),
      18,
    );
  });
});
