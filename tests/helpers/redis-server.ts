/**
 * A private redis-server for a test file: loopback only, a port of its own, no persistence
 * (`--save "" --appendonly no`, working directory in a fresh temp dir), ready once it answers
 * PING; stopped by its PID. Redis cannot listen on port 0, so the port is a random one below
 * the OS's ephemeral range (see ./ports.ts); if it is taken, Redis fails to bind and another is
 * tried.
 *
 *   const redis = await startRedis();
 *   const admin = await redis.admin();       // node-redis client for inspecting keys
 *   redis.pause(); redis.resume();           // SIGSTOP / SIGCONT: a stalled Redis
 *   await redis.stop(); await redis.start(); // same port, empty data set
 *   await redis.close();                     // stop + remove the temp dir
 *
 * Without a redis-server (REDIS_SERVER, else on PATH) `redisMissing()` says why; test files skip
 * loudly then, and fail instead under CI=true (.ci/run installs the Debian package).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import type { Logger } from '../../lib/log/logger.ts';
import { RateLimiter } from '../../lib/rate-limit/token-bucket.ts';
import { parseRedisConfig } from '../../lib/server/redis-config.ts';
import { RedisRateLimitStore } from '../../lib/rate-limit/redis-store.ts';
import { captureLogger } from './log-capture.ts';
import { onPath } from './on-path.ts';
import { portBelowEphemeralRange } from './ports.ts';

/** REDIS_SERVER, else the first redis-server on PATH, else Debian's path. */
export const REDIS_SERVER = onPath('redis-server', 'REDIS_SERVER');

/** Why the Redis tests cannot run here, or null when they can. */
export function redisMissing(): string | null {
  if (existsSync(REDIS_SERVER)) return null;
  const why = `redis-server not found (REDIS_SERVER, PATH; Debian package redis-server)`;
  if (process.env.CI === 'true') throw new Error(`${why}. In CI the Redis tests must run, not skip.`);
  return why;
}

/** What the tests need of an admin connection. */
export interface AdminClient {
  sendCommand(args: string[]): Promise<unknown>;
  destroy(): void;
}

export interface RedisServer {
  readonly port: number;
  /** PID of the current process (changes after stop/start). */
  readonly pid: number;
  /** redis://127.0.0.1:<port> */
  readonly url: string;
  /** Starts it again on the same port (after stop()). */
  start(): Promise<void>;
  /** SIGTERM to our PID (SIGCONT first if paused) and waits for the exit. */
  stop(): Promise<void>;
  pause(): void;
  resume(): void;
  /** A connected client for inspection, made once per run of the process. */
  admin(): Promise<AdminClient>;
  /** Everything the process printed. */
  output(): string;
  close(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});

export interface RedisStartOptions {
  /** Sets requirepass. */
  password?: string;
  /** Use this port (e.g. one a test already pointed a client at); default: a free one. */
  port?: number;
  /** 'aof': appendonly yes (fsync every second, Redis's default), written to its temp dir and
   * read back on a restart; default none (save "" and appendonly no). */
  persistence?: 'none' | 'aof';
}

export async function startRedis(options: RedisStartOptions = {}): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'cg-redis-'));
  let child: ChildProcess | null = null;
  let out = '';
  let paused = false;
  let admin: AdminClient | null = null;
  let port = options.port ?? 0;

  const launch = (onPort: number): Promise<boolean> =>
    new Promise((resolve, reject) => {
      const args = [
        '--port',
        String(onPort),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        options.persistence === 'aof' ? 'yes' : 'no',
        '--dir',
        dir,
        '--daemonize',
        'no',
        '--loglevel',
        'notice',
      ];
      if (options.password !== undefined) args.push('--requirepass', options.password);
      const proc = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      running.add(proc);
      let settled = false;
      const onData = (chunk: Buffer): void => {
        out += chunk.toString('utf8');
        if (!settled && /Ready to accept connections/.test(out)) {
          settled = true;
          child = proc;
          resolve(true);
        }
      };
      proc.stdout.on('data', onData);
      proc.stderr.on('data', onData);
      proc.once('exit', (code, signal) => {
        running.delete(proc);
        if (settled) return;
        settled = true;
        if (/Address already in use/.test(out)) resolve(false);
        else reject(new Error(`redis-server exited (${code ?? signal}) before it was ready:\n${out}`));
      });
    });

  const ping = async (): Promise<void> => {
    const client = await connectAdmin();
    if ((await client.sendCommand(['PING'])) !== 'PONG') throw new Error('redis-server did not answer PING with PONG');
    admin = client;
  };

  const connectAdmin = async (): Promise<AdminClient> => {
    const client = createClient({
      socket: { host: '127.0.0.1', port, reconnectStrategy: false },
      ...(options.password === undefined ? {} : { password: options.password }),
    });
    client.on('error', () => undefined); // the server is stopped on purpose in some tests
    await client.connect();
    return client;
  };

  const start = async (): Promise<void> => {
    if (child !== null) throw new Error('redis-server already running');
    out = '';
    // A restart keeps its port (clients point at it), as does a port the caller chose.
    const fixed = options.port !== undefined || port !== 0;
    for (let attempt = 0; attempt < 20; attempt++) {
      if (!fixed) port = portBelowEphemeralRange();
      if (await launch(port)) {
        await ping();
        return;
      }
      if (fixed) break;
    }
    throw new Error(`redis-server could not bind ${fixed ? `port ${port}` : 'a port'}:\n${out}`);
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    if (proc === null) return;
    if (admin !== null) {
      admin.destroy();
      admin = null;
    }
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    if (proc.exitCode === null && proc.signalCode === null) {
      if (paused) proc.kill('SIGCONT');
      paused = false;
      proc.kill('SIGTERM');
      const killer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    child = null;
  };

  await start();
  return {
    get port() {
      return port;
    },
    get pid() {
      return child?.pid ?? -1;
    },
    get url() {
      return `redis://127.0.0.1:${port}`;
    },
    start,
    stop,
    pause() {
      child?.kill('SIGSTOP');
      paused = true;
    },
    resume() {
      child?.kill('SIGCONT');
      paused = false;
    },
    async admin() {
      admin ??= await connectAdmin();
      return admin;
    },
    output: () => out,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A store on `redis` with a fallback bucket of the same limit. A generous per-call timeout by
 * default, so a busy test machine never turns a semantics test into a fallback test. */
export async function openStore(
  redis: Pick<RedisServer, 'url'>,
  options: {
    limit: number;
    prefix?: string;
    timeoutMs?: number;
    logger?: Pick<Logger, 'warn'>;
    env?: Record<string, string>;
    connectWaitMs?: number;
    backoffMaxMs?: number;
  },
): Promise<{ store: RedisRateLimitStore; fallback: RateLimiter }> {
  const config = parseRedisConfig(
    {
      RATE_LIMIT_REDIS_URL: redis.url,
      RATE_LIMIT_REDIS_PREFIX: options.prefix ?? 'test:rl:',
      RATE_LIMIT_REDIS_TIMEOUT_MS: String(options.timeoutMs ?? 2_000),
      ...options.env,
    },
    process.cwd(),
  )!;
  const fallback = new RateLimiter({ perMinute: options.limit, sweepIntervalMs: 0 });
  const store = await RedisRateLimitStore.open({
    config,
    limit: options.limit,
    fallback,
    logger: options.logger ?? captureLogger('warn').logger,
    ...(options.connectWaitMs === undefined ? {} : { connectWaitMs: options.connectWaitMs }),
    ...(options.backoffMaxMs === undefined ? {} : { backoffMaxMs: options.backoffMaxMs }),
  });
  return { store, fallback };
}

/** A command through the admin client, reply as node-redis gives it. */
export async function command(redis: RedisServer, ...args: string[]): Promise<unknown> {
  return (await redis.admin()).sendCommand(args);
}

/** The script calls `requests` cost, counted by Redis (EVALSHA plus EVAL, after NOSCRIPT):
 * its command statistics reset, `requests` made, then read. */
export async function scriptCallsFor(redis: RedisServer, requests: () => Promise<void>): Promise<number> {
  await command(redis, 'CONFIG', 'RESETSTAT');
  await requests();
  const info = String(await command(redis, 'INFO', 'commandstats'));
  let calls = 0;
  for (const name of ['evalsha', 'eval']) {
    const m = new RegExp(`^cmdstat_${name}:calls=(\\d+),`, 'm').exec(info);
    if (m !== null) calls += Number(m[1]);
  }
  return calls;
}
