/**
 * The rate limit shared by every instance through Redis (docs/redis-rate-limit.md): one GCRA
 * script call per request (lib/rate-limit/gcra.ts), same decisions and header numbers as the
 * in-process bucket, and never an exception or a lifted limit when Redis fails.
 *
 * Two modes. Shared: each request runs the script, with a per-call deadline. Fallback: the
 * first failure (timeout, error reply, lost connection) switches every request to the
 * in-process `RateLimiter` given as `fallback`, which answers without touching Redis at all, so
 * a dead or stalled Redis costs nothing per request and nothing piles up in the client's queue.
 * Meanwhile one probe at a time (a real script call on the store's own probe key) runs on a
 * backoff timer and whenever the client reconnects; the first probe that succeeds switches back,
 * once what the fallback granted has been charged to Redis (one call per bucket it granted
 * from, see `chargeBack`). Each switch is one warn line.
 *
 * The same store serves a standalone Redis, a Redis Cluster and Redis behind Sentinel: the
 * connection is a `RedisLink` (lib/rate-limit/redis-links.ts), the keys carry a hash tag
 * (lib/rate-limit/redis-keys.ts), and on a cluster the probe proves every master.
 *
 * The `redis` package is an optional peer dependency, imported only by `open()`, so a server
 * without a Redis configured never loads it.
 * @module
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log/logger.ts';
import { stateFromTokens, type RateLimiter, type RateLimitState } from './token-bucket.ts';
import {
  CHARGE_SCRIPT,
  CHARGE_SHA1,
  chargeArgs,
  decodeGcraReply,
  GCRA_SCRIPT,
  GCRA_SHA1,
  gcraArgs,
  tokensAt,
  WINDOW_MICROS,
  type GcraReply,
} from './gcra.ts';
import { redisKey } from './redis-keys.ts';
import { openLink, type RedisConnectionConfig, type RedisLink, type RedisModuleLike } from './redis-links.ts';

export type { RedisClientLike, RedisModuleLike } from './redis-links.ts';

/** The version the tests run against, named in the "not installed" line. */
export const REDIS_PACKAGE_VERSION = '6.3.1';

/** Where the shared buckets live and how they are kept (parsed from RATE_LIMIT_REDIS_* by
 * lib/server/redis-config.ts). */
export type RedisRateLimitConfig = RedisConnectionConfig & {
  /** Prepended to every key, outside its hash tag. */
  readonly prefix: string;
  /** Per-call budget; past it the request is limited in-process. */
  readonly timeoutMs: number;
};

/** What the HTTP layer calls, whichever store is behind it. */
export interface AsyncRateLimitStore {
  readonly limit: number;
  /** Whether requests are currently limited through the shared store (false: in-process). */
  readonly isShared: boolean;
  /** Takes one token if there is one; with a `gate`, only if the gate bucket also holds one
   * (refused with the gate's numbers otherwise; the gate is never charged). Never rejects. */
  consume(key: string, gate?: string): Promise<RateLimitState>;
  /** This instance's view of a bucket, without taking a token and without asking Redis: the
   * last shared state it saw for the key, refilled since (a full bucket if it saw none). */
  view(key: string): RateLimitState;
  close(): Promise<void>;
}

/** The `redis` package is not installed: a start-up error, one line, naming the variable that
 * asked for Redis. */
export class RedisPackageMissingError extends Error {
  constructor(setting = 'RATE_LIMIT_REDIS_URL') {
    super(
      `${setting} is set but the redis package is not installed: run npm install --save-exact redis@${REDIS_PACKAGE_VERSION} next to the server`,
    );
    this.name = 'RedisPackageMissingError';
  }
}

/**
 * Imports `redis`. Node resolves the bare name from the importing file's directory upwards, so
 * for a one-file deployment `npm install redis@<version>` in the file's directory provides it.
 */
export async function loadRedis(
  importer: () => Promise<unknown> = () => import('redis'),
  setting?: string,
): Promise<RedisModuleLike> {
  try {
    return (await importer()) as RedisModuleLike;
  } catch (error) {
    if ((error as NodeJS.ErrnoException | null)?.code === 'ERR_MODULE_NOT_FOUND')
      throw new RedisPackageMissingError(setting);
    throw error;
  }
}

export interface RedisStoreOptions {
  readonly config: RedisRateLimitConfig;
  /** Capacity and refill per minute; must equal the fallback's. */
  readonly limit: number;
  /** Answers whenever Redis cannot. Owned by the caller (not closed by close()). */
  readonly fallback: RateLimiter;
  readonly logger: Pick<Logger, 'warn'>;
  /** How long open() waits for the first connection before starting on the fallback. */
  readonly connectWaitMs?: number;
  /** Reconnection and probe backoff: first delay and cap, milliseconds. */
  readonly backoffMinMs?: number;
  readonly backoffMaxMs?: number;
  /** Cluster and Sentinel: how long one client may take to connect before a fresh one is made. */
  readonly connectAttemptMs?: number;
  /** Tests: stands in for `import('redis')`. */
  readonly importRedis?: () => Promise<unknown>;
  /** Observers (the metrics): each switch to shared (true) or fallback (false), as logged,
   * and each script call's duration and whether it succeeded. */
  readonly onStateChange?: (shared: boolean) => void;
  readonly onCall?: (seconds: number, ok: boolean) => void;
}

/** A switch back to fallback sooner than this after a recovery keeps the grown probe delay,
 * so a Redis that passes the probe but fails some requests costs two warn lines per
 * `backoffMaxMs` at most, not two per request. */
const STABLE_MS = 30_000;

/** Charge-back calls sent at once, and rounds (grants made during one are charged by the next)
 * before the store switches back and charges the rest while shared. */
const CHARGE_BATCH = 64;
const CHARGE_ROUNDS = 8;

class CallTimeout extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'CallTimeout';
  }
}

/** A short, credential-free reason for the log line. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  // An AggregateError (both addresses of "localhost" refused) has an empty message and a code.
  const code = (error as NodeJS.ErrnoException).code;
  const text = error.message.length > 120 ? `${error.message.slice(0, 120)}...` : error.message;
  if (text === '') return code ?? error.name;
  return code === undefined || text.includes(code) ? text : `${code}: ${text}`;
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

export class RedisRateLimitStore implements AsyncRateLimitStore {
  readonly limit: number;
  private readonly link: RedisLink;
  private readonly fallback: RateLimiter;
  private readonly logger: Pick<Logger, 'warn'>;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly target: string;
  /** ARGV[1..3] of the script for this limit, computed once. */
  private readonly args: [string, string, string];
  private readonly backoffMinMs: number;
  private readonly backoffMaxMs: number;
  private readonly onStateChange: ((shared: boolean) => void) | undefined;
  private readonly onCall: ((seconds: number, ok: boolean) => void) | undefined;
  private shared = false;
  private closed = false;
  private probing = false;
  private probeTimer: NodeJS.Timeout | null = null;
  private probeDelay: number;
  private sharedSince = 0;
  /** Resolves start()'s wait at the first switch to shared. */
  private onUp: (() => void) | null = null;
  /** Whether the current fallback period has been announced (the first, at start, is too). */
  private announcedDown = false;
  /**
   * What the fallback granted and Redis has not been told, by bucket: the grants since this
   * instance last saw the bucket full (earlier ones have refilled here), at most the limit each
   * (more would not change the charge). As many buckets as the fallback tracks; past that the
   * oldest entry goes uncharged, as the fallback's own least recently used bucket does.
   */
  private readonly owed = new Map<string, number>();

  /** Connects (waiting up to connectWaitMs) and returns a store that never throws. Rejects only
   * with RedisPackageMissingError (or whatever else makes `import('redis')` fail). */
  static async open(options: RedisStoreOptions): Promise<RedisRateLimitStore> {
    const redis = await loadRedis(options.importRedis, options.config.setting);
    const link = openLink(redis, options.config, {
      backoffMinMs: options.backoffMinMs ?? 50,
      backoffMaxMs: options.backoffMaxMs ?? 2_000,
      ...(options.connectAttemptMs === undefined ? {} : { connectAttemptMs: options.connectAttemptMs }),
    });
    const store = new RedisRateLimitStore(link, options);
    await store.start(options.connectWaitMs ?? 2_000);
    return store;
  }

  constructor(link: RedisLink, options: RedisStoreOptions) {
    if (options.fallback.limit !== options.limit) throw new RangeError('the fallback limiter must have the same limit');
    this.limit = options.limit;
    this.link = link;
    this.fallback = options.fallback;
    this.logger = options.logger;
    this.prefix = options.config.prefix;
    this.timeoutMs = options.config.timeoutMs;
    this.target = options.config.target;
    this.args = gcraArgs(options.limit);
    this.backoffMinMs = options.backoffMinMs ?? 50;
    this.backoffMaxMs = options.backoffMaxMs ?? 2_000;
    this.probeDelay = this.backoffMinMs;
    this.onStateChange = options.onStateChange;
    this.onCall = options.onCall;
    // Without an 'error' listener an EventEmitter error would crash the process.
    link.on('error', (error) => {
      this.down(reasonOf(error));
    });
    link.on('ready', () => {
      this.probe();
    });
  }

  /** Whether requests are currently limited through Redis (false: in-process fallback). */
  get isShared(): boolean {
    return this.shared;
  }

  private async start(waitMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    const upped = new Promise<void>((resolve) => {
      this.onUp = resolve;
    });
    // The link keeps (re)connecting by itself, and each 'ready' probes; the first successful
    // probe switches to shared and ends the wait.
    this.link.connect();
    await Promise.race([upped, waited]);
    clearTimeout(timer);
    this.onUp = null;
    if (!this.shared) {
      const last = this.link.lastError;
      this.down(`not reachable within ${waitMs} ms of start-up${last === undefined ? '' : ` (${reasonOf(last)})`}`);
    }
  }

  consume(key: string, gate?: string): Promise<RateLimitState> {
    return this.shared ? this.viaRedis(key, gate) : Promise.resolve(this.locally(key, gate));
  }

  view(key: string): RateLimitState {
    return this.fallback.peek(key);
  }

  /**
   * The decision from Redis, mirrored into the in-process buckets: the deciding bucket there is
   * set to what Redis answered, so `view` and a later fallback start from the shared state (a
   * client that had used up its shared limit is still out of tokens when Redis goes away).
   */
  private async viaRedis(key: string, gate?: string): Promise<RateLimitState> {
    const sent = performance.now();
    try {
      const reply = await this.evaluate(key, true, gate);
      const tokens = tokensAt(reply, this.limit);
      this.fallback.mirror(reply.byGate && gate !== undefined ? gate : key, tokens, performance.now() - sent);
      return stateFromTokens(reply.granted, tokens, this.limit);
    } catch (error) {
      this.down(reasonOf(error));
      return this.locally(key, gate);
    }
  }

  /** The same decision from the in-process fallback; a grant is owed to Redis. */
  private locally(key: string, gate?: string): RateLimitState {
    if (gate !== undefined) {
      const open = this.fallback.peek(gate);
      if (!open.allowed) return open;
    }
    const fresh = this.fallback.tokens(key) >= this.limit;
    const state = this.fallback.consume(key);
    if (state.allowed && !this.closed) this.owe(key, fresh ? 1 : (this.owed.get(key) ?? 0) + 1);
    return state;
  }

  private owe(key: string, grants: number): void {
    if (!this.owed.delete(key) && this.owed.size >= this.fallback.maxClients) {
      const oldest = this.owed.keys().next().value as string;
      this.owed.delete(oldest);
    }
    this.owed.set(key, Math.min(grants, this.limit));
  }

  /** How many buckets hold fallback grants not yet charged to Redis (tests, docs). */
  get owedBuckets(): number {
    return this.owed.size;
  }

  /**
   * Charges Redis with what the fallback granted (CHARGE_SCRIPT), one call per bucket,
   * CHARGE_BATCH at a time, then mirrors each answer here. Grants made meanwhile (the store is
   * still on its fallback) are charged by the next round. Rejects after a batch with a failed
   * call, with every bucket not charged owed again.
   */
  private async chargeBack(rounds: number): Promise<void> {
    for (let round = 0; round < rounds && this.owed.size > 0; round++) {
      const owed = [...this.owed];
      this.owed.clear();
      for (let next = 0; next < owed.length; next += CHARGE_BATCH) {
        const batch = owed.slice(next, next + CHARGE_BATCH);
        const settled = await Promise.allSettled(batch.map(([key, grants]) => this.charge(key, grants)));
        const failed = settled.find((result) => result.status === 'rejected');
        if (failed === undefined) continue;
        // A call that failed may still have run in Redis: charging it again errs on the strict
        // side. The ones that succeeded are not owed again.
        const again = [...batch.filter((_, i) => settled[i].status === 'rejected'), ...owed.slice(next + CHARGE_BATCH)];
        for (const [key, grants] of again) this.owe(key, (this.owed.get(key) ?? 0) + grants);
        throw failed.reason;
      }
    }
  }

  private async charge(bucket: string, grants: number): Promise<void> {
    const tokens = this.fallback.tokens(bucket);
    // Refilled here since: this instance holds nothing against the client any more.
    if (tokens >= this.limit) return;
    const ahead = ((this.limit - tokens) * WINDOW_MICROS) / this.limit;
    const sent = performance.now();
    const reply = await this.call(
      CHARGE_SCRIPT,
      CHARGE_SHA1,
      [redisKey(this.prefix, bucket)],
      chargeArgs(this.limit, grants, ahead),
    );
    this.fallback.mirror(bucket, tokensAt(reply, this.limit), performance.now() - sent);
  }

  /**
   * One script call, no fallback: rejects on timeout, error or a malformed reply. The reply
   * carries the Redis time the script used (the equivalence test feeds it to an in-process
   * bucket). With `gate`, the call is refused with the gate's numbers while the gate bucket is
   * empty (see GCRA_SCRIPT); the gate and the bucket share one hash slot (redis-keys.ts).
   */
  evaluate(bucket: string, take: boolean, gate?: string): Promise<GcraReply> {
    const key = redisKey(this.prefix, bucket);
    return this.run(gate === undefined ? [key] : [redisKey(this.prefix, gate), key], take);
  }

  /**
   * The script on `keys`, sent to the node that holds them. EVALSHA first; on NOSCRIPT (that
   * node never saw the script, or lost it: a restart, SCRIPT FLUSH, a replica promoted by a
   * failover), EVAL sends the text to the same node, which also caches it there. Both within
   * the one deadline.
   */
  private run(keys: readonly string[], take: boolean): Promise<GcraReply> {
    return this.call(GCRA_SCRIPT, GCRA_SHA1, keys, [...this.args, take ? '1' : '0']);
  }

  private call(script: string, sha1: string, keys: readonly string[], argv: readonly string[]): Promise<GcraReply> {
    const keyArgs = [String(keys.length), ...keys, ...argv];
    const route = keys[0];
    const started = performance.now();
    const reply = this.withDeadline(
      this.link.send(route, ['EVALSHA', sha1, ...keyArgs]).catch((error: unknown) => {
        if (isNoScript(error)) return this.link.send(route, ['EVAL', script, ...keyArgs]);
        throw error;
      }),
    ).then(decodeGcraReply);
    const onCall = this.onCall;
    if (onCall === undefined) return reply;
    const took = (ok: boolean): void => {
      onCall((performance.now() - started) / 1000, ok);
    };
    return reply.then(
      (value) => {
        took(true);
        return value;
      },
      (error: unknown) => {
        took(false);
        throw error;
      },
    );
  }

  /** Settles with `call`, or rejects with CallTimeout after timeoutMs. node-redis's own command
   * timeout stops counting once a command is written to the socket, so it cannot see a Redis
   * that accepts bytes and never answers (a stalled or paused process); this timer can.
   * The rejection waits for the check phase (setImmediate): when the event loop itself ran
   * late, a reply already sitting in the socket is read in the poll phase before it, and wins. */
  private withDeadline<T>(call: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            reject(new CallTimeout(this.timeoutMs));
          }),
        this.timeoutMs,
      );
      call.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          // A rejection that is not an Error carries no reason worth logging.
          reject(error instanceof Error ? error : new Error('unknown error'));
        },
      );
    });
  }

  private down(reason: string): void {
    if (this.closed) return;
    if (this.shared) {
      this.shared = false;
      if (performance.now() - this.sharedSince >= STABLE_MS) this.probeDelay = this.backoffMinMs;
    }
    if (!this.announcedDown) {
      this.announcedDown = true;
      this.logger.warn('rate limit: Redis unavailable, each instance now limits on its own', {
        redis: this.target,
        reason,
      });
      this.onStateChange?.(false);
    }
    this.scheduleProbe();
  }

  private up(): void {
    if (this.closed || this.shared) return;
    this.shared = true;
    this.sharedSince = performance.now();
    this.onUp?.();
    if (this.probeTimer !== null) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    if (this.announcedDown) {
      this.announcedDown = false;
      this.logger.warn('rate limit: Redis answering again, limits are shared again', { redis: this.target });
    }
    this.onStateChange?.(true);
  }

  private scheduleProbe(): void {
    if (this.probeTimer !== null || this.closed) return;
    const delay = this.probeDelay;
    this.probeDelay = Math.min(this.probeDelay * 2, this.backoffMaxMs);
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      this.probe();
    }, delay);
    this.probeTimer.unref();
  }

  /** While in fallback: one probe at a time; success switches back to shared. */
  private probe(): void {
    if (this.shared || this.closed || this.probing) return;
    if (!this.link.isReady) {
      // Reconnecting: its 'ready' event probes; the timer is only a safety net.
      this.scheduleProbe();
      return;
    }
    void this.probeNow();
  }

  private async probeNow(): Promise<void> {
    if (this.shared || this.closed || this.probing) return;
    this.probing = true;
    try {
      // Every node that holds buckets (each master of a cluster) at once, each with its deadline.
      await Promise.all(this.link.probeKeys(this.prefix).map((key) => this.run([key], true)));
      // Before the switch, so a client's next shared decision already counts what it was given.
      await this.chargeBack(CHARGE_ROUNDS);
      this.probing = false;
      this.up();
    } catch (error) {
      this.probing = false;
      this.down(reasonOf(error));
      return;
    }
    // Whatever a busy fallback granted during the last round (rarely anything). Bounded too:
    // what is still owed after it waits for the next switch back.
    if (this.owed.size > 0)
      this.chargeBack(CHARGE_ROUNDS).catch((error: unknown) => {
        this.down(reasonOf(error));
      });
  }

  /** Stops probing and drops the connection at once (a stalled Redis must not hold up a
   * shutdown). Requests after close() are limited in-process. */
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.shared = false;
      this.owed.clear();
      if (this.probeTimer !== null) clearTimeout(this.probeTimer);
      this.probeTimer = null;
      // Rejects whatever is in flight (each such request then answers in-process).
      this.link.destroy();
    }
    return Promise.resolve();
  }
}
