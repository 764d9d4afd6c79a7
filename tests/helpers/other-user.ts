/**
 * Running the key CLI and the server as a second, real user. Tests that need one run only
 * when the test process is root (it can switch to `nobody`, uid/gid 65534) and are skipped
 * otherwise, with the reason printed by node:test.
 *
 * A child running as another user cannot write root's V8 coverage directory, so coverage is
 * off for it (its lines are covered by the same code running as root elsewhere in the suite).
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ROOT } from './server.ts';

export interface User {
  readonly uid: number;
  readonly gid: number;
}

export const NOBODY: User = { uid: 65534, gid: 65534 };

export const isRoot = process.getuid?.() === 0;

/** node:test's `skip` option: false as root, else the reason it prints. */
export const needsRoot: false | string = isRoot
  ? false
  : 'needs root, to run the server or the key CLI as a second user (nobody)';

const TSX = import.meta.resolve('tsx');
const RUN_AS = fileURLToPath(new URL('./run-as.mjs', import.meta.url));
const BARRIER = new URL('./start-barrier.mjs', import.meta.url).href;
/** What the program imports before it runs a command: preloaded ahead of the barrier. */
const PRELOADED = ['lib/keys/key-admin', 'lib/http/app', 'lib/core/index'];

/** A child running as another user must not inherit root's coverage directory: Node copies
 * NODE_V8_COVERAGE into a child's environment unless the variable is set there, and an empty
 * value turns coverage off. */
const NO_COVERAGE = { NODE_V8_COVERAGE: '' };

/** Environment overrides for startServer({ env }) that make the server run as `user`. */
export function serverEnvAs(user: User): Record<string, string | undefined> {
  return { NODE_OPTIONS: `--import ${RUN_AS}`, RUN_AS_USER: `${user.uid}:${user.gid}`, ...NO_COVERAGE };
}

/**
 * The built program (`node dist/server.js keys ...`) when it is at least as new as every source
 * file under lib/ (`npm run test:integration` builds it first): it starts in about a quarter of
 * the CPU time of the sources through tsx, which matters for the contention tests' hundred
 * processes.
 * Otherwise the sources, as `node --import tsx server.ts keys ...`.
 */
function cliCommand(): { preload: string[]; cli: string[]; modules: string[] } {
  const newestSource = (dir: string): number =>
    Math.max(
      ...readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((n) => n.endsWith('.ts'))
        .map((n) => statSync(join(dir, n)).mtimeMs),
    );
  try {
    if (
      statSync(join(ROOT, 'dist', 'server.js')).mtimeMs >=
      Math.max(newestSource(join(ROOT, 'lib')), statSync(join(ROOT, 'server.ts')).mtimeMs)
    ) {
      return {
        preload: [],
        cli: [join(ROOT, 'dist', 'server.js'), 'keys'],
        modules: PRELOADED.map((m) => pathToFileURL(join(ROOT, 'dist', `${m}.js`)).href),
      };
    }
  } catch {
    // no build: use the sources
  }
  return {
    preload: ['--import', TSX],
    cli: [join(ROOT, 'server.ts'), 'keys'],
    modules: PRELOADED.map((m) => pathToFileURL(join(ROOT, `${m}.ts`)).href),
  };
}

const command = cliCommand();

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the key CLI with `args` on `file` in a new process, as `user` when given. With
 * `barrierDir`, the process waits at start-barrier.mjs until `<barrierDir>/go` exists.
 */
export function runKeys(
  file: string,
  args: readonly string[],
  options: { cwd: string; user?: User; barrierDir?: string },
): Promise<CliResult> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    API_KEYS_FILE: file,
    ...(options.user === undefined ? {} : NO_COVERAGE),
  };
  const preload = [...command.preload];
  if (options.barrierDir !== undefined) {
    preload.push('--import', BARRIER);
    env.BARRIER_DIR = options.barrierDir;
    env.BARRIER_PRELOAD = command.modules.join(' ');
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...preload, ...command.cli, ...args], {
      cwd: options.cwd,
      env,
      ...(options.user === undefined ? {} : { uid: options.user.uid, gid: options.user.gid }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
