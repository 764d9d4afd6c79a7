/**
 * The token bucket with an injected clock: exact numbers, no sleeping.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimiter } from '../../lib/rate-limit/token-bucket.ts';

function limiter(perMinute = 20, maxClients?: number) {
  let now = 1_000;
  const rl = new RateLimiter({
    perMinute,
    clock: () => now,
    sweepIntervalMs: 0,
    ...(maxClients === undefined ? {} : { maxClients }),
  });
  return { rl, advance: (ms: number) => (now += ms) };
}

describe('RateLimiter', () => {
  it('starts full, counts down whole tokens, and refuses the 21st of 20 without taking anything', () => {
    const { rl } = limiter();
    const fresh = rl.peek('a');
    assert.deepEqual({ ...fresh }, { allowed: true, limit: 20, remaining: 20, resetSeconds: 0, retryAfterSeconds: 0 });
    for (let i = 19; i >= 0; i--) {
      const s = rl.consume('a');
      assert.equal(s.allowed, true);
      assert.equal(s.remaining, i);
      assert.equal(s.resetSeconds, (20 - i) * 3, 'seconds until full: 3 s per token');
    }
    const refused = rl.consume('a');
    assert.deepEqual(
      { ...refused },
      { allowed: false, limit: 20, remaining: 0, resetSeconds: 60, retryAfterSeconds: 3 },
    );
    assert.deepEqual({ ...rl.consume('a') }, { ...refused }, 'a refusal costs nothing');
  });

  it('refills continuously: Retry-After and Reset count down and round up', () => {
    const { rl, advance } = limiter();
    for (let i = 0; i < 20; i++) rl.consume('a');
    advance(1_000);
    let s = rl.peek('a');
    assert.equal(s.allowed, false);
    assert.equal(s.retryAfterSeconds, 2);
    assert.equal(s.resetSeconds, 59);
    advance(1_999);
    assert.equal(rl.peek('a').retryAfterSeconds, 1, '1 ms left still rounds up to 1 s');
    advance(1);
    s = rl.consume('a');
    assert.equal(s.allowed, true);
    assert.equal(s.remaining, 0);
    assert.equal(s.resetSeconds, 60);
    advance(30_000);
    assert.equal(rl.peek('a').remaining, 10);
    assert.equal(rl.peek('a').resetSeconds, 30);
    advance(30_000);
    assert.equal(rl.size, 1);
    assert.deepEqual(
      { ...rl.peek('a') },
      { allowed: true, limit: 20, remaining: 20, resetSeconds: 0, retryAfterSeconds: 0 },
    );
    assert.equal(rl.size, 0, 'a full bucket is forgotten');
  });

  it('grants at exactly Retry-After despite float noise in the clock arithmetic', () => {
    let now = 9_999.999998999998;
    const rl = new RateLimiter({ perMinute: 1, clock: () => now, sweepIntervalMs: 0 });
    assert.equal(rl.consume('a').allowed, true);
    const refused = rl.consume('a');
    assert.equal(refused.retryAfterSeconds, 60);
    now += 60_000; // 69999.99999899999 - 9999.999998999998 is a hair under 60000
    assert.equal(rl.consume('a').allowed, true);
  });

  it('counts an empty bucket as 0 tokens, never -0, whatever float noise the clock adds', () => {
    // fast-check's counterexample: at 9096.000007360816 the bucket's full time lands a hair past
    // one interval, so the level is -2.2e-16, which snaps to Math.round's -0.
    const now = 5_000 + 4_096.000007360816;
    const rl = new RateLimiter({ perMinute: 1, clock: () => now, sweepIntervalMs: 0 });
    assert.equal(rl.consume('a').allowed, true);
    const refused = rl.consume('a');
    assert.equal(refused.allowed, false);
    assert.ok(
      Object.is(refused.remaining, 0),
      `remaining is ${Object.is(refused.remaining, -0) ? '-0' : refused.remaining}`,
    );
    assert.ok(Object.is(rl.peek('a').remaining, 0));
  });

  it('never refills past the capacity, however long the pause', () => {
    const { rl, advance } = limiter(5);
    rl.consume('a');
    advance(10 * 60_000);
    const s = rl.consume('a');
    assert.equal(s.remaining, 4);
    assert.equal(s.resetSeconds, 12);
  });

  it('keeps clients apart', () => {
    const { rl } = limiter(2);
    rl.consume('a');
    rl.consume('a');
    assert.equal(rl.consume('a').allowed, false);
    assert.equal(rl.consume('b').remaining, 1);
  });

  it('drops full buckets in the sweep and keeps the others', () => {
    const { rl, advance } = limiter(60); // one token per second
    rl.consume('a');
    advance(500);
    rl.consume('b');
    advance(600); // a is full again (1.1 s), b is not (0.6 s)
    assert.equal(rl.sweep(), 1);
    assert.equal(rl.size, 1);
    assert.equal(rl.peek('b').remaining, 59);
  });

  it('holds at most maxClients buckets, evicting the least recently used', () => {
    const { rl, advance } = limiter(60, 3);
    rl.consume('a');
    rl.consume('b');
    rl.consume('c');
    rl.consume('a'); // a becomes the most recently used
    rl.consume('d'); // evicts b, which was not full
    assert.equal(rl.size, 3);
    assert.equal(rl.evictions, 1);
    assert.equal(rl.peek('b').remaining, 60, 'b starts over');
    assert.equal(rl.peek('a').remaining, 58);
    advance(5_000); // everything refilled
    rl.consume('e'); // evicts c, now full: lossless, not counted
    assert.equal(rl.evictions, 1);
    assert.equal(rl.size, 3);
  });

  it('runs its sweep on an unref-ed timer and stops it on close', async () => {
    // The bucket is full again once the stepped clock says so; the sweep is awaited through
    // onSweep (an event), not by sleeping for "long enough" (libuv's clock can trail the real
    // one, so a 30 ms sleep could end before a 5 ms sweep saw the bucket refilled).
    let now = 0;
    let swept: (dropped: number) => void = () => {};
    const rl = new RateLimiter({
      perMinute: 60_000,
      sweepIntervalMs: 5,
      clock: () => now,
      onSweep: (dropped) => swept(dropped),
    });
    rl.consume('a');
    now = 1; // one token per ms: full again
    // The limiter's timer is unref-ed: this one keeps the process alive, and bounds a failure.
    const dropped = await new Promise<number>((resolve, reject) => {
      const bound = setTimeout(() => reject(new Error('no sweep within 30 s')), 30_000);
      swept = (n) => {
        clearTimeout(bound);
        resolve(n);
      };
    });
    assert.equal(dropped, 1);
    assert.equal(rl.size, 0);
    rl.close();
    new RateLimiter({ perMinute: 1 }).close();
  });
});

describe('RateLimiter.mirror (the shared store keeps this instance view with it)', () => {
  it('sets a bucket to the tokens given, refills it from there, and forgets a full one', () => {
    const { rl, advance } = limiter();
    rl.mirror('a', 2);
    assert.deepEqual(
      { ...rl.peek('a') },
      { allowed: true, limit: 20, remaining: 2, resetSeconds: 54, retryAfterSeconds: 0 },
    );
    rl.mirror('a', 0);
    assert.equal(rl.consume('a').allowed, false, 'a client the shared store saw empty stays out here');
    advance(3_000);
    assert.equal(rl.consume('a').remaining, 0, 'one token back after 3 s, as from the shared state');
    rl.mirror('a', 20);
    assert.equal(rl.size, 0, 'a full bucket carries no information');
    rl.mirror('b', 19.5);
    assert.equal(rl.peek('b').remaining, 19);
    rl.mirror('c', -1);
    assert.equal(rl.peek('c').remaining, 0, 'never below empty');
  });

  it('counts an answer that took ageMs to arrive as that old: the view refills from when Redis decided', () => {
    const { rl } = limiter();
    rl.mirror('a', 0, 1_000);
    assert.equal(rl.peek('a').retryAfterSeconds, 2, 'one token 3 s after Redis decided, 2 s from now');
    assert.ok(Math.abs(rl.tokens('a') - 1 / 3) < 1e-9);
    rl.mirror('b', 19.5, 3_000);
    assert.equal(rl.size, 1, 'refilled to full on arrival: forgotten');
    assert.equal(rl.tokens('b'), 20);
  });

  it('respects the cap on tracked clients like consume does', () => {
    const { rl } = limiter(20, 2);
    rl.mirror('a', 1);
    rl.mirror('b', 1);
    rl.mirror('a', 0);
    assert.equal(rl.size, 2, 'an update does not grow the map');
    rl.mirror('c', 1);
    assert.equal(rl.size, 2);
    assert.equal(rl.peek('b').remaining, 20, 'the least recently used bucket went');
    assert.equal(rl.evictions, 1);
  });
});
