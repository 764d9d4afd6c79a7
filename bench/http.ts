/**
 * Section 2: POST /generate on the real built server against its peers, all pinned to core 0,
 * the load generator (wrk, else autocannon) pinned to core 1. Per scenario and round the
 * contenders take turns (the order reversed every other round); the figures are the per-round
 * ratios real / peer of req/s, p50, p99, server CPU per request and RSS, each with the 95 %
 * interval of its median. Every `roundsPerProcess` rounds each contender is a new process: one
 * process's figures can carry an offset of their own (docs/benchmark.md, The sixth pass), so the
 * rounds sample several processes of each. The contenders (issue 40: peers that cannot flatter
 * the service):
 *   real       the single file at its default LOG_LEVEL=info;
 *   real-warn  the same at LOG_LEVEL=warn: real / real-warn is what the request log costs;
 *   lean       bench/lean-server.mjs, the leanest node:http server doing the same contract work
 *              with the same batched log line: the limit to approach;
 *   fastify    bench/fastify-peer.mjs, what a user would build with Fastify 5, its rate-limit
 *              plugin, its ajv, generate-password and its logger at info;
 *   bare       bench/bare-server.mjs, a fixed body of the same length: for RSS.
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
  type ServerKind,
  type ServerProcess,
} from './procs.ts';
import { startRedis, startRedisCluster, type RedisProcesses } from './redis-servers.ts';
import {
  pairedRatios,
  parseWrk,
  roundOrder,
  startsAfresh,
  summarize,
  summarizeWithInterval,
  type IntervalSummary,
  type LoadResult,
  type Summary,
} from './stats.ts';

export const HAS_WRK = hasCommand('wrk');
const LUA = join(ROOT, 'bench', 'post.lua');
const AUTOCANNON = join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');

export type LoadTool = 'wrk' | 'autocannon';

/** A contender of the HTTP section (see the module comment). */
export type Contender = 'real' | 'real-warn' | 'lean' | 'fastify' | 'bare';

/** The peers the real server is divided by, in the order the report lists them. */
export const PEERS: readonly Exclude<Contender, 'real'>[] = ['lean', 'fastify', 'real-warn', 'bare'];

export interface Scenario {
  readonly id: string;
  readonly count: 1 | 20;
  readonly connections: number;
  /** The rate-limit store of the real server: in-process buckets, or shared through a local
   * redis-server or a local Redis Cluster of three masters (bench/redis-servers.ts). */
  readonly store: 'memory' | 'redis' | 'cluster';
  /** Who runs in this scenario's rounds besides the real server. */
  readonly peers: readonly Exclude<Contender, 'real'>[];
}

export interface HttpOptions {
  readonly rounds: number;
  /** Rounds each server process runs before every contender is started afresh (and warmed up
   * again); `rounds` or more: one process each for the whole run. */
  readonly roundsPerProcess: number;
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

/** One server's figures over another's, per round: the median, min-max and the 95 % interval. */
export interface Ratios {
  readonly rps: IntervalSummary;
  readonly p50: IntervalSummary;
  readonly p99: IntervalSummary;
  readonly cpuPerRequest: IntervalSummary;
  readonly rss: IntervalSummary;
}

export interface ScenarioResult {
  readonly id: string;
  readonly count: number;
  readonly connections: number;
  readonly store: string;
  readonly responseBytes: number;
  /** Each contender's figures; the real server's always, each peer's where it ran. */
  readonly sides: Partial<Record<Contender, SideResult>> & { readonly real: SideResult };
  /** real / peer, per round, for each peer that ran. */
  readonly vs: Partial<Record<Exclude<Contender, 'real'>, Ratios>>;
}

/** The default configuration (LOG_LEVEL=info, in-process buckets) against every peer at 32
 * connections; then one connection, and the buckets on Redis and on a Redis Cluster, against
 * the bare server only. */
export const SCENARIOS: readonly Scenario[] = [
  { id: 'count1-c1', count: 1, connections: 1, store: 'memory', peers: ['bare'] },
  { id: 'count1-c32', count: 1, connections: 32, store: 'memory', peers: PEERS },
  { id: 'count20-c1', count: 20, connections: 1, store: 'memory', peers: ['bare'] },
  { id: 'count20-c32', count: 20, connections: 32, store: 'memory', peers: PEERS },
  { id: 'count1-c32-redis', count: 1, connections: 32, store: 'redis', peers: ['bare'] },
  { id: 'count1-c32-cluster', count: 1, connections: 32, store: 'cluster', peers: ['bare'] },
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
  const of = (pick: (r: MeasuredRun) => number): IntervalSummary =>
    summarizeWithInterval(pairedRatios(a.map(pick), b.map(pick)));
  return {
    rps: of((x) => x.rps),
    p50: of((x) => x.p50),
    p99: of((x) => x.p99),
    cpuPerRequest: of((x) => x.cpuUsPerRequest),
    rss: of((x) => x.rssBytes),
  };
}

/** How each contender is started: its kind and LOG_LEVEL (every one but real-warn at info). */
const STARTS: Record<Contender, { kind: ServerKind; logLevel: 'info' | 'warn' }> = {
  real: { kind: 'real', logLevel: 'info' },
  'real-warn': { kind: 'real', logLevel: 'warn' },
  lean: { kind: 'lean', logLevel: 'info' },
  fastify: { kind: 'fastify', logLevel: 'info' },
  bare: { kind: 'bare', logLevel: 'info' },
};

export async function runHttp(options: HttpOptions): Promise<ScenarioResult[]> {
  const apiKey = `bench-${randomBytes(16).toString('hex')}`;
  // Raised by configuration to the highest value the server accepts: the limiter still runs
  // (one bucket, consumed on every request) but a whole run never empties it. The peers get
  // the same limit.
  const rateLimitPerMinute = MAX_RATE_LIMIT_PER_MINUTE;
  // One process per contender (per store for the real server), kept through every scenario.
  const servers = new Map<string, { server: ServerProcess; url: string }>();
  const redis = new Map<Scenario['store'], RedisProcesses>();
  const clusterDir = mkdtempSync(join(tmpdir(), 'bench-redis-cluster-'));
  const nameOf = (c: Contender, s: Scenario): string => (c === 'real' ? `real/${s.store}` : c);
  try {
    if (options.scenarios.some((s) => s.store === 'redis')) redis.set('redis', await startRedis());
    if (options.scenarios.some((s) => s.store === 'cluster')) redis.set('cluster', await startRedisCluster(clusterDir));
    const start = async (c: Contender, s: Scenario, bareBodies?: Record<string, number>): Promise<void> => {
      const name = nameOf(c, s);
      if (servers.has(name)) return;
      const { kind, logLevel } = STARTS[c];
      const env = c === 'real' ? (redis.get(s.store)?.env ?? {}) : {};
      const server = startServer({ kind, cpu: 0, apiKey, rateLimitPerMinute, logLevel, env, bareBodies });
      servers.set(name, { server, url: '' });
      servers.set(name, { server, url: await server.listening });
    };
    for (const s of options.scenarios) {
      await start('real', s);
      for (const peer of s.peers) if (peer !== 'bare') await start(peer, s);
    }

    // The bare server answers a body as long as the real one's for the same request.
    const sizes: Record<string, number> = {};
    const anyReal = [...servers.entries()].find(([name]) => name.startsWith('real/'))![1].url;
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
    if (options.scenarios.some((s) => s.peers.includes('bare'))) await start('bare', options.scenarios[0], sizes);

    const results: ScenarioResult[] = [];
    for (const s of options.scenarios) {
      const contenders = ['real', ...s.peers] as Contender[];
      const targetsNow = () =>
        contenders.map((c) => {
          const { server, url } = servers.get(nameOf(c, s))!;
          return { name: c, server, url: c === 'bare' ? `${url}/generate/${s.count}` : `${url}/generate` };
        });
      let targets = targetsNow();
      const warmUp = async (): Promise<void> => {
        for (const t of targets)
          await measured(options.tool, t.server, t.url, apiKey, s.count, s.connections, options.warmupSec);
      };
      await warmUp();
      const perRound = new Map<Contender, MeasuredRun[]>(targets.map((t) => [t.name, []]));
      for (let round = 0; round < options.rounds; round++) {
        if (startsAfresh(round, options.roundsPerProcess)) {
          for (const c of contenders) {
            const name = nameOf(c, s);
            await servers.get(name)!.server.stop();
            servers.delete(name);
            await start(c, s, c === 'bare' ? sizes : undefined);
          }
          targets = targetsNow();
          await warmUp();
        }
        for (const t of roundOrder(targets, round)) {
          perRound
            .get(t.name)!
            .push(await measured(options.tool, t.server, t.url, apiKey, s.count, s.connections, options.durationSec));
        }
      }
      const real = perRound.get('real')!;
      const sides: ScenarioResult['sides'] = { real: side(real) };
      const vs: ScenarioResult['vs'] = {};
      for (const peer of s.peers) {
        sides[peer] = side(perRound.get(peer)!);
        vs[peer] = ratiosOf(real, perRound.get(peer)!);
      }
      results.push({
        id: s.id,
        count: s.count,
        connections: s.connections,
        store: s.store,
        responseBytes: sizes[`/generate/${s.count}`],
        sides,
        vs,
      });
      options.log(`  http ${s.id}: done`);
    }
    return results;
  } finally {
    for (const { server } of servers.values()) await server.stop();
    for (const r of redis.values()) await r.stop();
    rmSync(clusterDir, { recursive: true, force: true });
  }
}
