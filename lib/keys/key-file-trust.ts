/**
 * When a key file may be trusted (docs/security-review-keys.md, F3 and F4), for the server
 * and the operator CLI alike, after sshd's StrictModes: whoever can write the key file, or
 * rename things in a directory on its path, decides which keys work.
 *
 * - The file is read through a descriptor opened with O_NOFOLLOW and O_NONBLOCK, and judged by
 *   fstat of that descriptor, so what is checked is what is read (no check-then-open race): it
 *   must be a regular file (not a symbolic link, a FIFO or a directory) and not writable by
 *   group or others.
 * - Its directory must not be writable by group or others, sticky bit or not: in a sticky
 *   directory such as /tmp anyone can still create the file while it is absent, or squat the
 *   lock file. Each directory above it must not be writable by group or others unless sticky
 *   (there only an entry's owner can rename it).
 * - With `owners` (the server passes its effective uid and root), the file and every
 *   directory on the path must belong to one of them; the CLI passes null, because it keeps
 *   a file's owner when it replaces it (key-admin.ts) and so works in the service user's
 *   directory when run by root.
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import { dirname } from 'node:path';

const WRITABLE_BY_OTHERS = 0o022;
const STICKY = 0o1000;

export type KeyFileRead =
  { kind: 'missing' } | { kind: 'ok'; text: string; stats: Stats } | { kind: 'refused'; reason: string };

/** The owners a server may trust: itself and root. Null where there are no uids (Windows). */
export function serverOwners(): readonly number[] | null {
  const euid = process.geteuid?.();
  return euid === undefined ? null : [euid, 0];
}

export function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

function ownerProblem(uid: number, owners: readonly number[] | null): string | null {
  if (owners === null || owners.includes(uid)) return null;
  return `belongs to uid ${uid}, not to this server's user (uid ${owners[0]}) or root`;
}

/**
 * Why the directory `dir` (and those above it) cannot hold a trusted key file, or null.
 * Throws the file system's error (ENOENT when it does not exist).
 */
export function directoryProblem(dir: string, owners: readonly number[] | null): string | null {
  const real = realpathSync(dir);
  for (let d = real; ; d = dirname(d)) {
    const st = statSync(d);
    const mode = st.mode & 0o7777;
    const writable = (mode & WRITABLE_BY_OTHERS) !== 0 && (d === real || (mode & STICKY) === 0);
    if (writable)
      return `is in ${d === real ? d : `${real}, below ${d}`}, which is writable by group or others (mode ${octal(mode)})`;
    const owner = ownerProblem(st.uid, owners);
    if (owner !== null) return `is in ${d === real ? d : `${real}, below ${d}`}, which ${owner}`;
    if (dirname(d) === d) return null;
  }
}

/** Why a file with these stats cannot be trusted, or null. */
export function fileProblem(st: Stats, owners: readonly number[] | null): string | null {
  if (!st.isFile()) return 'is not a regular file';
  if ((st.mode & WRITABLE_BY_OTHERS) !== 0)
    return `is writable by group or others (mode ${octal(st.mode)}; chmod go-w it)`;
  const owner = ownerProblem(st.uid, owners);
  return owner === null ? null : `${owner} (chown it)`;
}

function errnoOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'error';
}

/** Why the file could not be opened, in words an operator can act on. */
function openFailure(file: string, code: string): string {
  if (code === 'ELOOP') return 'is a symbolic link (name the file itself)';
  if (code !== 'EACCES') return `cannot be read (${code})`;
  let st: Stats;
  try {
    st = lstatSync(file);
  } catch {
    return 'cannot be read (EACCES)';
  }
  const who = process.geteuid?.();
  return `cannot be read by uid ${who} (EACCES); it belongs to uid ${st.uid}, gid ${st.gid}, mode ${octal(st.mode)}: run the keys command as the server's user, or give that user read access`;
}

/**
 * Reads the key file if it may be trusted under the rules above. A file that does not exist is
 * 'missing' whatever its directory; callers that must refuse an untrusted place for a file
 * yet to come ask directoryProblem themselves.
 */
export function readKeyFile(file: string, owners: readonly number[] | null): KeyFileRead {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO planted under the name must not hang the process.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return { kind: 'missing' };
    return { kind: 'refused', reason: openFailure(file, errnoOf(error)) };
  }
  try {
    const stats = fstatSync(fd);
    const problem = directoryProblem(dirname(file), owners) ?? fileProblem(stats, owners);
    if (problem !== null) return { kind: 'refused', reason: problem };
    return { kind: 'ok', text: readFileSync(fd, 'utf8'), stats };
  } catch (error) {
    return { kind: 'refused', reason: `cannot be read (${errnoOf(error)})` };
  } finally {
    closeSync(fd);
  }
}
