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
 * backoff timer and whenever the client reconnects; the first probe that succeeds switches back.
 * Each switch is one warn line.
 *
 * The `redis` package is an optional peer dependency, imported only by `open()`, so a server
 * without RATE_LIMIT_REDIS_URL never loads it.
 * @module
 */
import { randomInt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log/logger.ts';
import { stateFromTokens, type RateLimiter, type RateLimitState } from './token-bucket.ts';
import { decodeGcraReply, GCRA_SCRIPT, GCRA_SHA1, gcraArgs, tokensAt, type GcraReply } from './gcra.ts';

/** The version the tests run against, named in the "not installed" line. */
export const REDIS_PACKAGE_VERSION = '6.3.1';

/** Where the shared buckets live (parsed from RATE_LIMIT_REDIS_* by lib/server/redis-config.ts). */
export interface RedisRateLimitConfig {
  readonly host: string;
  readonly port: number;
  readonly tls: boolean;
  /** ACL user, or undefined for the default user. */
  readonly username: string | undefined;
  /** From the URL or from RATE_LIMIT_REDIS_PASSWORD_FILE; never logged. */
  readonly password: string | undefined;
  readonly database: number;
  /** Scheme, host, port and database, for log lines: never credentials. */
  readonly target: string;
  /** Prepended to every client key. */
  readonly prefix: string;
  /** Per-call budget; past it the request is limited in-process. */
  readonly timeoutMs: number;
}

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

/** The part of a node-redis client the store uses. */
export interface RedisClientLike {
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  sendCommand(args: string[]): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  destroy(): void;
}

/** The part of the `redis` module the store uses. */
export interface RedisModuleLike {
  createClient(options: Record<string, unknown>): RedisClientLike;
}

/** The `redis` package is not installed: a start-up error, one line. */
export class RedisPackageMissingError extends Error {
  constructor() {
    super(
      `RATE_LIMIT_REDIS_URL is set but the redis package is not installed: run npm install redis@${REDIS_PACKAGE_VERSION} next to the server`,
    );
    this.name = 'RedisPackageMissingError';
  }
}

/**
 * Imports `redis`. Node resolves the bare name from the importing file's directory upwards, so
 * for a one-file deployment `npm install redis@<version>` in the file's directory provides it.
 */
export async function loadRedis(importer: () => Promise<unknown> = () => import('redis')): Promise<RedisModuleLike> {
  try {
    return (await importer()) as RedisModuleLike;
  } catch (error) {
    if ((error as NodeJS.ErrnoException | null)?.code === 'ERR_MODULE_NOT_FOUND') throw new RedisPackageMissingError();
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
  /** Tests: stands in for `import('redis')`. */
  readonly importRedis?: () => Promise<unknown>;
  /** Observers (the metrics): each switch to shared (true) or fallback (false), as logged,
   * and each script call's duration and whether it succeeded. */
  readonly onStateChange?: (shared: boolean) => void;
  readonly onCall?: (seconds: number, ok: boolean) => void;
}

/**
 * The probe takes a token from its own bucket, so it proves everything a request needs: the
 * connection, the credentials, the script (reloaded on NOSCRIPT), TIME, and that Redis accepts
 * writes (an out-of-memory or read-only Redis fails it). The space keeps it apart from every
 * client key, which is an address or a prefixed address.
 */
export const PROBE_KEY = ' probe';

/** A switch back to fallback sooner than this after a recovery keeps the grown probe delay,
 * so a Redis that passes the probe but fails some requests costs two warn lines per
 * `backoffMaxMs` at most, not two per request. */
const STABLE_MS = 30_000;

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
  private readonly client: RedisClientLike;
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

  /** Connects (waiting up to connectWaitMs) and returns a store that never throws. Rejects only
   * with RedisPackageMissingError (or whatever else makes `import('redis')` fail). */
  static async open(options: RedisStoreOptions): Promise<RedisRateLimitStore> {
    const redis = await loadRedis(options.importRedis);
    const min = options.backoffMinMs ?? 50;
    const max = options.backoffMaxMs ?? 2_000;
    const { config } = options;
    const client = redis.createClient({
      socket: {
        host: config.host,
        port: config.port,
        tls: config.tls,
        ...(config.tls ? { servername: config.host } : {}),
        connectTimeout: 1_000,
        // Doubling from 50 ms to 2 s, plus up to 10 % jitter so instances that lost the same
        // Redis do not reconnect in lock step. Never gives up: fallback covers the gap.
        reconnectStrategy: (retries: number) => {
          const delay = Math.min(min * 2 ** Math.min(retries, 20), max);
          return delay + randomInt(0, Math.max(1, Math.floor(delay / 10)));
        },
      },
      ...(config.username === undefined ? {} : { username: config.username }),
      ...(config.password === undefined ? {} : { password: config.password }),
      database: config.database,
      // Commands fail at once while disconnected instead of queueing until a reconnect.
      disableOfflineQueue: true,
    });
    const store = new RedisRateLimitStore(client, options);
    await store.start(options.connectWaitMs ?? 2_000);
    return store;
  }

  constructor(client: RedisClientLike, options: RedisStoreOptions) {
    if (options.fallback.limit !== options.limit) throw new RangeError('the fallback limiter must have the same limit');
    this.limit = options.limit;
    this.client = client;
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
    client.on('error', (error) => {
      this.down(reasonOf(error));
    });
    client.on('ready', () => {
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
    // connect() keeps retrying by itself until it succeeds (it rejects only once closed), and
    // each 'ready' probes; the first successful probe switches to shared and ends the wait.
    this.client.connect().catch(() => undefined);
    await Promise.race([upped, waited]);
    clearTimeout(timer);
    this.onUp = null;
    if (!this.shared) this.down(`not reachable within ${waitMs} ms of start-up`);
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
    try {
      const reply = await this.evaluate(key, true, gate);
      const tokens = tokensAt(reply, this.limit);
      this.fallback.mirror(reply.byGate && gate !== undefined ? gate : key, tokens);
      return stateFromTokens(reply.granted, tokens, this.limit);
    } catch (error) {
      this.down(reasonOf(error));
      return this.locally(key, gate);
    }
  }

  /** The same decision from the in-process fallback. */
  private locally(key: string, gate?: string): RateLimitState {
    if (gate !== undefined) {
      const open = this.fallback.peek(gate);
      if (!open.allowed) return open;
    }
    return this.fallback.consume(key);
  }

  /**
   * One script call, no fallback: rejects on timeout, error or a malformed reply. The reply
   * carries the Redis time the script used (the equivalence test feeds it to an in-process
   * bucket). EVALSHA first; on NOSCRIPT (Redis restarted, SCRIPT FLUSH, a failover) EVAL sends
   * the text, which also caches it again. Both within the one deadline. With `gate`, the
   * call is refused with the gate's numbers while the gate bucket is empty (see GCRA_SCRIPT).
   */
  evaluate(key: string, take: boolean, gate?: string): Promise<GcraReply> {
    const [limit, q, r] = this.args;
    const keys = gate === undefined ? ['1', this.prefix + key] : ['2', this.prefix + gate, this.prefix + key];
    const keyArgs = [...keys, limit, q, r, take ? '1' : '0'];
    const started = performance.now();
    const reply = this.withDeadline(
      this.client.sendCommand(['EVALSHA', GCRA_SHA1, ...keyArgs]).catch((error: unknown) => {
        if (isNoScript(error)) return this.client.sendCommand(['EVAL', GCRA_SCRIPT, ...keyArgs]);
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
    if (!this.client.isReady) {
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
      await this.evaluate(PROBE_KEY, true);
      this.probing = false;
      this.up();
    } catch (error) {
      this.probing = false;
      this.down(reasonOf(error));
    }
  }

  /** Stops probing and drops the connection at once (a stalled Redis must not hold up a
   * shutdown). Requests after close() are limited in-process. */
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.shared = false;
      if (this.probeTimer !== null) clearTimeout(this.probeTimer);
      this.probeTimer = null;
      // Rejects whatever is in flight (each such request then answers in-process); idempotent.
      this.client.destroy();
    }
    return Promise.resolve();
  }
}
