/**
 * Running the key CLI and the server as a second, real user. Tests that need one run only
 * when the test process is root (it can switch to `nobody`, uid/gid 65534) and are skipped
 * otherwise, with the reason printed by node:test.
 *
 * A child running as another user cannot write root's V8 coverage directory, so
 * NODE_V8_COVERAGE is dropped for it (its lines are covered by the same code running as
 * root elsewhere in the suite).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './server.ts';

export interface User {
  readonly uid: number;
  readonly gid: number;
}

export const NOBODY: User = { uid: 65534, gid: 65534 };

export const isRoot = process.getuid?.() === 0;

/** node:test's `skip` option: false as root, else the reason it prints. */
export const needsRoot: false | string = isRoot ? false : 'needs root, to run the server or the key CLI as a second user (nobody)';

const TSX = import.meta.resolve('tsx');
const RUN_AS = fileURLToPath(new URL('./run-as.mjs', import.meta.url));
const BARRIER = new URL('./start-barrier.mjs', import.meta.url).href;
const CLI = join(ROOT, 'lib', 'http', 'keys-cli.ts');

/** Environment overrides for startServer({ env }) that make the server run as `user`. */
export function serverEnvAs(user: User): Record<string, string | undefined> {
  return { NODE_OPTIONS: `--import ${RUN_AS}`, RUN_AS_USER: `${user.uid}:${user.gid}`, NODE_V8_COVERAGE: undefined };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `npm run keys -- <args>` (exactly what it runs) on `file`, as `user` when given. With
 * `barrierDir`, the process waits at start-barrier.mjs until `<barrierDir>/go` exists.
 */
export function runKeys(file: string, args: readonly string[], options: { cwd: string; user?: User; barrierDir?: string }): Promise<CliResult> {
  const env: Record<string, string | undefined> = { ...process.env, API_KEYS_FILE: file };
  if (options.user !== undefined) delete env.NODE_V8_COVERAGE;
  const preload = ['--import', TSX];
  if (options.barrierDir !== undefined) {
    preload.push('--import', BARRIER);
    env.BARRIER_DIR = options.barrierDir;
    env.BARRIER_PRELOAD = new URL('../../lib/http/key-admin.ts', import.meta.url).href;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...preload, CLI, ...args], {
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
