/**
 * Child processes of the benchmark: the real built server (the single file,
 * dist/credential-generator.mjs), the bare baseline, the lean limit and the Fastify peer, each pinned to one core
 * with taskset when it is there; their CPU time and RSS from /proc; a free port; a bounded GET.
 * Every process started here is stopped here, by PID.
 * @module
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuTicksOfStat, rssOfStatus } from './stats.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** What an operator runs: the single file (npm run build writes it). */
export const REAL_SERVER = join(ROOT, 'dist', 'credential-generator.mjs');
export const BARE_SERVER = join(ROOT, 'bench', 'bare-server.mjs');
/** What a user would build: Fastify 5 and npm packages (bench/fastify-peer.mjs). */
export const FASTIFY_PEER = join(ROOT, 'bench', 'fastify-peer.mjs');
/** The leanest node:http server doing the same contract work (bench/lean-server.mjs). */
export const LEAN_SERVER = join(ROOT, 'bench', 'lean-server.mjs');

/** Variables of the server's configuration (and of node) that must never leak from the
 * runner's environment into a measured process. */
const SCRUBBED = [
  'PORT',
  'HOST',
  'API_KEYS_FILE',
  'API_KEY',
  'RATE_LIMIT_PER_MINUTE',
  'RATE_LIMIT_REDIS_URL',
  'RATE_LIMIT_REDIS_PASSWORD_FILE',
  'RATE_LIMIT_REDIS_PREFIX',
  'RATE_LIMIT_REDIS_TIMEOUT_MS',
  'MIN_ENTROPY_BITS',
  'TRUST_PROXY_HOPS',
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'LOG_LEVEL',
  'METRICS_PORT',
  'METRICS_HOST',
  'NODE_OPTIONS',
  'NODE_V8_COVERAGE',
  'BARE_BODIES',
];

export function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

export const HAS_TASKSET = hasCommand('taskset');

/** Pins this process (every thread) to `cpu`; false if taskset is missing or refuses. */
export function pinSelf(cpu: number): boolean {
  if (!HAS_TASKSET) return false;
  return spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(process.pid)], { stdio: 'ignore' }).status === 0;
}

/** `[command, ...args]` run on `cpu` (or unpinned without taskset). taskset execs the
 * command, so the child's PID is the command's own. */
export function pinned(cpu: number | null, command: string, args: readonly string[]): [string, string[]] {
  if (cpu === null || !HAS_TASKSET) return [command, [...args]];
  return ['taskset', ['-c', String(cpu), command, ...args]];
}

export function cpuTicks(pid: number): number {
  return cpuTicksOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

export function rss(pid: number): number {
  return rssOfStatus(readFileSync(`/proc/${pid}/status`, 'utf8'));
}

/** Clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on Linux). */
export const CLOCK_TICKS = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(out.stdout?.trim());
  return Number.isInteger(n) && n > 0 ? n : 100;
})();

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** real: `node dist/credential-generator.mjs`; bare: the minimal node:http server; lean: the
 * lean limit; fastify: the Fastify 5 peer; npm-start: the same single file started by `npm
 * start` (npm, then node exec'd in place of sh). */
export type ServerKind = 'real' | 'bare' | 'lean' | 'fastify' | 'npm-start';

/** The script of each kind but the real server's. */
const PEER_SCRIPTS: Partial<Record<ServerKind, string>> = {
  bare: BARE_SERVER,
  fastify: FASTIFY_PEER,
  lean: LEAN_SERVER,
};

export interface ServerOptions {
  readonly kind: ServerKind;
  readonly cpu: number | null;
  readonly port?: number;
  readonly apiKey?: string;
  readonly rateLimitPerMinute?: number;
  readonly logLevel?: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  /** For the bare server: path -> body size in bytes. */
  readonly bareBodies?: Record<string, number>;
  /** More environment variables (e.g. RATE_LIMIT_REDIS_URL). */
  readonly env?: Readonly<Record<string, string>>;
  /** For the real server: another single file in place of dist's (bench/builds.ts). */
  readonly script?: string;
  /** A command the server runs under, with its arguments (bench/instructions.ts: valgrind). */
  readonly under?: readonly string[];
  /** How long the server may take to print its URL (default 20 s). */
  readonly startTimeoutMs?: number;
}

export interface ServerProcess {
  readonly kind: ServerKind;
  readonly pid: number;
  /** performance.now() just before spawn. */
  readonly spawnedAt: number;
  /** Resolves with the URL from the listening line. */
  readonly listening: Promise<string>;
  /** Bytes the process wrote to stdout (all of it is read and dropped: a full pipe would stall it). */
  stdoutBytes(): number;
  /** The first 4 KB of output, for error messages. */
  head(): string;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
});

let keysDir: string | null = null;

/** A private (0700) directory with no key file: the server trusts a key file's directory only
 * if no one else can write it, so a path straight in /tmp would stop the start. */
function noKeysDir(): string {
  keysDir ??= mkdtempSync(join(tmpdir(), 'bench-no-keys-'));
  return keysDir;
}
process.on('exit', () => {
  if (keysDir !== null) rmSync(keysDir, { recursive: true, force: true });
});

export function startServer(options: ServerOptions): ServerProcess {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !SCRUBBED.includes(name)) env[name] = value;
  env.PORT = String(options.port ?? 0);
  env.HOST = '127.0.0.1';
  env.LOG_LEVEL = options.logLevel ?? 'silent';
  // A path that does not exist: a keys.json in the working tree must not change the figures.
  env.API_KEYS_FILE = join(noKeysDir(), 'keys.json');
  if (options.apiKey !== undefined) env.API_KEY = options.apiKey;
  if (options.rateLimitPerMinute !== undefined) env.RATE_LIMIT_PER_MINUTE = String(options.rateLimitPerMinute);
  if (options.bareBodies !== undefined) env.BARE_BODIES = JSON.stringify(options.bareBodies);
  Object.assign(env, options.env ?? {});

  const script = PEER_SCRIPTS[options.kind] ?? options.script ?? REAL_SERVER;
  if (!existsSync(script)) throw new Error(`${script} is missing (run npm run build)`);
  const [command, args] =
    options.kind === 'npm-start'
      ? pinned(options.cpu, 'npm', ['start', '--silent'])
      : options.under !== undefined
        ? pinned(options.cpu, options.under[0], [...options.under.slice(1), process.execPath, script])
        : pinned(options.cpu, process.execPath, [script]);
  const spawnedAt = performance.now();
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let head = '';
  let bytes = 0;
  let pending = '';
  let resolveUrl: (url: string) => void;
  let rejectUrl: (error: Error) => void;
  const listening = new Promise<string>((resolve, reject) => {
    resolveUrl = resolve;
    rejectUrl = reject;
  });
  let found = false;
  const onChunk = (chunk: Buffer): void => {
    bytes += chunk.length;
    if (head.length < 4096) head += chunk.toString('utf8').slice(0, 4096 - head.length);
    if (found) return;
    pending += chunk.toString('utf8');
    const m = /"url":"(http:\/\/[^"]+)"/.exec(pending);
    if (m !== null) {
      found = true;
      pending = '';
      resolveUrl(m[1]);
    }
  };
  child.stdout.on('data', onChunk);
  child.stderr.on('data', (chunk: Buffer) => {
    if (head.length < 4096) head += chunk.toString('utf8').slice(0, 4096 - head.length);
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      if (!found) rejectUrl(new Error(`${options.kind} server exited (${code ?? signal}) before listening:\n${head}`));
      resolve();
    });
  });
  const startTimeoutMs = options.startTimeoutMs ?? 20_000;
  const timer = setTimeout(() => {
    if (!found)
      rejectUrl(new Error(`${options.kind} server did not print its URL within ${startTimeoutMs / 1000} s:\n${head}`));
  }, startTimeoutMs);
  void listening.finally(() => clearTimeout(timer)).catch(() => {});

  let stopping: Promise<void> | null = null;
  return {
    kind: options.kind,
    pid: child.pid!,
    spawnedAt,
    listening,
    stdoutBytes: () => bytes,
    head: () => head,
    stop() {
      if (stopping !== null) return stopping;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      stopping = exited.finally(() => clearTimeout(killer));
      return stopping;
    },
  };
}

export interface HttpReply {
  readonly status: number;
  readonly body: Buffer;
}

/** One request on a fresh connection, bounded by `timeoutMs`. */
export function httpRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    localAddress?: string;
    timeoutMs?: number;
  } = {},
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: false,
        localAddress: options.localAddress,
        timeout: options.timeoutMs ?? 5_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout after ${options.timeoutMs ?? 5_000} ms: ${url}`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
