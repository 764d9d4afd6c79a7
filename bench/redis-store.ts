/**
 * What one shared rate-limit decision costs, beside the in-process bucket, in the same run:
 *
 *   node --import tsx bench/redis-store.ts [--calls=10000] [--rounds=3]
 *
 * Starts a private redis-server on loopback (persistence off) and measures, per round:
 * - sequential: `calls` consume() calls one after another, each timed (performance.now), so
 *   the median and p99 are one full round trip through node-redis and the GCRA script;
 * - concurrent: 32 callers sharing the store's one connection (node-redis pipelines them), the
 *   same number of calls in all; per-call latency and calls per second;
 * - CPU per call: this process's (process.cpuUsage) and Redis's (INFO used_cpu_*), divided by
 *   the calls of the sequential part;
 * - in-process: RateLimiter.consume over 1e6 calls (too fast to time one by one) and the
 *   store's fallback path (Redis stalled by SIGSTOP, so the store answers in-process through
 *   its async interface).
 * Keys rotate over 1,000 clients; the limit is the maximum, so every call is a grant and
 * writes (the costlier path). The machine is shared: read the medians over rounds, and the
 * ratios, which are taken within one round.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { RateLimiter } from '../lib/rate-limit/token-bucket.ts';
import { captureLogger } from '../tests/helpers/log-capture.ts';
import { command, openStore, REDIS_SERVER, startRedis } from '../tests/helpers/redis-server.ts';

const arg = (name: string, fallback: number): number => {
  const raw = process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  return raw === undefined ? fallback : Number(raw);
};
const CALLS = arg('calls', 10_000);
const ROUNDS = arg('rounds', 3);
const LIMIT = 1_000_000_000;
const KEYS = Array.from({ length: 1000 }, (_, i) => `198.51.${i >> 8}.${i & 255}`);

function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function redisCpuSeconds(redis: Parameters<typeof command>[0]): Promise<number> {
  const info = String(await command(redis, 'INFO', 'cpu'));
  return Number(/used_cpu_user:([\d.]+)/.exec(info)![1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)![1]);
}

const loadBefore = loadavg()[0];
const redis = await startRedis();
const log = captureLogger('warn');
const { store } = await openStore(redis, { limit: LIMIT, prefix: 'bench:', timeoutMs: 50, logger: log.logger });
if (!store.isShared) throw new Error('the store did not connect');

// Warm-up: JIT, the script cache, the connection.
for (let i = 0; i < 2000; i++) await store.consume(KEYS[i % KEYS.length]);

type Round = {
  fellBack: boolean;
  seqMedian: number;
  seqP99: number;
  conMedian: number;
  conP99: number;
  conRate: number;
  nodeCpuUs: number;
  redisCpuUs: number;
  localNs: number;
  fallbackUs: number;
};
const rounds: Round[] = [];

for (let round = 0; round < ROUNDS; round++) {
  const warnsBefore = log.lines('warn').length;
  // Sequential.
  const seq = new Float64Array(CALLS);
  const cpu0 = process.cpuUsage();
  const redisCpu0 = await redisCpuSeconds(redis);
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await store.consume(KEYS[i % KEYS.length]);
    seq[i] = performance.now() - t;
  }
  const cpu = process.cpuUsage(cpu0);
  const redisCpu = (await redisCpuSeconds(redis)) - redisCpu0;
  seq.sort();

  // 32 concurrent callers.
  const con = new Float64Array(CALLS);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (let i = next++; i < CALLS; i = next++) {
        const t = performance.now();
        await store.consume(KEYS[i % KEYS.length]);
        con[i] = performance.now() - t;
      }
    }),
  );
  const elapsed = performance.now() - started;
  con.sort();
  // A timeout under load switches to the fallback; such a round measured the wrong thing.
  const fellBack = log.lines('warn').length !== warnsBefore || !store.isShared;

  // In-process bucket, same keys.
  const local = new RateLimiter({ perMinute: LIMIT, sweepIntervalMs: 0 });
  const n = 1_000_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) local.consume(KEYS[i % KEYS.length]);
  const localNs = ((performance.now() - t0) / n) * 1e6;
  local.close();

  // The store's own fallback path (Redis stalled).
  while (!store.isShared) await delay(10);
  redis.pause();
  await store.consume('switch'); // times out once, switches to fallback
  const m = 100_000;
  const t1 = performance.now();
  for (let i = 0; i < m; i++) await store.consume(KEYS[i % KEYS.length]);
  const fallbackUs = ((performance.now() - t1) / m) * 1000;
  redis.resume();
  const deadline = performance.now() + 15_000;
  while (!store.isShared) {
    if (performance.now() > deadline) throw new Error(`not shared again:\n${log.text()}`);
    await delay(10);
  }

  rounds.push({
    fellBack,
    seqMedian: quantile(seq, 0.5) * 1000,
    seqP99: quantile(seq, 0.99) * 1000,
    conMedian: quantile(con, 0.5) * 1000,
    conP99: quantile(con, 0.99) * 1000,
    conRate: CALLS / (elapsed / 1000),
    nodeCpuUs: (cpu.user + cpu.system) / CALLS,
    redisCpuUs: (redisCpu * 1e6) / CALLS,
    localNs,
    fallbackUs,
  });
  process.stdout.write(
    `round ${round + 1}: ${JSON.stringify(rounds[round], (_, v: unknown) => (typeof v === 'number' ? Number(v.toFixed(2)) : v))}\n`,
  );
}

// Redis's own execution time per script call (no network, no client): from its counters.
const stats = String(await command(redis, 'INFO', 'commandstats'));
const usecPerCall = Number(/cmdstat_evalsha:calls=\d+,usec=\d+,usec_per_call=([\d.]+)/.exec(stats)![1]);
await store.close();
await redis.close();

const valid = rounds.filter((r) => !r.fellBack);
if (valid.length === 0)
  throw new Error('every round fell back to in-process limiting at least once (machine overloaded?)');
const col = (key: Exclude<keyof Round, 'fellBack'>): number => median(valid.map((r) => r[key]));
const ratio = median(valid.map((r) => (r.seqMedian * 1000) / r.localNs));
process.stdout.write(
  [
    '',
    `redis-server ${String(execFileSync(REDIS_SERVER, ['--version'])).split(' ')[2]}, node ${process.version}, ${CALLS} calls x ${valid.length} of ${ROUNDS} rounds (medians over rounds that stayed shared)`,
    `sequential consume:      median ${col('seqMedian').toFixed(1)} us, p99 ${col('seqP99').toFixed(1)} us`,
    `32 concurrent:           median ${col('conMedian').toFixed(1)} us, p99 ${col('conP99').toFixed(1)} us, ${col('conRate').toFixed(0)} calls/s`,
    `CPU per consume:         node ${col('nodeCpuUs').toFixed(1)} us, redis-server ${col('redisCpuUs').toFixed(1)} us`,
    `in-process bucket:       ${col('localNs').toFixed(0)} ns per consume (x${ratio.toFixed(0)} for the shared round trip, paired per round)`,
    `store in fallback:       ${col('fallbackUs').toFixed(2)} us per awaited consume`,
    `script inside Redis:     ${usecPerCall.toFixed(2)} us per call (INFO commandstats, all calls of the run)`,
    `load average (1 min):    ${loadBefore.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end, on ${(await import('node:os')).availableParallelism()} CPUs`,
    '',
  ].join('\n'),
);
