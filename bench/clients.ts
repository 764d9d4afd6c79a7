/**
 * Section 4: memory under many clients. One POST /generate from each of N distinct loopback
 * source addresses (localAddress 127.x.y.z; Linux routes all of 127/8 to lo), each on its
 * own connection, against the real server with the rate limiter on at its default limit,
 * so every address gets a bucket. RSS is read before (after a warm-up from other addresses)
 * and after; the bare server takes the same traffic for context (what node:http's own socket
 * churn costs).
 * @module
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { httpRequest, ROOT, rss, sleep, startServer, type ServerKind } from './procs.ts';
import { loopbackAddress } from './stats.ts';

export interface ClientsOptions {
  readonly clients: number;
  readonly concurrency: number;
  /** Wall-clock bound for one pass. */
  readonly timeoutMs: number;
  readonly log: (line: string) => void;
}

export interface ClientsSide {
  readonly clients: number;
  readonly statuses: Record<string, number>;
  readonly failures: number;
  readonly seconds: number;
  readonly rssBeforeBytes: number;
  readonly rssAfterBytes: number;
  /** After 2 s idle: what stays. */
  readonly rssSettledBytes: number;
  readonly growthBytes: number;
}

export interface LimiterHeap {
  readonly buckets: number;
  readonly bytes: number;
  readonly bytesPerBucket: number;
}

export interface ClientsResult {
  readonly real: ClientsSide;
  readonly bare: ClientsSide;
  /** The limiter's own live heap for as many buckets, keys included, after a full GC (in a
   * child process): keyed clients' own buckets, and keyless clients' buckets. */
  readonly limiterHeap: LimiterHeap;
  readonly limiterHeapNoKey: LimiterHeap;
}

/**
 * Live heap of dist's RateLimiter holding `n` buckets keyed as the server keys them, key strings
 * included (once a client's connection is gone the limiter is all that holds them): `own` is a
 * keyed client's bucket, keyed by the address string as node:net hands it over (one flat string,
 * made here by a latin1 round trip, since `'127.' + x + ...` would build a chain of pointers the
 * server never holds); `noKey` is a keyless client's bucket under the key LocalLimits builds.
 */
function limiterHeap(n: number, kind: 'own' | 'noKey'): LimiterHeap {
  const dist = (path: string): string =>
    JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'lib', 'rate-limit', path)).href);
  const script = `
    const { RateLimiter } = await import(${dist('token-bucket.js')});
    const { noKeyBucket } = await import(${dist('client-limits.js')});
    const l = new RateLimiter({ perMinute: 20, sweepIntervalMs: 0 });
    for (let i = 0; i < 4; i++) gc();
    const h0 = process.memoryUsage().heapUsed;
    for (let n = 0; n < ${n}; n++) {
      const z = (n % 254) + 1, y = Math.floor(n / 254) % 256, x = Math.floor(n / 254 / 256) + 1;
      const address = Buffer.from('127.' + x + '.' + y + '.' + z, 'latin1').toString('latin1');
      l.consume(${kind === 'own' ? 'address' : 'noKeyBucket(address)'});
    }
    for (let i = 0; i < 4; i++) gc();
    process.stdout.write(JSON.stringify({ buckets: l.size, bytes: process.memoryUsage().heapUsed - h0 }));`;
  const out = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (out.status !== 0) throw new Error(`limiter heap probe failed: ${out.stderr}`);
  const r = JSON.parse(out.stdout) as { buckets: number; bytes: number };
  return { ...r, bytesPerBucket: r.bytes / r.buckets };
}

const WARMUP_CLIENTS = 2_000;
/** Warm-up addresses come from the far end of the range, never used by the measured pass. */
const WARMUP_OFFSET = 10_000_000;

async function pass(kind: ServerKind, options: ClientsOptions): Promise<ClientsSide> {
  const apiKey = `bench-${randomBytes(16).toString('hex')}`;
  const server = startServer({ kind, cpu: 0, apiKey, logLevel: 'silent', bareBodies: { '/generate': 312 } });
  try {
    const url = `${await server.listening}/generate`;
    const body = JSON.stringify({ mode: 'password' });
    const headers = { 'Content-Type': 'application/json', 'X-Api-Key': apiKey, Connection: 'close' };
    const statuses: Record<string, number> = {};
    let failures = 0;

    const drive = async (first: number, n: number, deadline: number): Promise<void> => {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < n) {
          if (performance.now() > deadline) throw new Error(`many-clients pass exceeded ${options.timeoutMs} ms`);
          const i = next++;
          try {
            const reply = await httpRequest(url, {
              method: 'POST',
              headers,
              body,
              localAddress: loopbackAddress(first + i),
              timeoutMs: 10_000,
            });
            statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
          } catch {
            failures++;
          }
        }
      };
      await Promise.all(Array.from({ length: options.concurrency }, worker));
    };

    const start = performance.now();
    await drive(WARMUP_OFFSET, WARMUP_CLIENTS, start + options.timeoutMs);
    for (const key of Object.keys(statuses)) delete statuses[key];
    failures = 0;
    await sleep(500);
    const before = rss(server.pid);
    const t0 = performance.now();
    await drive(0, options.clients, t0 + options.timeoutMs);
    const seconds = (performance.now() - t0) / 1000;
    const after = rss(server.pid);
    await sleep(2_000);
    const settled = rss(server.pid);
    return {
      clients: options.clients,
      statuses,
      failures,
      seconds,
      rssBeforeBytes: before,
      rssAfterBytes: after,
      rssSettledBytes: settled,
      growthBytes: after - before,
    };
  } finally {
    await server.stop();
  }
}

export async function runClients(options: ClientsOptions): Promise<ClientsResult> {
  const real = await pass('real', options);
  options.log('  many clients (real): done');
  const bare = await pass('bare', options);
  options.log('  many clients (bare): done');
  return {
    real,
    bare,
    limiterHeap: limiterHeap(options.clients, 'own'),
    limiterHeapNoKey: limiterHeap(options.clients, 'noKey'),
  };
}
