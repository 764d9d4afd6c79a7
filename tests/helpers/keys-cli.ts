/**
 * The keys CLI (lib/keys/key-admin.ts, runKeysCli) run in the test's own process on one key file
 * (API_KEYS_FILE), its output captured: what `credential-generator keys ...` would print, and
 * its exit code. The lock is waited for 300 ms only, so a test that holds it sees the refusal
 * at once.
 */
import { runKeysCli } from '../../lib/keys/key-admin.ts';

export interface KeysCliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `keys ...argv` on `file`, run from `cwd`, on the real clock or on `now`. */
export function keysCli(file: string, cwd: string, argv: readonly string[], now?: () => Date): KeysCliRun {
  let stdout = '';
  let stderr = '';
  const code = runKeysCli(argv, {
    env: { API_KEYS_FILE: file },
    cwd,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    ...(now === undefined ? {} : { now }),
    lockWaitMs: 300,
  });
  return { code, stdout, stderr };
}
