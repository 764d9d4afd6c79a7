/**
 * Token bucket per client (docs/decisions.md, Rate limit): capacity C, refilled continuously at
 * C per 60 s. One number per tracked client (the time it is full again); a bucket that has
 * refilled to full carries no information and is dropped (lazily when touched, and by an
 * unref'd sweep), so memory follows the clients active in the last minute, and a hard cap
 * bounds even that.
 *
 * The clock is monotonic (performance.now) so wall-clock jumps neither refill nor freeze
 * buckets; it is injectable so tests can step time instead of sleeping.
 * @module
 */
import { performance } from 'node:perf_hooks';

export type Clock = () => number; // milliseconds, monotonic

export interface RateLimitOptions {
  /** Bucket capacity and refill per minute. */
  readonly perMinute: number;
  /** Tracked-client cap; at the cap the least recently used bucket is evicted. */
  readonly maxClients?: number;
  readonly clock?: Clock;
  /** Sweep period in ms (0 disables the timer; tests call sweep() themselves). */
  readonly sweepIntervalMs?: number;
  /** Told after each timed sweep how many buckets went and how many are still tracked. */
  readonly onSweep?: (dropped: number, tracked: number) => void;
}

/** The numbers every reply carries; `allowed` is false only for a 429. */
export interface RateLimitState {
  allowed: boolean;
  limit: number;
  /** Whole tokens left. */
  remaining: number;
  /** Seconds, rounded up, until the bucket is full again (0 when full). */
  resetSeconds: number;
  /** Seconds, rounded up, until one token is available (0 when one is). */
  retryAfterSeconds: number;
}

export const DEFAULT_MAX_CLIENTS = 100_000;
/** The sweep's period by default, and the longest one worth having: a bucket is full again at
 * most a minute after its client's last request (RATE_LIMIT_SWEEP_SECONDS sets it). */
export const DEFAULT_SWEEP_SECONDS = 60;

export class RateLimiter {
  readonly limit: number;
  readonly maxClients: number;
  /**
   * Each bucket as one number: the time (on `clock`) at which it will be full again, the
   * "theoretical arrival time" of GCRA, the form the shared Redis store keeps too. One number
   * instead of a (tokens, timestamp) pair is a third less heap per tracked client
   * (docs/benchmark.md, The rate limiter's buckets as one number). In least-recently-used order
   * (Map keeps insertion order; touching re-inserts).
   */
  private readonly buckets = new Map<string, number>();
  private readonly clock: Clock;
  /** Tokens per millisecond. */
  private readonly rate: number;
  private readonly timer: NodeJS.Timeout | null;
  /** Buckets dropped at the cap while not yet full: a counter for the logs/tests. */
  evictions = 0;

  constructor(options: RateLimitOptions) {
    this.limit = options.perMinute;
    this.maxClients = options.maxClients ?? DEFAULT_MAX_CLIENTS;
    this.clock = options.clock ?? (() => performance.now());
    this.rate = options.perMinute / 60_000;
    const every = options.sweepIntervalMs ?? DEFAULT_SWEEP_SECONDS * 1000;
    const onSweep = options.onSweep;
    this.timer =
      every > 0
        ? setInterval(() => {
            const dropped = this.sweep();
            onSweep?.(dropped, this.buckets.size);
          }, every)
        : null;
    this.timer?.unref();
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Tokens of a bucket now, or null when it has refilled to full (and so can be forgotten). */
  private level(fullAt: number, now: number): number | null {
    const tokens = snapTokens(this.limit - (fullAt - now) * this.rate);
    return tokens >= this.limit ? null : tokens;
  }

  private state(allowed: boolean, tokens: number, out: RateLimitState): RateLimitState {
    return stateFromTokens(allowed, tokens, this.limit, out);
  }

  /** Takes one token if there is one. `out` lets the hot path reuse one object. */
  consume(key: string, out: RateLimitState = blankState()): RateLimitState {
    const now = this.clock();
    const fullAt = this.buckets.get(key);
    let tokens = fullAt === undefined ? null : this.level(fullAt, now);
    if (tokens === null) tokens = this.limit;
    if (tokens < 1) {
      // A refused attempt costs nothing, so the bucket is left exactly as it was.
      return this.state(false, tokens, out);
    }
    tokens -= 1;
    if (fullAt !== undefined)
      this.buckets.delete(key); // re-inserted: most recently used goes last
    else if (this.buckets.size >= this.maxClients) this.makeRoom(now);
    this.buckets.set(key, now + (this.limit - tokens) / this.rate);
    return this.state(true, tokens, out);
  }

  /** The current numbers without taking a token (GETs and errors before the limiter). */
  peek(key: string, out: RateLimitState = blankState()): RateLimitState {
    const fullAt = this.buckets.get(key);
    const tokens = fullAt === undefined ? null : this.level(fullAt, this.clock());
    if (tokens === null) {
      if (fullAt !== undefined) this.buckets.delete(key);
      return this.state(true, this.limit, out);
    }
    return this.state(tokens >= 1, tokens, out);
  }

  /** The exact token count of a bucket now (the limit when it is full or untracked). */
  tokens(key: string): number {
    const fullAt = this.buckets.get(key);
    return (fullAt === undefined ? null : this.level(fullAt, this.clock())) ?? this.limit;
  }

  /**
   * Sets a bucket to `tokens` (0 to the limit) without a decision: how the shared store keeps
   * this instance's view of a client up to date after each answer from Redis, so replies that
   * take no token, and the fallback while Redis is out, start from the last shared state this
   * instance saw (lib/rate-limit/redis-store.ts). `ageMs`: the count is that old (the time the
   * answer took to come back), so the bucket refills from when Redis may have decided, never
   * later, and an empty view never outlasts the shared bucket's own refill.
   */
  mirror(key: string, tokens: number, ageMs = 0): void {
    const now = this.clock();
    const known = this.buckets.delete(key);
    const fullAt = now - Math.max(0, ageMs) + (this.limit - Math.max(0, tokens)) / this.rate;
    if (tokens >= this.limit || fullAt <= now) return;
    if (!known && this.buckets.size >= this.maxClients) this.makeRoom(now);
    this.buckets.set(key, fullAt);
  }

  /** Drops every bucket that has refilled to full. Returns how many were dropped. */
  sweep(): number {
    const now = this.clock();
    let dropped = 0;
    for (const [key, fullAt] of this.buckets) {
      if (this.level(fullAt, now) === null) {
        this.buckets.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  /**
   * At the cap the least recently used bucket goes. If it had refilled to full that loses nothing;
   * otherwise that client gets a fresh bucket next time, so a flood of distinct addresses can reset
   * the oldest clients' limits early. The cap trades exactness for bounded memory rather than
   * refusing new clients outright (docs/benchmark.md, The rate limiter's buckets as one number).
   */
  private makeRoom(now: number): void {
    const [key, fullAt] = this.buckets.entries().next().value as [string, number];
    this.buckets.delete(key);
    if (this.level(fullAt, now) !== null) this.evictions++;
  }

  close(): void {
    if (this.timer !== null) clearInterval(this.timer);
  }
}

/**
 * Float noise in a token count (`now - at` times the rate) can leave 0.99999999999999 where
 * exactly one token is due (fast-check found it at the Retry-After instant): within 1e-9 of a
 * whole token counts as that whole token. `+ 0` makes a hair below zero 0, not Math.round's -0
 * (a remaining count of -0; fast-check found that too).
 */
export function snapTokens(tokens: number): number {
  const whole = Math.round(tokens) + 0;
  return Math.abs(tokens - whole) < 1e-9 ? whole : tokens;
}

/**
 * The numbers of a reply from a (snapped) token count. The one derivation shared by this
 * bucket and the Redis store (lib/rate-limit/redis-store.ts), so their headers cannot drift
 * apart: the refill rate is `limit` per 60 s in both.
 */
export function stateFromTokens(
  allowed: boolean,
  tokens: number,
  limit: number,
  out: RateLimitState = blankState(),
): RateLimitState {
  const rate = limit / 60_000; // tokens per ms, the same expression as the bucket's own
  out.allowed = allowed;
  out.limit = limit;
  // max with 0: float noise snapped to a whole token can be -0, which would read as a negative.
  out.remaining = Math.max(0, Math.floor(tokens));
  const missing = limit - tokens;
  // Round up, but never report a fraction of a microsecond of float noise as a whole second.
  out.resetSeconds = missing <= 1e-9 ? 0 : Math.ceil(missing / rate / 1000 - 1e-9);
  out.retryAfterSeconds = tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate / 1000 - 1e-9));
  return out;
}

export function blankState(): RateLimitState {
  return { allowed: true, limit: 0, remaining: 0, resetSeconds: 0, retryAfterSeconds: 0 };
}
