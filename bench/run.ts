/**
 * `npm run bench`: every figure of issue 6 in one run, printed as a table and written to
 * bench/results/latest.json. See README (section Benchmark) for what each part measures.
 *
 *   npm run bench                  full run (~8 min on 2 cores)
 *   npm run bench -- --quick       smoke run (2 rounds, short durations, 2,000 clients; writes quick.json)
 *   npm run bench -- --only=inprocess,sizes   some sections only (inprocess, http, startup, clients, sizes, metrics, engine, instructions)
 *   other flags: --rounds=N --rounds-per-process=N --duration=SEC --clients=N --no-build --out=PATH
 *   --scenarios=count1-c32,count20-c32   some HTTP scenarios only (bench/http.ts, SCENARIOS)
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runClients, type ClientsResult } from './clients.ts';
import {
  HAS_REDIS,
  HAS_REDIS_CLUSTER,
  HAS_WRK,
  PEERS,
  runHttp,
  SCENARIOS,
  type Contender,
  type LoadTool,
  type ScenarioResult,
} from './http.ts';
import { runEngine, type EngineResult } from './engine.ts';
import { runInProcess, type Core, type WorkloadResult } from './inprocess.ts';
import { HAS_VALGRIND, runInstructions, type InstructionCount, type InstructionsResult } from './instructions.ts';
import { runMetrics, type MetricsResult } from './metrics.ts';
import { HAS_TASKSET, pinSelf, REAL_SERVER, ROOT } from './procs.ts';
import { BEFORE_WORD_LISTS, runSizes, type SizesResult } from './sizes.ts';
import { runStartup, type StartupResult } from './startup.ts';
import {
  formatCount,
  formatInterval,
  formatRatio,
  targetMet,
  type Comparison,
  type IntervalSummary,
  type Summary,
} from './stats.ts';

const SECTIONS = ['inprocess', 'http', 'startup', 'clients', 'sizes', 'metrics', 'engine', 'instructions'] as const;
type Section = (typeof SECTIONS)[number];

interface Options {
  quick: boolean;
  only: Set<Section>;
  rounds: number;
  /** HTTP rounds each server process runs before all are started afresh. */
  roundsPerProcess: number;
  inProcessRounds: number;
  sliceMs: number;
  durationSec: number;
  warmupSec: number;
  idleMs: number;
  clients: number;
  /** HTTP scenario ids to run; null for all. */
  scenarios: Set<string> | null;
  build: boolean;
  out: string;
}

function parseArgs(argv: readonly string[]): Options {
  const quick = argv.includes('--quick');
  const value = (name: string): string | undefined =>
    argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const int = (name: string, fallback: number, min: number): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`);
    return n;
  };
  for (const a of argv) {
    if (
      !/^--(quick|no-build|only=.+|rounds=.+|rounds-per-process=.+|duration=.+|clients=.+|scenarios=.+|out=.+)$/.test(a)
    )
      throw new Error(`unknown argument ${a}`);
  }
  const only = new Set<Section>();
  for (const s of (value('only') ?? SECTIONS.join(',')).split(',')) {
    if (!(SECTIONS as readonly string[]).includes(s))
      throw new Error(`--only: unknown section ${s} (${SECTIONS.join(', ')})`);
    only.add(s as Section);
  }
  const rounds = int('rounds', quick ? 2 : 10, 1);
  const scenarios = value('scenarios') === undefined ? null : new Set(value('scenarios')!.split(','));
  for (const id of scenarios ?? [])
    if (!SCENARIOS.some((s) => s.id === id))
      throw new Error(`--scenarios: unknown scenario ${id} (${SCENARIOS.map((s) => s.id).join(', ')})`);
  return {
    quick,
    only,
    rounds,
    // Two rounds a process: ten rounds sample five processes of each contender (bench/http.ts).
    // A smoke run keeps one process each.
    roundsPerProcess: int('rounds-per-process', quick ? rounds : 2, 1),
    inProcessRounds: value('rounds') !== undefined ? rounds : quick ? 2 : 12,
    sliceMs: quick ? 30 : 150,
    durationSec: int('duration', quick ? 1 : 3, 1),
    // Long enough for the optimizing compiler to be done with the largest contender (the service):
    // what it compiles in a measured round would be charged to that round's requests.
    warmupSec: quick ? 1 : 3,
    idleMs: quick ? 200 : 1_000,
    clients: int('clients', quick ? 2_000 : 50_000, 1),
    scenarios,
    build: !argv.includes('--no-build'),
    // A smoke run never overwrites the figures of the last full run.
    out: value('out') ?? join(ROOT, 'bench', 'results', quick ? 'quick.json' : 'latest.json'),
  };
}

// --- build -------------------------------------------------------------------------------

function newest(dir: string, ext: RegExp): number {
  let t = 0;
  if (!existsSync(dir)) return t;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) t = Math.max(t, newest(path, ext));
    else if (ext.test(entry.name)) t = Math.max(t, statSync(path).mtimeMs);
  }
  return t;
}

/** dist/ is rebuilt (tsc + rollup) when a source is newer than dist/server.js. */
function ensureBuilt(build: boolean, log: (line: string) => void): void {
  const sources = Math.max(
    statSync(join(ROOT, 'server.ts')).mtimeMs,
    newest(join(ROOT, 'lib'), /\.ts$/),
    newest(join(ROOT, 'browser'), /\.(ts|html|css|svg)$/),
  );
  const built = existsSync(REAL_SERVER) ? statSync(REAL_SERVER).mtimeMs : 0;
  if (built >= sources) return;
  if (!build) {
    log(`warning: ${relative(ROOT, REAL_SERVER)} is older than the sources (--no-build given)`);
    return;
  }
  log('building dist/ (npm run build:dist) ...');
  const r = spawnSync('npm', ['run', 'build:dist', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm run build:dist failed');
}

// --- report ------------------------------------------------------------------------------

interface TargetResult {
  readonly target: string;
  readonly comparison: Comparison;
  readonly bound: number;
  readonly unit: 'x' | 'MB' | 'B' | 'ms' | '%';
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** The 95 % interval of the median, for a ratio of paired rounds. */
  readonly low?: number;
  readonly high?: number;
  readonly met: boolean;
}

function target(
  name: string,
  comparison: Comparison,
  bound: number,
  s: Summary | IntervalSummary,
  unit: TargetResult['unit'] = 'x',
): TargetResult {
  return {
    target: name,
    comparison,
    bound,
    unit,
    median: s.median,
    min: s.min,
    max: s.max,
    ...('low' in s ? { low: s.low, high: s.high } : {}),
    met: targetMet({ comparison, bound, value: s.median }),
  };
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '))
    .join('\n');
}

const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;
const mib = (bytes: number): string => (bytes / 1048576).toFixed(0);
const ms = (v: number): string => (v < 10 ? v.toFixed(2) : v.toFixed(1));
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

function printInProcess(results: readonly WorkloadResult[]): string {
  const rows: string[][] = [['workload / contender', 'cred/s (median)', 'project / it: median (min-max)']];
  for (const w of results) {
    rows.push([w.label, '', '']);
    for (const c of w.contenders)
      rows.push([`  ${c.name}`, formatCount(c.rate.median), c.projectRatio ? formatRatio(c.projectRatio) : '']);
  }
  return table(rows);
}

const CONTENDER_LABEL: Record<Contender, string> = {
  real: 'real (LOG_LEVEL=info)',
  'real-warn': 'real, LOG_LEVEL=warn',
  lean: 'lean limit (bench/lean-server.mjs)',
  fastify: 'Fastify 5 as a user builds it',
  bare: 'bare (fixed body)',
};

/** Per scenario: each contender's medians, then real / each peer with its 95 % interval. */
function printHttp(results: readonly ScenarioResult[]): string {
  const blocks: string[] = [];
  for (const s of results) {
    const title = `count=${s.count} c=${s.connections}${{ memory: '', redis: ', buckets on Redis', cluster: ', buckets on a Redis Cluster' }[s.store]} (${s.responseBytes} B reply)`;
    const rows: string[][] = [[title, 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'RSS MiB']];
    for (const c of ['real', ...PEERS] as Contender[]) {
      const side = s.sides[c];
      if (side === undefined) continue;
      rows.push([
        `  ${CONTENDER_LABEL[c]}`,
        formatCount(side.rps.median),
        ms(side.p50.median),
        ms(side.p99.median),
        side.cpuUsPerRequest.median.toFixed(1),
        mib(side.rssBytes.median),
      ]);
    }
    rows.push(['real / peer: median (95 % interval)', 'req/s', 'p50', 'p99', 'CPU per request', 'RSS']);
    for (const peer of PEERS) {
      const r = s.vs[peer];
      if (r === undefined) continue;
      rows.push([
        `  / ${CONTENDER_LABEL[peer]}`,
        formatInterval(r.rps),
        formatInterval(r.p50),
        formatInterval(r.p99),
        formatInterval(r.cpuPerRequest),
        formatInterval(r.rss),
      ]);
    }
    blocks.push(table(rows));
  }
  return blocks.join('\n\n');
}

function printStartup(r: StartupResult): string {
  return table([
    ['', 'real', 'bare', 'real / bare'],
    [
      'start-up to first GET /health 200 (ms)',
      ms(r.real.startup.median),
      ms(r.bare.startup.median),
      formatRatio(r.ratios.startup),
    ],
    ['idle RSS', mb(r.real.idleRss.median), mb(r.bare.idleRss.median), formatRatio(r.ratios.idleRss)],
    ['', 'npm start', 'real', 'npm start / real'],
    [
      'start-up to first GET /health 200 (ms)',
      ms(r.npmStart.startup.median),
      ms(r.real.startup.median),
      formatRatio(r.ratios.npmStartVsReal),
    ],
    ['idle RSS of the server process', mb(r.npmStart.idleRss.median), mb(r.real.idleRss.median), ''],
  ]);
}

function printClients(r: ClientsResult): string {
  const row = (name: string, s: ClientsResult['real']): string[] => [
    name,
    String(s.clients),
    Object.entries(s.statuses)
      .map(([k, v]) => `${k}:${v}`)
      .join(' ') + (s.failures > 0 ? ` failed:${s.failures}` : ''),
    `${s.seconds.toFixed(1)} s`,
    mb(s.rssBeforeBytes),
    mb(s.rssAfterBytes),
    mb(s.growthBytes),
    mb(s.rssSettledBytes - s.rssBeforeBytes),
  ];
  return (
    table([
      ['server', 'clients', 'statuses', 'time', 'RSS before', 'RSS after', 'growth', 'growth after 2 s idle'],
      row('real (limiter on, 20/min)', r.real),
      row('bare', r.bare),
    ]) +
    `\nrate limiter's own live heap for ${r.limiterHeap.buckets} buckets, keys included (dist RateLimiter, after full GC): ${mb(r.limiterHeap.bytes)} (${r.limiterHeap.bytesPerBucket.toFixed(0)} B/bucket) for keyed clients, ${mb(r.limiterHeapNoKey.bytes)} (${r.limiterHeapNoKey.bytesPerBucket.toFixed(0)} B/bucket) for keyless ones`
  );
}

function printSizes(r: SizesResult): string {
  const rows: string[][] = [['file', 'raw', 'gzip', 'before the word lists (7e99167): raw', 'gzip', 'change (gzip)']];
  const row = (name: string, key: string, f: { raw: number; gzip: number }) => {
    const before = BEFORE_WORD_LISTS[key];
    const change = before ? `${f.gzip >= before.gzip ? '+' : ''}${kb(f.gzip - before.gzip)}` : '';
    return [name, kb(f.raw), kb(f.gzip), before ? kb(before.raw) : '', before ? kb(before.gzip) : '', change];
  };
  for (const f of [...r.bundle, ...r.page]) rows.push(row(f.file, f.file, f));
  rows.push(row('home page total (html + css + app.js + service-api.js)', 'home page total', r.pageTotal));
  rows.push(row(`${r.singleFile.file} (the whole service)`, r.singleFile.file, r.singleFile));
  return table(rows);
}

function printMetrics(r: MetricsResult): string {
  return (
    table([
      ['count=1 c=32, LOG_LEVEL=info', 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req'],
      ...(['off', 'on'] as const).map((k) => [
        `metrics ${k}`,
        formatCount(r[k].rps.median),
        ms(r[k].p50.median),
        ms(r[k].p99.median),
        r[k].cpuUsPerRequest.median.toFixed(1),
      ]),
      ['on / off', formatRatio(r.ratios.rps, 3), '', '', formatRatio(r.ratios.cpuPerRequest, 3)],
    ]) + `\n${r.scrapes} scrapes of /metrics during the "on" runs (one a second), ${kb(r.expositionBytes)} each`
  );
}

function printInstructions(r: InstructionsResult): string {
  const k = (n: number) => `${(n / 1000).toFixed(1)} k`;
  const rows = [['count', 'threads', 'real', 'real-warn', 'lean', 'real / lean', 'real / real-warn']];
  for (const count of [1, 20]) {
    const of = (kind: string) => r.counts.find((c) => c.count === count && c.kind === kind)!;
    for (const [threads, pick] of [
      ['main', (c: InstructionCount) => c.mainThreadPerRequest],
      ['all', (c: InstructionCount) => c.perRequest],
    ] as const) {
      const real = pick(of('real'));
      const warn = pick(of('real-warn'));
      const lean = pick(of('lean'));
      rows.push([
        String(count),
        threads,
        k(real),
        k(warn),
        k(lean),
        `${(real / lean).toFixed(3)}x`,
        `${(real / warn).toFixed(3)}x`,
      ]);
    }
  }
  return table(rows);
}

function printTargets(targets: readonly TargetResult[]): string {
  const rows: string[][] = [['target', 'bound', 'median (min-max; 95 % interval)', 'met']];
  for (const t of targets) {
    const interval = t.low === undefined || t.high === undefined ? '' : `; ${t.low.toFixed(2)}-${t.high.toFixed(2)}`;
    const fig =
      t.unit === 'x'
        ? `${formatRatio({ median: t.median, min: t.min, max: t.max, n: 0 }).slice(0, -1)}${interval})`
        : `${t.unit === 'ms' ? t.median.toPrecision(3) : t.median.toFixed(1)} ${t.unit}`;
    rows.push([
      t.target,
      `${t.comparison} ${t.bound}${t.unit === 'x' ? 'x' : ` ${t.unit}`}`,
      fig,
      t.met ? 'yes' : 'NO',
    ]);
  }
  return table(rows);
}

/** The engine issue's targets: absolute CPU times on this machine where the issue gives them,
 * ratios against the old planner where it had the same spec. */
function engineTargets(r: EngineResult, targets: TargetResult[]): void {
  const one = (v: number): Summary => ({ median: v, min: v, max: v, n: 1 });
  const ms = (name: string) => r.requests.find((q) => q.name === name)!;
  targets.push(target('engine: default options, one plan', '<=', 0.1, one(ms('default options').nowMs), 'ms'));
  targets.push(target('engine: length 128 with symbols', '<=', 0.5, one(ms('length 128 with symbols').nowMs), 'ms'));
  const four = ms('four classes, each at least 4, length 32');
  targets.push(target('engine: four classes each at least 4, length 32', '<=', 10, one(four.nowMs), 'ms'));
  const fedex = ms('fedex.com at 128');
  targets.push(target('engine: fedex.com at 128 vs 2fb3ee0', '<=', 1, one(fedex.nowMs / (fedex.oldMs ?? NaN))));
  targets.push(target('engine: the corpus at every length vs 2fb3ee0', '<=', 1, one(r.corpus.nowMs / r.corpus.oldMs)));
  targets.push(target('engine: a plan at the budget, drawn 20 times', '<=', 25, one(r.atBudget.ms), 'ms'));
  targets.push(target('engine: the family served', '>=', 99, one(100 * r.family.servedShare), '%'));
  targets.push(target("engine: the family's slowest plan", '<=', 25, one(r.family.worstMs), 'ms'));
}

// --- main --------------------------------------------------------------------------------

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const started = new Date();
  const loadBefore = loadavg();
  // The runner (in-process work, the many-clients driver, the /health poller) and every load
  // generator it spawns stay on core 1; the servers are started on core 0.
  const pinnedSelf = pinSelf(1);
  if (!HAS_TASKSET) log('warning: taskset not found: nothing is pinned, figures mix server and load on both cores');
  const tool: LoadTool = HAS_WRK ? 'wrk' : 'autocannon';
  if (!HAS_WRK && options.only.has('http'))
    log('wrk not found (apt-get install wrk): using autocannon, which saturates sooner');
  ensureBuilt(options.build, log);

  const report: Record<string, unknown> = {};
  const targets: TargetResult[] = [];
  const printed: string[] = [];

  if (options.only.has('inprocess')) {
    log('in-process generation ...');
    // The built core, as dist/server.js runs it (tsx's CommonJS transform adds a getter to every
    // cross-module reference, which would tax the project and no peer).
    const built = (folder: string) => pathToFileURL(join(ROOT, 'dist', 'lib', folder, 'index.js')).href;
    const { generate } = (await import(built('request'))) as Pick<Core, 'generate'>;
    const { WORDLIST } = (await import(built('core'))) as Pick<Core, 'WORDLIST'>;
    const core: Core = { generate, WORDLIST };
    const r = runInProcess({ core, rounds: options.inProcessRounds, sliceMs: options.sliceMs, log });
    report.inProcess = r;
    printed.push(
      `1. In-process generation (credentials/s; ratio = project / contender, ${options.inProcessRounds} paired rounds of ${options.sliceMs} ms)\n${printInProcess(r)}`,
    );
    const ratio = (workload: string, contender: string): Summary =>
      r.find((w) => w.id === workload)!.contenders.find((c) => c.name === contender)!.projectRatio!;
    targets.push(
      target('in-process 24-char password vs generate-password', '>=', 4, ratio('password-24', 'generate-password')),
    );
    targets.push(
      target(
        'in-process 4-word passphrase vs generate-passphrase',
        '>=',
        4,
        ratio('passphrase-4', 'generate-passphrase'),
      ),
    );
  }
  if (options.only.has('http')) {
    log(`HTTP (${tool}) ...`);
    const r = await runHttp({
      rounds: options.rounds,
      roundsPerProcess: options.roundsPerProcess,
      durationSec: options.durationSec,
      warmupSec: options.warmupSec,
      scenarios: SCENARIOS.filter(
        (s) => s.store === 'memory' || (s.store === 'redis' ? HAS_REDIS : HAS_REDIS_CLUSTER),
      ).filter((s) => options.scenarios === null || options.scenarios.has(s.id)),
      tool,
      log,
    });
    report.http = {
      tool,
      durationSec: options.durationSec,
      rounds: options.rounds,
      roundsPerProcess: options.roundsPerProcess,
      scenarios: r,
    };
    printed.push(
      `2. HTTP POST /generate, the real built server and its peers (${tool}, ${options.rounds} paired rounds of ${options.durationSec} s, the order reversed every other round, ${options.roundsPerProcess >= options.rounds ? 'one process each' : `every contender a new process every ${options.roundsPerProcess} rounds`}; servers on core 0, ${tool} on core 1; RSS: the highest sampled during the load; medians, and real / peer as the median of the per-round ratios with its 95 % interval)\n${printHttp(r)}`,
    );
    // Issue 40's targets, at count=1 and count=20, 32 connections.
    for (const s of r) {
      if (s.connections !== 32 || s.store !== 'memory') continue;
      const at = `HTTP count=${s.count} c=32`;
      const { lean, fastify, bare } = s.vs;
      const warn = s.vs['real-warn'];
      if (lean !== undefined) {
        targets.push(target(`${at} req/s vs the lean limit`, '>=', 0.85, lean.rps));
        targets.push(target(`${at} CPU per request vs the lean limit`, '<=', 1.2, lean.cpuPerRequest));
      }
      if (fastify !== undefined)
        targets.push(target(`${at} req/s vs Fastify as a user builds it`, '>=', 1.2, fastify.rps));
      // The highest RSS sampled during each load run, paired with the bare server's.
      if (bare !== undefined) targets.push(target(`${at} RSS under load vs bare`, '<=', 1.2, bare.rss));
      if (warn !== undefined)
        targets.push(
          target(`${at} CPU per request, LOG_LEVEL info vs warn (the log line)`, '<=', 1.03, warn.cpuPerRequest),
        );
    }
  }
  if (options.only.has('startup')) {
    log('start-up and idle RSS ...');
    const r = await runStartup({ rounds: options.rounds, idleMs: options.idleMs, log });
    report.startup = r;
    printed.push(
      `3. Start-up and idle RSS (${options.rounds} paired rounds; RSS ${options.idleMs} ms after the first /health)\n${printStartup(r)}`,
    );
    targets.push(target('start-up to first /health vs bare', '<=', 1.5, r.ratios.startup));
    targets.push(target('idle RSS vs bare', '<=', 1.3, r.ratios.idleRss));
    targets.push(target('npm start to first /health vs node on the single file', '<=', 1.5, r.ratios.npmStartVsReal));
  }
  if (options.only.has('clients')) {
    log(`${options.clients} distinct client addresses ...`);
    const r = await runClients({ clients: options.clients, concurrency: 64, timeoutMs: 300_000, log });
    report.clients = r;
    printed.push(
      `4. Memory under ${options.clients} distinct loopback clients (one POST each, own connection)\n${printClients(r)}`,
    );
    // Beyond what the bare server grows under the same traffic (V8's heap and socket churn).
    const extra = (r.real.growthBytes - r.bare.growthBytes) / 1048576;
    const one = (v: number): Summary => ({ median: v, min: v, max: v, n: 1 });
    targets.push(
      target(`RSS growth after ${options.clients} clients, beyond the bare server's`, '<=', 10, one(extra), 'MB'),
    );
    targets.push(target('limiter state per tracked keyed client', '<=', 100, one(r.limiterHeap.bytesPerBucket), 'B'));
    targets.push(
      target('limiter state per tracked keyless client', '<=', 100, one(r.limiterHeapNoKey.bytesPerBucket), 'B'),
    );
  }
  if (options.only.has('metrics')) {
    log(`metrics on against off (${tool}) ...`);
    // Twice the rounds: a 3 % effect is small beside what a shared machine does to one round.
    const metricsRounds = 2 * options.rounds;
    const r = await runMetrics({
      rounds: metricsRounds,
      durationSec: options.durationSec,
      warmupSec: options.warmupSec,
      tool,
      log,
    });
    report.metrics = r;
    printed.push(
      `6. Metrics on (METRICS_PORT set, scraped every second) against off (${tool}, ${metricsRounds} paired rounds of ${options.durationSec} s; ratio = on / off)\n${printMetrics(r)}`,
    );
    targets.push(target('metrics on vs off, count=1 c=32 req/s', '>=', 0.97, r.ratios.rps));
    targets.push(target('metrics on vs off, count=1 c=32 CPU per request', '<=', 1.03, r.ratios.cpuPerRequest));
  }
  if (options.only.has('engine')) {
    log('the engine against the planner of 2fb3ee0 ...');
    const lines: string[] = [];
    const r = await runEngine(options.quick, (line) => {
      lines.push(line);
      log(line);
    });
    report.engine = r;
    printed.push(`7. The engine: plans in process, CPU time (bench/engine.ts)\n${lines.join('\n')}`);
    engineTargets(r, targets);
  }
  if (options.only.has('instructions')) {
    if (!HAS_VALGRIND) log('valgrind not found (apt-get install valgrind): no instruction counts');
    else {
      log('instructions per request under callgrind ...');
      const r = await runInstructions({ quick: options.quick, log });
      report.instructions = r;
      printed.push(
        `8. Instructions per POST /generate in user space, under valgrind's callgrind (the difference of ${r.requests.long} and ${r.requests.short} requests after ${r.requests.warmUp} of warm-up; bench/instructions.ts)\n${printInstructions(r)}`,
      );
    }
  }
  if (options.only.has('sizes')) {
    const r = runSizes();
    report.sizes = r;
    printed.push(`5. Browser bundle, home page and the single file\n${printSizes(r)}`);
  }

  const loadAfter = loadavg();
  const machine = {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryBytes: totalmem(),
    taskset: HAS_TASKSET,
    runnerPinnedToCore1: pinnedSelf,
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadAfter,
  };
  const gitRev =
    spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() ?? '';
  const finished = new Date();
  const json = {
    date: started.toISOString(),
    seconds: (finished.getTime() - started.getTime()) / 1000,
    git: gitRev,
    quick: options.quick,
    machine,
    targets,
    ...report,
  };
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(json, null, 2)}\n`);

  const header =
    `Benchmark ${started.toISOString()} (${json.seconds.toFixed(0)} s${options.quick ? ', --quick: smoke figures only' : ''}), git ${gitRev}, node ${process.version}, ` +
    `${machine.cpus} cores, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before / ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after`;
  process.stdout.write(
    `\n${header}\n\n${printed.join('\n\n')}\n\nTargets (median of paired per-round ratios)\n${printTargets(targets)}\n\nwritten to ${relative(process.cwd(), options.out)}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
