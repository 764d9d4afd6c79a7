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
 * client's own bucket as this instance sees it, and never reach a shared store; nor does a POST
 * this instance saw refused: only one that may take a token calls Redis (docs/security.md, The limiter).
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
  /** The same as `charge`, decided at once, where the buckets are in this process: no Promise
   * and no turn of the microtask queue on every request (docs/benchmark.md, "The request path
   * against the lean limit"). Absent where a shared store may have to be asked. */
  chargeNow?(client: string, auth: Authentication): RateLimitState;
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
    return Promise.resolve(this.chargeNow(client, auth));
  }

  chargeNow(client: string, auth: Authentication): RateLimitState {
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

/** The store calls under way for one bucket; `settled` resolves when the next one settles. */
interface InFlight {
  calls: number;
  settled: Promise<void>;
  wake: () => void;
}

function inFlight(calls = 0): InFlight {
  let wake = (): void => undefined;
  const settled = new Promise<void>((resolve) => {
    wake = resolve;
  });
  return { calls, settled, wake };
}

/** Buckets shared through Redis (with the store's in-process fallback). */
export class SharedLimits implements ClientLimits {
  readonly limit: number;
  private readonly store: AsyncRateLimitStore;
  private readonly fallback: RateLimiter;
  /** Store calls under way, by bucket (at most one entry per bucket with a call pending). */
  private readonly inFlight = new Map<string, InFlight>();

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
    if (auth === 'none') return this.decide(noKeyBucket(client));
    if (auth === 'failed') return this.decide(failedKeyBucket(client));
    return this.decide(client, failedKeyBucket(client));
  }

  /**
   * A refusal this instance can decide from its own view costs no store call (docs/security.md,
   * The limiter). The view is the last answer the store gave here for the bucket, refilled since, and
   * other instances can only take more from the shared bucket: when the view is empty the
   * shared bucket is at least as empty, so the 429 is the store's own answer, with this
   * instance's numbers. The gate is checked first, as the script does, so while this instance
   * has seen the failed-key bucket empty every key is refused with its numbers, right or wrong.
   *
   * Calls already under way for the bucket count against its view: while there are as many as
   * the tokens it shows, the request waits for them to settle and decides again, so a burst of
   * concurrent requests reaches the store with no more calls than it has tokens (plus one per
   * refill), rather than one each.
   */
  private async decide(bucket: string, gate?: string): Promise<RateLimitState> {
    for (;;) {
      if (gate !== undefined) {
        const gated = this.store.view(gate);
        if (!gated.allowed) return gated;
      }
      const seen = this.store.view(bucket);
      if (!seen.allowed) return seen;
      const busy = this.inFlight.get(bucket);
      if (busy === undefined || busy.calls < seen.remaining) return this.send(bucket, gate);
      await busy.settled;
    }
  }

  /** One store call, counted in `inFlight` until it settles (it never rejects). */
  private async send(bucket: string, gate: string | undefined): Promise<RateLimitState> {
    let entry = this.inFlight.get(bucket);
    if (entry === undefined) {
      entry = inFlight();
      this.inFlight.set(bucket, entry);
    }
    entry.calls++;
    try {
      return await this.store.consume(bucket, gate);
    } finally {
      entry.calls--;
      // Wakes whoever waits for this bucket; later waiters wait for the next call to settle.
      const wake = entry.wake;
      if (entry.calls === 0) this.inFlight.delete(bucket);
      else Object.assign(entry, inFlight(entry.calls));
      wake();
    }
  }

  async close(): Promise<void> {
    await this.store.close();
    this.fallback.close();
  }
}
