/**
 * Section 8: user-space instructions per POST /generate, the real single file against the lean
 * limit (bench/lean-server.mjs) and against itself at LOG_LEVEL=warn (what the request log line
 * executes), counted by valgrind's callgrind: over every thread of the server, and on its main
 * thread alone.
 *
 * Why counts beside section 2's CPU times: on a shared two-core machine one round's CPU time
 * moves with whatever else runs, so a change of a few per cent shows only over many paired
 * rounds, if at all, while the instructions the same build executes for the same requests repeat
 * closely (docs/benchmark.md, The fifth pass). What they leave out: the kernel's share (the
 * socket writes, the same for both servers) and how fast the instructions run (cache misses, and
 * the real server's code is larger). So they locate a cost and show that a change removed it;
 * section 2's times stay the figures of record.
 *
 * Each contender runs twice under callgrind: start-up, a warm-up long enough for V8 to have
 * compiled what the requests run, then a short or a long run of requests (RUNS); the difference
 * of the two totals over the difference of the runs' requests is the count per request, with the
 * start-up, the compiler's warm-up and the shutdown cancelled out. The load is a keep-alive
 * client in this process with CONNECTIONS connections (under valgrind the server is far too slow
 * for a saturating load to mean anything).
 *
 * Why the main thread apart: it runs every request (node's HTTP, the program's JavaScript, and the
 * young generation's collections). The other threads are V8's helpers: the optimizing compiler
 * and the old generation's concurrent marking and sweeping. Under valgrind their work is spread
 * over far more requests than natively, and how much of it falls between the two runs' ends
 * differs from run to run and between the contenders (docs/benchmark.md, The sixth pass), so the
 * main thread's count is the steadier measure of a request's own work, and the whole count shows
 * what the helpers add in that window.
 * @module
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MAX_RATE_LIMIT_PER_MINUTE } from '../lib/service/limits.ts';
import { hasCommand, startServer, type ServerKind } from './procs.ts';

export const HAS_VALGRIND = hasCommand('valgrind');

/** Requests of each run, and of a --quick run: a smoke test of the section, whose warm-up is too
 * short for V8 to finish compiling, so its counts are mostly the compiler's and not a figure. */
const RUNS = { warmUp: 20_000, short: 1000, long: 6000 } as const;
const QUICK_RUNS = { warmUp: 1000, short: 200, long: 700 } as const;
const CONNECTIONS = 4;

/** The contenders: the single file at its default LOG_LEVEL=info, the same at warn (the request
 * log line's own count is real minus real-warn), and the lean limit (which logs at info as the
 * service does). */
export type CountedKind = 'real' | 'real-warn' | 'lean';
const CONTENDERS: readonly { kind: CountedKind; server: ServerKind; logLevel: 'info' | 'warn' }[] = [
  { kind: 'real', server: 'real', logLevel: 'info' },
  { kind: 'real-warn', server: 'real', logLevel: 'warn' },
  { kind: 'lean', server: 'lean', logLevel: 'info' },
];

export interface InstructionCount {
  readonly kind: CountedKind;
  readonly count: 1 | 20;
  /** Instructions per request: (long run - short run) / (its requests - the short run's). */
  readonly perRequest: number;
  /** The same, on the main thread only. */
  readonly mainThreadPerRequest: number;
}

export interface InstructionsResult {
  readonly requests: { readonly warmUp: number; readonly short: number; readonly long: number };
  readonly counts: readonly InstructionCount[];
}

/** `n` POSTs of `body`, CONNECTIONS at a time over keep-alive connections; every one must be a 200. */
async function post(url: string, apiKey: string, body: string, n: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const { hostname, port } = new URL(url);
  let sent = 0;
  const one = (retries = 3): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: hostname,
          port,
          method: 'POST',
          path: '/generate',
          agent,
          headers: {
            'Content-Type': 'application/json',
            'X-Api-Key': apiKey,
            'Content-Length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) resolve();
            else reject(new Error(`POST /generate answered ${res.statusCode}`));
          });
        },
      );
      // A connection reset before any reply: seen once under valgrind (a --quick run), most
      // likely a keep-alive connection the server closed as it was reused. Sent again, at most
      // three times; a server that is gone fails the next try.
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (retries > 0 && (error.code === 'ECONNRESET' || error.code === 'EPIPE'))
          one(retries - 1).then(resolve, reject);
        else reject(error);
      });
      req.end(body);
    });
  const lane = async (): Promise<void> => {
    while (sent < n) {
      sent++;
      await one();
    }
  };
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, lane));
  } finally {
    agent.destroy();
  }
}

/** Instructions of one process over all its threads, and on its main thread. */
export interface Totals {
  readonly all: number;
  readonly main: number;
}

/** The totals of one process's callgrind files (`--separate-threads=yes`: callgrind.<pid>-<thread>,
 * thread 01 the main thread, beside an empty callgrind.<pid>). */
export function callgrindTotals(kind: string, files: readonly { name: string; text: string }[]): Totals {
  let all = 0;
  let main: number | null = null;
  for (const { name, text } of files) {
    if (!/-\d+$/.test(name)) continue;
    const m = /^totals:\s*(\d+)/m.exec(text);
    if (m === null) throw new Error(`${name}: no totals line (did valgrind finish?)`);
    all += Number(m[1]);
    if (name.endsWith('-01')) main = Number(m[1]);
  }
  if (all === 0 || main === null) throw new Error(`${kind}: callgrind wrote no count of the main thread`);
  return { all, main };
}

/** The instructions of one server process: start-up, `requests` requests, shutdown. */
async function totalInstructions(
  kind: ServerKind,
  logLevel: 'info' | 'warn',
  count: number,
  requests: number,
  apiKey: string,
  cpu: number,
): Promise<Totals> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-callgrind-'));
  try {
    const server = startServer({
      kind,
      cpu,
      apiKey,
      rateLimitPerMinute: MAX_RATE_LIMIT_PER_MINUTE,
      logLevel,
      under: [
        'valgrind',
        '--tool=callgrind',
        '--vgdb=no',
        // V8 writes its compiled code into memory it then runs: valgrind must see every write.
        '--smc-check=all-non-file',
        // One file per thread, callgrind.<pid>-<thread>: thread 1 is the main thread.
        '--separate-threads=yes',
        `--callgrind-out-file=${join(dir, 'callgrind.%p')}`,
      ],
      startTimeoutMs: 180_000,
    });
    try {
      const url = await server.listening;
      await post(url, apiKey, JSON.stringify({ mode: 'password', count }), requests);
    } finally {
      await server.stop();
    }
    return callgrindTotals(
      kind,
      readdirSync(dir).map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') })),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runInstructions(options: {
  quick: boolean;
  log: (line: string) => void;
}): Promise<InstructionsResult> {
  const runs = options.quick ? QUICK_RUNS : RUNS;
  const apiKey = `bench-${randomBytes(16).toString('hex')}`;
  const counts: InstructionCount[] = [];
  for (const count of [1, 20] as const) {
    for (const { kind, server, logLevel } of CONTENDERS) {
      options.log(`  callgrind: ${kind}, count=${count} ...`);
      // The two runs of a contender at once, one a core: what runs beside does not change a count.
      const [short, long] = await Promise.all([
        totalInstructions(server, logLevel, count, runs.warmUp + runs.short, apiKey, 1),
        totalInstructions(server, logLevel, count, runs.warmUp + runs.long, apiKey, 0),
      ]);
      const extra = runs.long - runs.short;
      counts.push({
        kind,
        count,
        perRequest: (long.all - short.all) / extra,
        mainThreadPerRequest: (long.main - short.main) / extra,
      });
    }
  }
  return { requests: runs, counts };
}
