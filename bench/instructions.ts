/**
 * Section 8: user-space instructions per POST /generate, the real single file against the lean
 * limit (bench/lean-server.mjs), counted by valgrind's callgrind over every thread of the server.
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
const RUNS = { warmUp: 6000, short: 1000, long: 6000 } as const;
const QUICK_RUNS = { warmUp: 1000, short: 200, long: 700 } as const;
const CONNECTIONS = 4;

export interface InstructionCount {
  readonly kind: ServerKind;
  readonly count: 1 | 20;
  /** Instructions per request: (long run - short run) / (its requests - the short run's). */
  readonly perRequest: number;
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

/** The instructions of one server process: start-up, `requests` requests, shutdown. */
async function totalInstructions(
  kind: ServerKind,
  count: number,
  requests: number,
  apiKey: string,
  cpu: number,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-callgrind-'));
  try {
    const server = startServer({
      kind,
      cpu,
      apiKey,
      rateLimitPerMinute: MAX_RATE_LIMIT_PER_MINUTE,
      logLevel: 'info',
      under: [
        'valgrind',
        '--tool=callgrind',
        '--vgdb=no',
        // V8 writes its compiled code into memory it then runs: valgrind must see every write.
        '--smc-check=all-non-file',
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
    let total = 0;
    for (const file of readdirSync(dir)) {
      const m = /^totals:\s*(\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
      if (m === null) throw new Error(`${file}: no totals line (did valgrind finish?)`);
      total += Number(m[1]);
    }
    if (total === 0) throw new Error(`${kind}: callgrind wrote nothing`);
    return total;
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
    for (const kind of ['real', 'lean'] as const) {
      options.log(`  callgrind: ${kind}, count=${count} ...`);
      // The two runs of a contender at once, one a core: what runs beside does not change a count.
      const [short, long] = await Promise.all([
        totalInstructions(kind, count, runs.warmUp + runs.short, apiKey, 1),
        totalInstructions(kind, count, runs.warmUp + runs.long, apiKey, 0),
      ]);
      counts.push({ kind, count, perRequest: (long - short) / (runs.long - runs.short) });
    }
  }
  return { requests: runs, counts };
}
