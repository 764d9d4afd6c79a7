/**
 * The three buckets of a client over both stores (lib/rate-limit/client-limits.ts): which
 * bucket each outcome charges, the failed-key gate, and that a reply which takes no token
 * (`peek`) never reaches the shared store (docs/security.md, S2).
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
