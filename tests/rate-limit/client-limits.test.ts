/**
 * The three buckets of a client over both stores (lib/rate-limit/client-limits.ts): which
 * bucket each outcome charges, the failed-key gate, and that a reply which takes no token
 * (`peek`) never reaches the shared store (docs/security.md, S2), nor does a refusal this
 * instance can decide from its own view (T2).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  failedKeyBucket,
  LocalLimits,
  noKeyBucket,
  SharedLimits,
  type Authentication,
} from '../../lib/rate-limit/client-limits.ts';
import type { AsyncRateLimitStore } from '../../lib/rate-limit/redis-store.ts';
import { RateLimiter, type RateLimitState } from '../../lib/rate-limit/token-bucket.ts';

const limiter = (perMinute = 3): RateLimiter => new RateLimiter({ perMinute, clock: () => 0, sweepIntervalMs: 0 });

/** A shared store that answers from its own in-process buckets and records every call. */
function recordingStore(
  fallback: RateLimiter,
): AsyncRateLimitStore & { calls: string[]; closed: boolean; isShared: boolean } {
  const shared = limiter(fallback.limit);
  return {
    limit: fallback.limit,
    isShared: true,
    calls: [],
    closed: false,
    consume(key: string, gate?: string): Promise<RateLimitState> {
      this.calls.push(gate === undefined ? key : `${key} gated by ${gate}`);
      if (gate !== undefined && !shared.peek(gate).allowed) return Promise.resolve(shared.peek(gate));
      return Promise.resolve(shared.consume(key));
    },
    view: (key: string) => fallback.peek(key),
    close() {
      this.closed = true;
      return Promise.resolve();
    },
  };
}

describe('LocalLimits', () => {
  it('charges the no-key, failed-key or own bucket, and the empty failed-key bucket refuses every key', async () => {
    const buckets = limiter();
    const limits = new LocalLimits(buckets);
    const client = '192.0.2.1';
    const charge = (auth: Authentication) => limits.charge(client, auth);
    assert.equal((await charge('none')).remaining, 2);
    assert.equal(buckets.peek(noKeyBucket(client)).remaining, 2);
    assert.equal(limits.peek(client).remaining, 3, 'the own bucket is untouched');
    assert.equal((await charge('valid')).remaining, 2);
    for (let i = 0; i < 3; i++) assert.equal((await charge('failed')).allowed, true);
    assert.equal(buckets.peek(failedKeyBucket(client)).remaining, 0);
    const gated = await charge('valid');
    assert.equal(gated.allowed, false, 'a right key is refused while the failed-key bucket is empty');
    assert.equal(limits.peek(client).remaining, 2, 'and the refusal took nothing');
    assert.equal(limits.state, 'in-process');
    await limits.close();
  });
});

describe('SharedLimits', () => {
  it('asks the shared store only to charge: peek answers from this instance view (S2)', async () => {
    const fallback = limiter();
    const store = recordingStore(fallback);
    const limits = new SharedLimits(store, fallback);
    for (let i = 0; i < 100; i++) limits.peek('192.0.2.7');
    assert.deepEqual(store.calls, [], '100 replies that take no token cost no store call');
    await limits.charge('192.0.2.7', 'none');
    await limits.charge('192.0.2.7', 'failed');
    await limits.charge('192.0.2.7', 'valid');
    assert.deepEqual(store.calls, [
      noKeyBucket('192.0.2.7'),
      failedKeyBucket('192.0.2.7'),
      `192.0.2.7 gated by ${failedKeyBucket('192.0.2.7')}`,
    ]);
    assert.equal(limits.limit, 3);
    assert.equal(limits.state, 'shared');
    store.isShared = false;
    assert.equal(limits.state, 'fallback', 'the store is out: this instance limits on its own');
    await limits.close();
    assert.equal(store.closed, true);
  });
});

/**
 * A shared store as the Redis store behaves: it decides on its shared buckets (which other
 * instances may also take from, through `shared`) and mirrors each answer into this instance's
 * view. Answers wait until `release()` when `held` is set, like calls under way.
 */
function mirroringStore(limit: number, clock: () => number) {
  const view = new RateLimiter({ perMinute: limit, clock, sweepIntervalMs: 0 });
  const shared = new RateLimiter({ perMinute: limit, clock, sweepIntervalMs: 0 });
  const waiting: (() => void)[] = [];
  const store = {
    limit,
    isShared: true,
    calls: 0,
    held: false,
    shared,
    view: (key: string) => view.peek(key),
    async consume(key: string, gate?: string): Promise<RateLimitState> {
      store.calls++;
      if (store.held) await new Promise<void>((resolve) => waiting.push(resolve));
      const gated = gate === undefined ? null : shared.peek(gate);
      const decidedBy = gated !== null && !gated.allowed ? gate! : key;
      const state = decidedBy === key ? shared.consume(key) : gated!;
      view.mirror(decidedBy, shared.tokens(decidedBy));
      return state;
    },
    release() {
      store.held = false;
      for (const go of waiting.splice(0)) go();
    },
    close: () => Promise.resolve(),
  };
  return { store, view };
}

describe('SharedLimits: refusals from this instance view (T2)', () => {
  const client = '198.51.100.9';
  const INTERVAL_MS = 60_000 / 3;

  it('T2: 100 keyless attempts cost one store call per token; the refusals after it cost none', async () => {
    const { store, view } = mirroringStore(3, () => 0);
    const limits = new SharedLimits(store, view);
    const answers: RateLimitState[] = [];
    for (let i = 0; i < 100; i++) answers.push(await limits.charge(client, 'none'));
    assert.equal(store.calls, 3, 'store calls for 100 keyless attempts');
    assert.deepEqual(
      answers.map((a) => a.allowed),
      [true, true, true, ...Array<boolean>(97).fill(false)],
    );
    // The local refusal carries the numbers the store would give: no token, one in 20 s.
    assert.deepEqual(answers[99], { allowed: false, limit: 3, remaining: 0, resetSeconds: 60, retryAfterSeconds: 20 });
    assert.deepEqual(answers[99], store.shared.peek(noKeyBucket(client)));
    // The own bucket is another bucket: a keyed attempt still reaches the store, once.
    assert.equal((await limits.charge(client, 'valid')).allowed, true);
    assert.equal(store.calls, 4);
  });

  it('T2: an empty failed-key bucket refuses every key locally with its numbers; the own bucket too', async () => {
    const { store, view } = mirroringStore(3, () => 0);
    const limits = new SharedLimits(store, view);
    for (let i = 0; i < 3; i++) assert.equal((await limits.charge(client, 'failed')).allowed, true);
    assert.equal(store.calls, 3);
    for (const auth of ['valid', 'failed'] as const) {
      const refused = await limits.charge(client, auth);
      assert.deepEqual(refused, store.shared.peek(failedKeyBucket(client)), auth);
    }
    assert.equal(store.calls, 3, 'the gate refused both without a store call');
    assert.equal(limits.peek(client).remaining, 3, 'and took nothing from the own bucket');

    const other = '198.51.100.10';
    for (let i = 0; i < 3; i++) assert.equal((await limits.charge(other, 'valid')).allowed, true);
    const calls = store.calls;
    assert.equal((await limits.charge(other, 'valid')).allowed, false);
    assert.equal(store.calls, calls, 'an own bucket this instance saw empty refuses without a call');
  });

  it('T2: a bucket emptied by other instances costs one call to learn, then none; its refill goes to the store again', async () => {
    let now = 0;
    const { store, view } = mirroringStore(3, () => now);
    const limits = new SharedLimits(store, view);
    for (let i = 0; i < 3; i++) store.shared.consume(noKeyBucket(client)); // another instance
    for (let i = 0; i < 10; i++) assert.equal((await limits.charge(client, 'none')).allowed, false);
    assert.equal(store.calls, 1, 'one call shows this instance the bucket empty');
    now += INTERVAL_MS - 1;
    assert.equal((await limits.charge(client, 'none')).retryAfterSeconds, 1);
    assert.equal(store.calls, 1, 'still empty by its view: no call');
    now += 1;
    assert.equal((await limits.charge(client, 'none')).allowed, true, 'the token that came back');
    assert.equal(store.calls, 2);
    // Another instance took the refilled token first: the store refuses, this instance learns.
    now += INTERVAL_MS;
    store.shared.consume(noKeyBucket(client));
    assert.equal((await limits.charge(client, 'none')).allowed, false);
    assert.equal(store.calls, 3);
  });

  it('T2: concurrent attempts wait for the calls under way rather than each making one', async () => {
    const { store, view } = mirroringStore(3, () => 0);
    const limits = new SharedLimits(store, view);
    store.held = true;
    const pending = Array.from({ length: 50 }, () => limits.charge(client, 'none'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(store.calls, 3, 'as many calls under way as the view shows tokens');
    store.release();
    const answers = await Promise.all(pending);
    assert.equal(answers.filter((a) => a.allowed).length, 3);
    assert.equal(store.calls, 3, 'the other 47 were refused from the view once those settled');
    // A call that the store refuses lets the waiters decide again on the refusal it mirrored.
    for (let i = 0; i < 3; i++) store.shared.consume(client);
    store.held = true;
    const keyed = Array.from({ length: 10 }, () => limits.charge(client, 'valid'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(store.calls, 6);
    store.release();
    assert.deepEqual(
      (await Promise.all(keyed)).map((a) => a.allowed),
      Array<boolean>(10).fill(false),
    );
    assert.equal(store.calls, 6);
  });
});
