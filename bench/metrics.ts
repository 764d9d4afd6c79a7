/**
 * Section 6: what the metrics cost. The real built server with METRICS_PORT set against the
 * same server without it, both pinned to core 0 and running in turn (order alternating by
 * round); the load generator (count=1, 32 connections, the default LOG_LEVEL=info) and a
 * scraper that asks for /metrics every second (Prometheus asks every 15 s by default) on
 * core 1. The figures are the per-round ratios on / off of req/s and of server CPU per request;
 * the target is at most 3 % apart.
 * @module
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { MAX_RATE_LIMIT_PER_MINUTE } from '../lib/service/limits.ts';
import { measured, side, type LoadTool, type SideResult } from './http.ts';
import { pinned, startServer, type ServerProcess } from './procs.ts';
import { pairedRatios, roundOrder, summarize, type Summary } from './stats.ts';

export interface MetricsOptions {
  readonly rounds: number;
  readonly durationSec: number;
  readonly warmupSec: number;
  readonly tool: LoadTool;
  readonly log: (line: string) => void;
}

export interface MetricsResult {
  readonly on: SideResult;
  readonly off: SideResult;
  /** Scrapes of /metrics during the measured runs, and the size of the last one. */
  readonly scrapes: number;
  readonly expositionBytes: number;
  /** on / off, per round. */
  readonly ratios: { readonly rps: Summary; readonly cpuPerRequest: Summary };
}

/** The scraper's program: GET the URL every second, print each answer's size. */
const SCRAPER = `
const url = process.argv[1];
setInterval(async () => {
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== 200) throw new Error('/metrics answered ' + res.status);
  process.stdout.write(body.length + '\\n');
}, 1000);
`;

/**
 * Asks `url` every second until stopped, from a process of its own on core 1, as Prometheus
 * would. Not from this runner: the runner drains the servers' log pipes, and a server's stdout
 * to a pipe is synchronous on Linux, so work added to the runner during one side's runs only
 * could slow that side's writes; this keeps the runner's work the same for both sides.
 */
function scraper(url: string): { stop(): Promise<{ scrapes: number; bytes: number }> } {
  const [command, args] = pinned(1, process.execPath, ['-e', SCRAPER, url]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      const sizes = out.split('\n').filter((l) => l !== '');
      return { scrapes: sizes.length, bytes: Number(sizes.at(-1) ?? 0) };
    },
  };
}

export async function runMetrics(options: MetricsOptions): Promise<MetricsResult> {
  const apiKey = `bench-${randomBytes(16).toString('hex')}`;
  const common = {
    kind: 'real',
    cpu: 0,
    apiKey,
    rateLimitPerMinute: MAX_RATE_LIMIT_PER_MINUTE,
    logLevel: 'info',
  } as const;
  const servers: ServerProcess[] = [];
  try {
    const off = startServer(common);
    servers.push(off);
    const on = startServer({ ...common, env: { METRICS_PORT: '0' } });
    servers.push(on);
    const [offUrl, onUrl] = await Promise.all([off.listening, on.listening]);
    const metricsUrl = /"metrics":"(http:\/\/[^"]+)"/.exec(on.head())?.[1];
    if (metricsUrl === undefined) throw new Error(`no metrics URL in the start line:\n${on.head()}`);
    const targets = [
      { name: 'off' as const, server: off, url: `${offUrl}/generate` },
      { name: 'on' as const, server: on, url: `${onUrl}/generate` },
    ];
    const run = (t: (typeof targets)[number], seconds: number) =>
      measured(options.tool, t.server, t.url, apiKey, 1, 32, seconds);
    for (const t of targets) await run(t, options.warmupSec);
    const perRound: Record<'on' | 'off', Awaited<ReturnType<typeof run>>[]> = { on: [], off: [] };
    let scrapes = 0;
    let exposition = 0;
    for (let round = 0; round < options.rounds; round++) {
      for (const t of roundOrder(targets, round)) {
        const scraping = t.name === 'on' ? scraper(metricsUrl) : null;
        perRound[t.name].push(await run(t, options.durationSec));
        const done = await scraping?.stop();
        if (done !== undefined) {
          scrapes += done.scrapes;
          exposition = done.bytes;
        }
      }
    }
    options.log('  metrics on/off: done');
    return {
      on: side(perRound.on),
      off: side(perRound.off),
      scrapes,
      expositionBytes: exposition,
      ratios: {
        rps: summarize(
          pairedRatios(
            perRound.on.map((x) => x.rps),
            perRound.off.map((x) => x.rps),
          ),
        ),
        cpuPerRequest: summarize(
          pairedRatios(
            perRound.on.map((x) => x.cpuUsPerRequest),
            perRound.off.map((x) => x.cpuUsPerRequest),
          ),
        ),
      },
    };
  } finally {
    for (const s of servers) await s.stop();
  }
}
