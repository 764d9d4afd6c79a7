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
 * Replies that take no token (GETs, errors before the key check) carry the numbers of the
 * client's own bucket as this instance sees it, and never reach a shared store: only a request
 * that takes a token costs a Redis call (docs/security.md, S2).
 * @module
 */
import { FAILED_KEY_MARKER, NO_KEY_MARKER } from './redis-keys.ts';
import type { StoreState } from '../metrics/service-metrics.ts';
import type { AsyncRateLimitStore } from './redis-store.ts';
import type { RateLimiter, RateLimitState } from './token-bucket.ts';

/** What the request showed: no key, a key that failed, or a valid key. */
export type Authentication = 'none' | 'failed' | 'valid';

/** The prefixes cannot begin an IP address or an IPv6 /56 key, so they never collide with a
 * client's own bucket. */
export const noKeyBucket = (client: string): string => `${NO_KEY_MARKER}${client}`;
export const failedKeyBucket = (client: string): string => `${FAILED_KEY_MARKER}${client}`;

export interface ClientLimits {
  /** Capacity and refill per minute. */
  readonly limit: number;
  /** Where decisions are made now: in-process only, shared through Redis, or in-process while
   * Redis is out (GET /ready, the metrics). */
  readonly state: StoreState;
  /** The client's own bucket as this instance sees it, without taking a token and without
   * asking a shared store (GET replies, early errors). */
  peek(client: string): RateLimitState;
  /** Charges the bucket `auth` belongs to (a 429 takes nothing). Never rejects. */
  charge(client: string, auth: Authentication): Promise<RateLimitState>;
  close(): Promise<void>;
}

/** In-process buckets. */
export class LocalLimits implements ClientLimits {
  readonly limit: number;
  private readonly buckets: RateLimiter;

  constructor(buckets: RateLimiter) {
    this.buckets = buckets;
    this.limit = buckets.limit;
  }

  get state(): StoreState {
    return 'in-process';
  }

  peek(client: string): RateLimitState {
    return this.buckets.peek(client);
  }

  charge(client: string, auth: Authentication): Promise<RateLimitState> {
    return Promise.resolve(this.decide(client, auth));
  }

  private decide(client: string, auth: Authentication): RateLimitState {
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

  get state(): StoreState {
    return this.store.isShared ? 'shared' : 'fallback';
  }

  peek(client: string): RateLimitState {
    return this.store.view(client);
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
