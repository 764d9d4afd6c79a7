/**
 * The three buckets of a client (docs/decisions.md, Rate limit) over either store: the client's
 * own bucket for requests with a valid key, a no-key bucket, and a failed-key bucket that also
 * gates every request presenting a key. One decision per request, one store call:
 *
 *   no key (or none configured)   take from `nokey:<client>`
 *   a key that fails              take from `badkey:<client>`
 *   a valid key                   take from `<client>`, unless `badkey:<client>` is empty
 *
 * While the failed-key bucket is empty every request with a key is refused with its numbers,
 * right key or wrong, so a 429 never tells a guesser which key was right. The key itself is
 * checked in constant time before the decision either way; only the answer depends on it.
 *
 * The in-process store answers synchronously (no promise on the hot path); the shared one
 * returns a promise. Callers handle both (see lib/http/generate-route.ts).
 * @module
 */
import type { AsyncRateLimitStore } from './redis-store.ts';
import type { RateLimiter, RateLimitState } from './token-bucket.ts';

/** What the request showed: no key, a key that failed, or a valid key. */
export type Authentication = 'none' | 'failed' | 'valid';

/** The prefixes cannot begin an IP address or an IPv6 /56 key, so they never collide with a
 * client's own bucket. Built by `join`, which writes one flat string: `+` or a template
 * literal makes V8 keep a result of 13 characters or more as a pair of pointers that also holds
 * the address string alive (measured with 100,000 no-key clients, key and bucket together: 94
 * bytes per client against 118; a client's own bucket, keyed by the address itself, 85). A flat
 * name is also quicker to look up, since hashing the pair flattens it first: 104 ns against 167
 * for the failed-key check every keyed request makes. */
export const noKeyBucket = (client: string): string => ['nokey:', client].join('');
export const failedKeyBucket = (client: string): string => ['badkey:', client].join('');

export type MaybePromise<T> = T | Promise<T>;

export interface ClientLimits {
  /** Capacity and refill per minute. */
  readonly limit: number;
  /** The client's own bucket, without taking a token (GET replies, early errors). */
  peek(client: string): MaybePromise<RateLimitState>;
  /** Charges the bucket `auth` belongs to (a 429 takes nothing). */
  charge(client: string, auth: Authentication): MaybePromise<RateLimitState>;
  close(): Promise<void>;
}

/** In-process buckets: every answer is synchronous. */
export class LocalLimits implements ClientLimits {
  readonly limit: number;
  private readonly buckets: RateLimiter;

  constructor(buckets: RateLimiter) {
    this.buckets = buckets;
    this.limit = buckets.limit;
  }

  peek(client: string): RateLimitState {
    return this.buckets.peek(client);
  }

  charge(client: string, auth: Authentication): RateLimitState {
    if (auth === 'none') return this.buckets.consume(noKeyBucket(client));
    if (auth === 'failed') return this.buckets.consume(failedKeyBucket(client));
    const gate = this.buckets.peek(failedKeyBucket(client));
    return gate.allowed ? this.buckets.consume(client, gate) : gate;
  }

  close(): Promise<void> {
    this.buckets.close();
    return Promise.resolve();
  }
}

/** Buckets shared through Redis (with the store's in-process fallback). */
export class SharedLimits implements ClientLimits {
  readonly limit: number;
  private readonly store: AsyncRateLimitStore;
  private readonly fallback: RateLimiter;

  constructor(store: AsyncRateLimitStore, fallback: RateLimiter) {
    this.store = store;
    this.fallback = fallback;
    this.limit = store.limit;
  }

  peek(client: string): Promise<RateLimitState> {
    return this.store.peek(client);
  }

  charge(client: string, auth: Authentication): Promise<RateLimitState> {
    if (auth === 'none') return this.store.consume(noKeyBucket(client));
    if (auth === 'failed') return this.store.consume(failedKeyBucket(client));
    return this.store.consume(client, failedKeyBucket(client));
  }

  async close(): Promise<void> {
    await this.store.close();
    this.fallback.close();
  }
}
