/**
 * Section 2: POST /generate on the real built server against the bare node:http server,
 * both pinned to core 0, the load generator (wrk, else autocannon) pinned to core 1. Per
 * scenario and round the two servers take turns (order alternating by round); the figures
 * are the per-round ratios real / bare of req/s, p50, p99 and server CPU per request.
 * @module
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { MAX_RATE_LIMIT_PER_MINUTE } from '../lib/core/limits.ts';
import {
  CLOCK_TICKS,
  cpuTicks,
  freePort,
  hasCommand,
  httpRequest,
  pinned,
  ROOT,
  sleep,
  startServer,
  type ServerProcess,
} from './procs.ts';
import { pairedRatios, parseWrk, roundOrder, summarize, type LoadResult, type Summary } from './stats.ts';

export const HAS_WRK = hasCommand('wrk');
const LUA = join(ROOT, 'bench', 'post.lua');
const AUTOCANNON = join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');

export type LoadTool = 'wrk' | 'autocannon';

export interface Scenario {
  readonly id: string;
  readonly count: 1 | 20;
  readonly connections: number;
  /** LOG_LEVEL of the real server in this scenario (info is the default). */
  readonly logLevel: 'silent' | 'info';
  /** The rate-limit store: in-process buckets, or shared through a local redis-server. */
  readonly store: 'memory' | 'redis';
}

export interface HttpOptions {
  readonly rounds: number;
  readonly durationSec: number;
  readonly warmupSec: number;
  readonly scenarios: readonly Scenario[];
  readonly tool: LoadTool;
  readonly log: (line: string) => void;
}

export interface SideResult {
  readonly perRound: readonly (LoadResult & { cpuUsPerRequest: number })[];
  readonly rps: Summary;
  readonly p50: Summary;
  readonly p99: Summary;
  readonly cpuUsPerRequest: Summary;
}

export interface ScenarioResult {
  readonly id: string;
  readonly count: number;
  readonly connections: number;
  readonly logLevel: string;
  readonly store: string;
  readonly responseBytes: number;
  readonly real: SideResult;
  readonly bare: SideResult;
  /** real / bare, per round. */
  readonly ratios: {
    readonly rps: Summary;
    readonly p50: Summary;
    readonly p99: Summary;
    readonly cpuPerRequest: Summary;
  };
}

/** The default configuration first (LOG_LEVEL=info, in-process buckets), then the same load
 * without the request log and with the buckets on Redis. */
export const SCENARIOS: readonly Scenario[] = [
  { id: 'count1-c1', count: 1, connections: 1, logLevel: 'info', store: 'memory' },
  { id: 'count1-c32', count: 1, connections: 32, logLevel: 'info', store: 'memory' },
  { id: 'count20-c1', count: 20, connections: 1, logLevel: 'info', store: 'memory' },
  { id: 'count20-c32', count: 20, connections: 32, logLevel: 'info', store: 'memory' },
  { id: 'count1-c32-silent', count: 1, connections: 32, logLevel: 'silent', store: 'memory' },
  { id: 'count1-c32-redis', count: 1, connections: 32, logLevel: 'info', store: 'redis' },
];

/** redis-server on PATH: the Redis scenario runs only with it (Debian package redis-server). */
export const HAS_REDIS = hasCommand('redis-server');

function bodyOf(count: number): string {
  return JSON.stringify({ mode: 'password', count });
}

function run(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${err}${out}`));
    });
  });
}

/** One load run against `url` from core 1. */
async function load(
  tool: LoadTool,
  url: string,
  apiKey: string,
  count: number,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  const body = bodyOf(count);
  if (tool === 'wrk') {
    const [cmd, args] = pinned(1, 'wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', LUA, url]);
    const out = await run(cmd, args, { BENCH_BODY: body, BENCH_API_KEY: apiKey }, (seconds + 30) * 1000);
    return parseWrk(out);
  }
  const [cmd, args] = pinned(1, process.execPath, [
    AUTOCANNON,
    '-c',
    String(connections),
    '-d',
    String(seconds),
    '-m',
    'POST',
    '-H',
    'Content-Type=application/json',
    '-H',
    `X-Api-Key=${apiKey}`,
    '-b',
    body,
    '-j',
    url,
  ]);
  const out = await run(cmd, args, {}, (seconds + 30) * 1000);
  const r = JSON.parse(out) as {
    requests: { total: number; average: number };
    latency: { p50: number; p99: number };
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
  };
  return {
    requests: r.requests.total,
    seconds: r.duration,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

/** One load run against `url` with the server's CPU time per request (from /proc). */
export async function measured(
  tool: LoadTool,
  server: ServerProcess,
  url: string,
  apiKey: string,
  count: number,
  connections: number,
  seconds: number,
) {
  const before = cpuTicks(server.pid);
  const result = await load(tool, url, apiKey, count, connections, seconds);
  const ticks = cpuTicks(server.pid) - before;
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${server.kind} server: ${result.non2xx} non-2xx and ${result.errors} socket errors under load (rate limit not raised?)`,
    );
  }
  return { ...result, cpuUsPerRequest: ((ticks / CLOCK_TICKS) * 1e6) / result.requests };
}

export function side(perRound: (LoadResult & { cpuUsPerRequest: number })[]): SideResult {
  return {
    perRound,
    rps: summarize(perRound.map((r) => r.rps)),
    p50: summarize(perRound.map((r) => r.p50)),
    p99: summarize(perRound.map((r) => r.p99)),
    cpuUsPerRequest: summarize(perRound.map((r) => r.cpuUsPerRequest)),
  };
}

export async function runHttp(options: HttpOptions): Promise<ScenarioResult[]> {
  const apiKey = `bench-${randomBytes(16).toString('hex')}`;
  // Raised by configuration to the highest value the server accepts: the limiter still runs
  // (one bucket, consumed on every request) but a whole run never empties it.
  const rateLimitPerMinute = MAX_RATE_LIMIT_PER_MINUTE;
  const variant = (s: Scenario): string => `${s.logLevel}/${s.store}`;
  const reals = new Map<string, ServerProcess>();
  let bare: ServerProcess | null = null;
  let redis: RedisProcess | null = null;
  try {
    if (options.scenarios.some((s) => s.store === 'redis')) redis = await startRedis();
    for (const s of options.scenarios) {
      if (reals.has(variant(s))) continue;
      const env: Record<string, string> =
        s.store === 'redis' && redis !== null ? { RATE_LIMIT_REDIS_URL: redis.url } : {};
      reals.set(
        variant(s),
        startServer({ kind: 'real', cpu: 0, apiKey, rateLimitPerMinute, logLevel: s.logLevel, env }),
      );
    }
    const realUrls = new Map<string, string>();
    for (const [key, server] of reals) realUrls.set(key, await server.listening);

    // The bare server answers a body as long as the real one's for the same request.
    const sizes: Record<string, number> = {};
    const anyReal = realUrls.values().next().value as string;
    for (const count of [1, 20]) {
      const reply = await httpRequest(`${anyReal}/generate`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Api-Key': apiKey },
        body: bodyOf(count),
      });
      if (reply.status !== 200)
        throw new Error(
          `real server answered ${reply.status} to the benchmark request: ${reply.body.toString('utf8')}`,
        );
      sizes[`/generate/${count}`] = reply.body.length;
    }
    bare = startServer({ kind: 'bare', cpu: 0, bareBodies: sizes });
    const bareUrl = await bare.listening;

    const results: ScenarioResult[] = [];
    for (const s of options.scenarios) {
      const real = reals.get(variant(s))!;
      const targets = [
        { name: 'real' as const, server: real, url: `${realUrls.get(variant(s))}/generate` },
        { name: 'bare' as const, server: bare, url: `${bareUrl}/generate/${s.count}` },
      ];
      for (const t of targets)
        await measured(options.tool, t.server, t.url, apiKey, s.count, s.connections, options.warmupSec);
      const perRound: Record<'real' | 'bare', (LoadResult & { cpuUsPerRequest: number })[]> = { real: [], bare: [] };
      for (let round = 0; round < options.rounds; round++) {
        for (const t of roundOrder(targets, round)) {
          perRound[t.name].push(
            await measured(options.tool, t.server, t.url, apiKey, s.count, s.connections, options.durationSec),
          );
        }
      }
      const r = perRound.real;
      const b = perRound.bare;
      results.push({
        id: s.id,
        count: s.count,
        connections: s.connections,
        logLevel: s.logLevel,
        store: s.store,
        responseBytes: sizes[`/generate/${s.count}`],
        real: side(r),
        bare: side(b),
        ratios: {
          rps: summarize(
            pairedRatios(
              r.map((x) => x.rps),
              b.map((x) => x.rps),
            ),
          ),
          p50: summarize(
            pairedRatios(
              r.map((x) => x.p50),
              b.map((x) => x.p50),
            ),
          ),
          p99: summarize(
            pairedRatios(
              r.map((x) => x.p99),
              b.map((x) => x.p99),
            ),
          ),
          cpuPerRequest: summarize(
            pairedRatios(
              r.map((x) => x.cpuUsPerRequest),
              b.map((x) => x.cpuUsPerRequest),
            ),
          ),
        },
      });
      options.log(`  http ${s.id}: done`);
    }
    return results;
  } finally {
    for (const server of reals.values()) await server.stop();
    if (bare !== null) await bare.stop();
    if (redis !== null) await redis.stop();
  }
}

interface RedisProcess {
  readonly url: string;
  stop(): Promise<void>;
}

/** A private redis-server on loopback, no persistence, on core 1 with the load generator (the
 * server under test keeps core 0 to itself); stopped by its PID. */
async function startRedis(): Promise<RedisProcess> {
  if (!HAS_REDIS) throw new Error('the Redis scenario needs redis-server (apt-get install redis-server)');
  const port = await freePort();
  const [cmd, args] = pinned(1, 'redis-server', [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  const child = spawn(cmd, args, { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; ; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.write('PING\r\n');
        socket.once('data', (d: Buffer) => {
          socket.destroy();
          resolve(d.toString().startsWith('+PONG'));
        });
      });
      socket.once('error', () => resolve(false));
    });
    if (up) break;
    if (i > 200) throw new Error(`redis-server did not answer on ${url}`);
    await sleep(25);
  }
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
