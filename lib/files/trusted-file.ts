/**
 * When a file that decides whom the server trusts, or who it is, may be used: the API key file,
 * the TLS certificate and private key, the Redis password file and the policies file
 * (docs/security.md, Files). After sshd's StrictModes: whoever can write such a file, or
 * rename things in a directory on its path, decides what it says.
 *
 * - The file is read through a descriptor opened with O_NOFOLLOW and O_NONBLOCK, and judged by
 *   fstat of that descriptor, so what is checked is what is read (no check-then-open race): it
 *   must be a regular file (not a symbolic link, a FIFO or a directory) and not writable by
 *   group or others.
 * - A symbolic link at the name is refused (key files: the CLI replaces the file by rename, so
 *   a link there is never its own), or resolved first (`links: 'resolve'`: certbot's `live/`
 *   names are links into `archive/`); then the directory of the name and that of the resolved
 *   file are both judged, since whoever can write the first can point the link elsewhere.
 *   One link layout is accepted even where links are refused: the one of a Kubernetes Secret or
 *   ConfigMap volume (kubelet's atomic writer), `NAME -> ..data/NAME`, `..data -> ..<stamp>`,
 *   `..<stamp>/NAME` a regular file, all in the one directory, which is then judged as the
 *   name's directory, and `..<stamp>` as the file's.
 * - A directory that its mode lets group or others write but that is on a read-only mount
 *   (access(2) answers EROFS: no one in this mount namespace can change it) is not a problem:
 *   Kubernetes mounts those volumes read-only, with a root of mode 1777.
 * - Its directory must not be writable by group or others, sticky bit or not: in a sticky
 *   directory such as /tmp anyone can still create the file while it is absent, or squat the
 *   lock file. Each directory above it must not be writable by group or others unless sticky
 *   (there only an entry's owner can rename it).
 * - With `owners` (the server passes its effective uid and root), the file and every
 *   directory on the path must belong to one of them; the key CLI passes null, because it
 *   keeps a file's owner when it replaces it (lib/keys/key-admin.ts) and so works in the
 *   service user's directory when run by root.
 * @module
 */
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

const WRITABLE_BY_OTHERS = 0o022;
const READABLE_BY_OTHERS = 0o004;
const STICKY = 0o1000;

export type TrustedRead =
  { kind: 'missing' } | { kind: 'ok'; data: Buffer; stats: Stats } | { kind: 'refused'; reason: string };

export interface TrustOptions {
  /** 'refuse' (the default) a symbolic link at the name, or 'resolve' it first. */
  readonly links?: 'refuse' | 'resolve';
  /** What the operator should do when the server's user cannot read the file. */
  readonly unreadableHint?: string;
}

/** The owners a server may trust: itself and root. Null where there are no uids (Windows). */
export function serverOwners(): readonly number[] | null {
  const euid = process.geteuid?.();
  return euid === undefined ? null : [euid, 0];
}

export function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

/** Whether users other than the owner and the group may read the file (a secret then is not). */
export function readableByOthers(st: Stats): boolean {
  return (st.mode & READABLE_BY_OTHERS) !== 0;
}

function ownerProblem(uid: number, owners: readonly number[] | null): string | null {
  if (owners === null || owners.includes(uid)) return null;
  return `belongs to uid ${uid}, not to this server's user (uid ${owners[0]}) or root`;
}

/** True only when the kernel says no one may write `dir`: it is on a read-only mount. Any
 * other answer (writable, EACCES for this user) leaves the mode bits to judge it. */
export function onReadOnlyMount(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return false;
  } catch (error) {
    return errnoOf(error) === 'EROFS';
  }
}

/**
 * Why the directory `dir` (and those above it) cannot hold a trusted file, or null.
 * Throws the file system's error (ENOENT when it does not exist).
 */
export function directoryProblem(dir: string, owners: readonly number[] | null): string | null {
  const real = realpathSync(dir);
  for (let d = real; ; d = dirname(d)) {
    const st = statSync(d);
    const mode = st.mode & 0o7777;
    const writable = (mode & WRITABLE_BY_OTHERS) !== 0 && (d === real || (mode & STICKY) === 0);
    if (writable && !onReadOnlyMount(d))
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
function openFailure(file: string, code: string, hint: string): string {
  if (code === 'ELOOP') return 'is a symbolic link (name the file itself)';
  if (code !== 'EACCES') return `cannot be read (${code})`;
  let st: Stats;
  try {
    st = lstatSync(file);
  } catch {
    return 'cannot be read (EACCES)';
  }
  const who = process.geteuid?.();
  return `cannot be read by uid ${who} (EACCES); it belongs to uid ${st.uid}, gid ${st.gid}, mode ${octal(st.mode)}: ${hint}`;
}

/** The file a name stands for: itself, or with `resolve` the end of its links (the name's own
 * directory is judged too). Null when nothing is there. */
/** The file a name stands for in a Kubernetes Secret or ConfigMap volume's layout (see the
 * module comment), or null when the name is not such a link. Only the exact layout passes:
 * the link texts are read, not followed, so no link may lead anywhere else. */
export function atomicWriterTarget(file: string): string | null {
  const dir = dirname(file);
  const name = basename(file);
  try {
    if (!lstatSync(file).isSymbolicLink() || readlinkSync(file) !== `..data/${name}`) return null;
    const data = join(dir, '..data');
    if (!lstatSync(data).isSymbolicLink()) return null;
    const stamp = readlinkSync(data);
    if (!/^\.\.[^/]+$/.test(stamp) || stamp === '..data' || stamp === '..') return null;
    if (!lstatSync(join(dir, stamp)).isDirectory()) return null; // lstat: not a link to one
    return join(dir, stamp, name);
  } catch {
    return null;
  }
}

function target(
  file: string,
  links: 'refuse' | 'resolve',
  owners: readonly number[] | null,
): { path: string } | { reason: string } | null {
  if (links === 'refuse') {
    const mounted = atomicWriterTarget(file);
    if (mounted === null) return { path: file }; // a link is refused by O_NOFOLLOW below
    const named = directoryProblem(dirname(file), owners);
    return named === null ? { path: mounted } : { reason: named };
  }
  let path: string;
  try {
    path = realpathSync(file);
  } catch (error) {
    const code = errnoOf(error);
    return code === 'ENOENT' ? null : { reason: `cannot be read (${code})` };
  }
  const named = path === file ? null : directoryProblem(dirname(file), owners);
  return named === null ? { path } : { reason: named };
}

/**
 * Reads `file` if it may be trusted under the rules above. A file that does not exist is
 * 'missing' whatever its directory; callers that must refuse an untrusted place for a file
 * yet to come ask directoryProblem themselves.
 */
export function readTrustedFile(
  file: string,
  owners: readonly number[] | null,
  options: TrustOptions = {},
): TrustedRead {
  const found = target(file, options.links ?? 'refuse', owners);
  if (found === null) return { kind: 'missing' };
  if ('reason' in found) return { kind: 'refused', reason: found.reason };
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO planted under the name must not hang the process.
    fd = openSync(found.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return { kind: 'missing' };
    const hint = options.unreadableHint ?? "give the server's user read access";
    return { kind: 'refused', reason: openFailure(found.path, errnoOf(error), hint) };
  }
  try {
    const stats = fstatSync(fd);
    const problem = directoryProblem(dirname(found.path), owners) ?? fileProblem(stats, owners);
    if (problem !== null) return { kind: 'refused', reason: problem };
    return { kind: 'ok', data: readFileSync(fd), stats };
  } catch (error) {
    return { kind: 'refused', reason: `cannot be read (${errnoOf(error)})` };
  } finally {
    closeSync(fd);
  }
}
