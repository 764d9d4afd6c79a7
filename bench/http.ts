/**
 * Section 2: POST /generate on the real built server against the bare node:http server and,
 * with the buckets in memory, against the peer users would pick (Fastify 5 doing the same
 * contract work, bench/fastify-peer.mjs), all pinned to core 0, the load generator (wrk, else
 * autocannon) pinned to core 1. Per scenario and round the servers take turns (order
 * alternating by round); the figures are the per-round ratios real / bare and real / Fastify
 * of req/s, p50, p99 and server CPU per request.
 * @module
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_RATE_LIMIT_PER_MINUTE } from '../lib/service/limits.ts';
import {
  CLOCK_TICKS,
  cpuTicks,
  hasCommand,
  httpRequest,
  pinned,
  ROOT,
  rss,
  startServer,
  type ServerProcess,
} from './procs.ts';
import { startRedis, startRedisCluster, type RedisProcesses } from './redis-servers.ts';
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
  /** The rate-limit store: in-process buckets, or shared through a local redis-server or a
   * local Redis Cluster of three masters (bench/redis-servers.ts). */
  readonly store: 'memory' | 'redis' | 'cluster';
}

export interface HttpOptions {
  readonly rounds: number;
  readonly durationSec: number;
  readonly warmupSec: number;
  readonly scenarios: readonly Scenario[];
  readonly tool: LoadTool;
  readonly log: (line: string) => void;
}

/** One measured load run: wrk's figures, the server's CPU per request, and the highest RSS of
 * the server sampled while the load ran. */
export type MeasuredRun = LoadResult & { cpuUsPerRequest: number; rssBytes: number };

export interface SideResult {
  readonly perRound: readonly MeasuredRun[];
  readonly rps: Summary;
  readonly p50: Summary;
  readonly p99: Summary;
  readonly cpuUsPerRequest: Summary;
  readonly rssBytes: Summary;
}

/** One server's figures over another's, per round. */
export interface Ratios {
  readonly rps: Summary;
  readonly p50: Summary;
  readonly p99: Summary;
  readonly cpuPerRequest: Summary;
  readonly rss: Summary;
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
  /** The Fastify peer; null where it does not run (the buckets on Redis). */
  readonly fastify: SideResult | null;
  /** real / bare, per round. */
  readonly ratios: Ratios;
  /** real / Fastify, per round; null without the peer. */
  readonly vsFastify: Ratios | null;
}

/** The default configuration first (LOG_LEVEL=info, in-process buckets), then the same load
 * without the request log, with the buckets on Redis, and on a Redis Cluster. */
export const SCENARIOS: readonly Scenario[] = [
  { id: 'count1-c1', count: 1, connections: 1, logLevel: 'info', store: 'memory' },
  { id: 'count1-c32', count: 1, connections: 32, logLevel: 'info', store: 'memory' },
  { id: 'count20-c1', count: 20, connections: 1, logLevel: 'info', store: 'memory' },
  { id: 'count20-c32', count: 20, connections: 32, logLevel: 'info', store: 'memory' },
  { id: 'count1-c32-silent', count: 1, connections: 32, logLevel: 'silent', store: 'memory' },
  { id: 'count1-c32-redis', count: 1, connections: 32, logLevel: 'info', store: 'redis' },
  { id: 'count1-c32-cluster', count: 1, connections: 32, logLevel: 'info', store: 'cluster' },
];

export { HAS_REDIS, HAS_REDIS_CLUSTER } from './redis-servers.ts';

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

/** RSS is sampled this often during a load run (a read of /proc, on the runner's core). */
const RSS_SAMPLE_MS = 100;

/** One load run against `url` with the server's CPU time per request (from /proc) and its RSS. */
export async function measured(
  tool: LoadTool,
  server: ServerProcess,
  url: string,
  apiKey: string,
  count: number,
  connections: number,
  seconds: number,
): Promise<MeasuredRun> {
  const before = cpuTicks(server.pid);
  let rssBytes = rss(server.pid);
  const sampler = setInterval(() => {
    rssBytes = Math.max(rssBytes, rss(server.pid));
  }, RSS_SAMPLE_MS);
  const result = await load(tool, url, apiKey, count, connections, seconds).finally(() => clearInterval(sampler));
  rssBytes = Math.max(rssBytes, rss(server.pid));
  const ticks = cpuTicks(server.pid) - before;
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${server.kind} server: ${result.non2xx} non-2xx and ${result.errors} socket errors under load (rate limit not raised?)`,
    );
  }
  return { ...result, cpuUsPerRequest: ((ticks / CLOCK_TICKS) * 1e6) / result.requests, rssBytes };
}

export function side(perRound: MeasuredRun[]): SideResult {
  return {
    perRound,
    rps: summarize(perRound.map((r) => r.rps)),
    p50: summarize(perRound.map((r) => r.p50)),
    p99: summarize(perRound.map((r) => r.p99)),
    cpuUsPerRequest: summarize(perRound.map((r) => r.cpuUsPerRequest)),
    rssBytes: summarize(perRound.map((r) => r.rssBytes)),
  };
}

/** a / b of every figure, round by round. */
export function ratiosOf(a: readonly MeasuredRun[], b: readonly MeasuredRun[]): Ratios {
  const of = (pick: (r: MeasuredRun) => number): Summary => summarize(pairedRatios(a.map(pick), b.map(pick)));
  return {
    rps: of((x) => x.rps),
    p50: of((x) => x.p50),
    p99: of((x) => x.p99),
    cpuPerRequest: of((x) => x.cpuUsPerRequest),
    rss: of((x) => x.rssBytes),
  };
}

export async function runHttp(options: HttpOptions): Promise<ScenarioResult[]> {
  const apiKey = `bench-${randomBytes(16).toString('hex')}`;
  // Raised by configuration to the highest value the server accepts: the limiter still runs
  // (one bucket, consumed on every request) but a whole run never empties it.
  const rateLimitPerMinute = MAX_RATE_LIMIT_PER_MINUTE;
  const variant = (s: Scenario): string => `${s.logLevel}/${s.store}`;
  const reals = new Map<string, ServerProcess>();
  // The peer's limiter is in memory: it runs beside the in-memory scenarios, one per log level.
  const peers = new Map<string, ServerProcess>();
  let bare: ServerProcess | null = null;
  const redis = new Map<Scenario['store'], RedisProcesses>();
  const clusterDir = mkdtempSync(join(tmpdir(), 'bench-redis-cluster-'));
  try {
    if (options.scenarios.some((s) => s.store === 'redis')) redis.set('redis', await startRedis());
    if (options.scenarios.some((s) => s.store === 'cluster')) redis.set('cluster', await startRedisCluster(clusterDir));
    for (const s of options.scenarios) {
      if (reals.has(variant(s))) continue;
      const env: Record<string, string> = redis.get(s.store)?.env ?? {};
      reals.set(
        variant(s),
        startServer({ kind: 'real', cpu: 0, apiKey, rateLimitPerMinute, logLevel: s.logLevel, env }),
      );
    }
    for (const s of options.scenarios) {
      if (s.store !== 'memory' || peers.has(s.logLevel)) continue;
      peers.set(s.logLevel, startServer({ kind: 'fastify', cpu: 0, apiKey, rateLimitPerMinute, logLevel: s.logLevel }));
    }
    const realUrls = new Map<string, string>();
    for (const [key, server] of reals) realUrls.set(key, await server.listening);
    const peerUrls = new Map<string, string>();
    for (const [key, server] of peers) peerUrls.set(key, await server.listening);

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
      const peer = s.store === 'memory' ? peers.get(s.logLevel) : undefined;
      const targets: { name: 'real' | 'bare' | 'fastify'; server: ServerProcess; url: string }[] = [
        { name: 'real', server: real, url: `${realUrls.get(variant(s))}/generate` },
        { name: 'bare', server: bare, url: `${bareUrl}/generate/${s.count}` },
      ];
      if (peer !== undefined)
        targets.push({ name: 'fastify', server: peer, url: `${peerUrls.get(s.logLevel)}/generate` });
      for (const t of targets)
        await measured(options.tool, t.server, t.url, apiKey, s.count, s.connections, options.warmupSec);
      const perRound: Record<'real' | 'bare' | 'fastify', MeasuredRun[]> = { real: [], bare: [], fastify: [] };
      for (let round = 0; round < options.rounds; round++) {
        for (const t of roundOrder(targets, round)) {
          perRound[t.name].push(
            await measured(options.tool, t.server, t.url, apiKey, s.count, s.connections, options.durationSec),
          );
        }
      }
      const { real: r, bare: b, fastify: f } = perRound;
      results.push({
        id: s.id,
        count: s.count,
        connections: s.connections,
        logLevel: s.logLevel,
        store: s.store,
        responseBytes: sizes[`/generate/${s.count}`],
        real: side(r),
        bare: side(b),
        fastify: f.length > 0 ? side(f) : null,
        ratios: ratiosOf(r, b),
        vsFastify: f.length > 0 ? ratiosOf(r, f) : null,
      });
      options.log(`  http ${s.id}: done`);
    }
    return results;
  } finally {
    for (const server of reals.values()) await server.stop();
    for (const server of peers.values()) await server.stop();
    if (bare !== null) await bare.stop();
    for (const r of redis.values()) await r.stop();
    rmSync(clusterDir, { recursive: true, force: true });
  }
}
