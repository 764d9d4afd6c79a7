/**
 * Starts the real server (`node server.ts`, TypeScript loaded as the tests load it) as a child
 * process on a free port and stops it with SIGTERM, so its graceful exit writes V8 coverage for
 * c8 (the child inherits NODE_V8_COVERAGE). Configuration variables of the parent environment are NOT
 * passed on; each test says what it wants.
 *
 *   const server = await startServer({ apiKey: 'test-key-0123456789' });
 *   const res = await fetch(`${server.url}/health`);
 *   const { code } = await server.stop(); // 0 after a clean shutdown
 *   server.output(); // everything the server printed, stdout and stderr interleaved
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CONNECTION_CAPS } from '../../lib/http/connection-caps.ts';

/** The repository root (this file is tests/helpers/server.ts). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SERVER = join(ROOT, 'server.ts');
/** How the child loads TypeScript: as the tests themselves do (Node's type stripping where the
 * line has it, else tsx), so that coverage of the same file from both processes is of the same
 * code and merges. Absolute, so the child can run with any working directory. */
const TS_LOADER = import.meta.resolve('./typescript.mjs');
const STEPPED_CLOCK = import.meta.resolve('./stepped-clock.mjs');

/**
 * How long a wait for the server may take before the test fails. Each only bounds a failure (a
 * server that never starts, a line that never comes, an exit that never happens): a correct
 * server ends the wait as soon as it gets there, so they are set for a machine at load average
 * 20 or more: at load 25, nine starts at once (hardening.test.ts) took over 15 s where each
 * takes under a second idle.
 */
const START_TIMEOUT_MS = 60_000;
const OUTPUT_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 60_000;

/** The variables the server reads; never inherited from the test runner's environment. */
const CONFIG_VARS = [
  'PORT',
  'HOST',
  'API_KEYS_FILE',
  'API_KEY',
  'RATE_LIMIT_PER_MINUTE',
  'MIN_ENTROPY_BITS',
  'POLICIES_FILE',
  'RATE_LIMIT_REDIS_URL',
  'RATE_LIMIT_REDIS_CLUSTER_NODES',
  'RATE_LIMIT_REDIS_SENTINELS',
  'RATE_LIMIT_REDIS_SENTINEL_MASTER',
  'RATE_LIMIT_REDIS_PASSWORD_FILE',
  'RATE_LIMIT_REDIS_PREFIX',
  'RATE_LIMIT_REDIS_TIMEOUT_MS',
  'TRUST_PROXY_HOPS',
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'LOG_LEVEL',
  'METRICS_PORT',
  'METRICS_HOST',
  'MAX_CONNECTIONS',
  'MAX_CONNECTIONS_PER_ADDRESS',
];

export interface StartOptions {
  /** Extra or overriding environment variables; a value of undefined removes one. */
  env?: Record<string, string | undefined>;
  /** Sets API_KEY (the single plain key; 16 to 256 printable characters). */
  apiKey?: string;
  /** Sets API_KEYS_FILE. Default: a path in a fresh temp dir that does not exist, so a
   * keys.json in the repository never leaks into a test. Pass null to leave it unset (the
   * server then uses keys.json in `cwd`). */
  keysFile?: string | null;
  /** Sets RATE_LIMIT_PER_MINUTE (default: the server's 20). */
  rateLimitPerMinute?: number;
  /** Default 'info' (one JSON line per request, handy for the no-secret-in-logs checks). */
  logLevel?: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  /** Working directory of the server process. Default: the repository root. */
  cwd?: string;
  /** How long to wait for the listening line. Default 60 s (only a failure waits that long). */
  startTimeoutMs?: number;
  /** The program and its arguments, instead of `node server.ts` with the tests' loader (e.g. the
   * single file, or `npm start`). Such a child gets no NODE_V8_COVERAGE: its code is not lib/'s. */
  command?: readonly [string, ...string[]];
  /** Run as this user (the test must be root). Also drops NODE_V8_COVERAGE, whose directory
   * the other user could not write. */
  user?: { uid: number; gid: number };
  /** Run the server on a clock the test steps (tests/helpers/stepped-clock.mjs): its
   * performance.now() stands still until `setClock` moves it. Not with `command`. */
  steppedClock?: boolean;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A server listening: a launched one, and where it answers. */
export interface RunningServer extends LaunchedServer {
  /** e.g. http://127.0.0.1:43121 (https://... with TLS). */
  url: string;
  port: number;
  /** Where GET /metrics answers (METRICS_PORT set), else null. */
  metricsUrl: string | null;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A random API_KEY value that passes the server's checks. */
export function randomApiKey(): string {
  return `test-${randomBytes(18).toString('hex')}`;
}

/** A spawned server process that may or may not get as far as listening. */
export interface LaunchedServer {
  pid: number;
  /** Everything printed so far, stdout and stderr interleaved in arrival order (a closure:
   * safe to pass around detached). */
  output: () => string;
  /** Resolves with the output once `pattern` matches it, or the part of it from offset `from`
   * on (an earlier `output().length`, to wait for a line printed after that point); rejects
   * after timeoutMs (default 30 s). */
  waitForOutput(pattern: RegExp, timeoutMs?: number, from?: number): Promise<string>;
  /** With `steppedClock`: sets the server's clock to `ms` after its start (never backwards)
   * and resolves once the server confirms it. */
  setClock(ms: number): Promise<void>;
  /** SIGTERM, then waits for the exit (SIGKILL after 60 s). Safe to call twice. */
  stop(): Promise<ExitStatus>;
  /** Resolves when the process exits, however that happens. */
  exited: Promise<ExitStatus>;
}

/**
 * A server's output as it arrives, and waits for a pattern in it: resolved with the whole
 * output once the pattern matches the part from `from` on, rejected when the server has ended
 * first or after `timeoutMs` (failure-only bounds).
 */
export class OutputWatch {
  text = '';
  private ended = false;
  private readonly waiters = new Set<() => void>();

  append(chunk: string): void {
    this.text += chunk;
    for (const wake of this.waiters) wake();
  }

  /** The server is gone: waits that have not matched fail now. */
  end(): void {
    this.ended = true;
    for (const wake of this.waiters) wake();
  }

  waitFor(pattern: RegExp, timeoutMs = OUTPUT_TIMEOUT_MS, from = 0): Promise<string> {
    return new Promise((resolve, reject) => {
      const settle = (error: Error | null): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
        if (error === null) resolve(this.text);
        else reject(error);
      };
      const check = (): void => {
        if (pattern.test(this.text.slice(from))) settle(null);
        else if (this.ended) settle(new Error(`server exited before printing ${pattern}; output:\n${this.text}`));
      };
      const timer = setTimeout(() => {
        settle(new Error(`timed out after ${timeoutMs} ms waiting for ${pattern}; output:\n${this.text}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }
}

/** The server's environment for `options`: the test runner's, without any configuration
 * variable or npm_* (they describe the `npm test` run, not the server), plus what is asked.
 * `scratchDir` makes the temp dir for the default absent key file. */
/** The connection caps of a test server (20 x the default total: the socket fuzz makes thousands of early answered connections a second, each half-closed for LINGER_MS). */
const TEST_CONNECTION_CAP = 20 * DEFAULT_CONNECTION_CAPS.total;

export function serverEnv(options: StartOptions, scratchDir: () => string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    // npm_* describe the `npm test` run around the tests, not the child (the server reads
    // npm_lifecycle_event to name itself in hints).
    if (value !== undefined && !CONFIG_VARS.includes(name) && !name.startsWith('npm_')) env[name] = value;
  }
  env.PORT = '0';
  env.HOST = '127.0.0.1';
  env.LOG_LEVEL = options.logLevel ?? 'info';
  // Every test client is 127.0.0.1: one address for what a deployment sees as many clients (the
  // floods and soaks open up to 220 connections at once, and the socket fuzz leaves each early
  // answered connection half-closed for LINGER_MS, hundreds at a time on a loaded machine). Both
  // caps are lifted; the caps' own tests pass `MAX_CONNECTIONS: undefined` and
  // `MAX_CONNECTIONS_PER_ADDRESS: undefined` for the defaults.
  env.MAX_CONNECTIONS = String(TEST_CONNECTION_CAP);
  env.MAX_CONNECTIONS_PER_ADDRESS = String(TEST_CONNECTION_CAP);
  if (options.keysFile === undefined) {
    env.API_KEYS_FILE = join(scratchDir(), 'absent-keys.json');
  } else if (options.keysFile !== null) {
    env.API_KEYS_FILE = options.keysFile;
  }
  if (options.apiKey !== undefined) env.API_KEY = options.apiKey;
  if (options.rateLimitPerMinute !== undefined) env.RATE_LIMIT_PER_MINUTE = String(options.rateLimitPerMinute);
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Spawns the server without waiting for it (for start-up failures: await `exited`). */
export function launchServer(options: StartOptions = {}): LaunchedServer {
  let scratch: string | null = null;
  const scratchDir = (): string => (scratch ??= mkdtempSync(join(tmpdir(), 'cg-server-')));
  const env = serverEnv(options, scratchDir);

  if (options.command !== undefined || options.user !== undefined) delete env.NODE_V8_COVERAGE;
  let clockFile: string | null = null;
  if (options.steppedClock === true) {
    if (options.command !== undefined) throw new Error('steppedClock needs the default command');
    clockFile = join(scratchDir(), 'clock');
    env.STEPPED_CLOCK_FILE = clockFile;
  }
  const [program, ...args] = options.command ?? [
    process.execPath,
    '--import',
    TS_LOADER,
    ...(clockFile === null ? [] : ['--import', STEPPED_CLOCK]),
    SERVER,
  ];
  const child = spawn(program, args, {
    cwd: options.cwd ?? ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.user === undefined ? {} : { uid: options.user.uid, gid: options.user.gid }),
  });
  running.add(child);
  const watch = new OutputWatch();
  const onChunk = (chunk: Buffer): void => {
    watch.append(chunk.toString('utf8'));
  };
  child.stdout.on('data', onChunk);
  child.stderr.on('data', onChunk);

  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
      // Let the pipes drain so output() is complete once exited resolves.
      const done = (): void => resolve({ code, signal });
      if (child.stdout.readableEnded && child.stderr.readableEnded) done();
      else {
        let pending = 2;
        const one = (): void => {
          if (--pending === 0) done();
        };
        for (const stream of [child.stdout, child.stderr]) {
          if (stream.readableEnded) one();
          else stream.once('close', one);
        }
      }
    });
  });
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    watch.end();
  });

  const waitForOutput = (pattern: RegExp, timeoutMs?: number, from?: number): Promise<string> =>
    watch.waitFor(pattern, timeoutMs, from);

  let stopping: Promise<ExitStatus> | null = null;
  const stop = (): Promise<ExitStatus> => {
    if (stopping !== null) return stopping;
    if (!hasExited) child.kill('SIGTERM');
    // A drain takes up to the 10 s grace, then the exit writes coverage; only a server that
    // hangs is killed, and its SIGKILL then fails the test that expected exit code 0.
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    stopping = exited.finally(() => clearTimeout(killer));
    return stopping;
  };

  let clockAt = 0;
  const setClock = async (ms: number): Promise<void> => {
    if (clockFile === null) throw new Error('setClock needs startServer({ steppedClock: true })');
    if (!(ms >= clockAt)) throw new Error(`the stepped clock cannot go from ${clockAt} to ${ms} ms`);
    const from = watch.text.length;
    writeFileSync(clockFile, String(ms));
    process.kill(child.pid!, 'SIGUSR2');
    await waitForOutput(new RegExp(`\\{"msg":"stepped clock","ms":${ms}\\}\\n`), OUTPUT_TIMEOUT_MS, from);
    clockAt = ms;
  };

  return { pid: child.pid!, output: () => watch.text, waitForOutput, setClock, stop, exited };
}

/** Spawns the server and resolves once it prints its URL. Rejects (with the output) if it
 * exits first, e.g. on a configuration error. */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const launched = launchServer(options);
  let out: string;
  try {
    out = await launched.waitForOutput(/"url":"https?:\/\/[^"]+"/, options.startTimeoutMs ?? START_TIMEOUT_MS);
  } catch (error) {
    await launched.stop();
    throw error;
  }
  const url = /"url":"(https?:\/\/[^"]+)"/.exec(out)![1];
  const metricsUrl = /"msg":"listening on [^\n]*"metrics":"(http:\/\/[^"]+)"/.exec(out)?.[1] ?? null;
  return { ...launched, url, port: Number(new URL(url).port), metricsUrl };
}

/** Runs a server for the duration of `fn` and always stops it. */
export async function withServer<T>(options: StartOptions, fn: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(options);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}
