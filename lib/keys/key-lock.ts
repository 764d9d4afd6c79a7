/**
 * The lock file that keeps two key commands from losing each other's change
 * (docs/security.md, Keys). No Node API gives an advisory kernel lock, so the lock is
 * a file, made so that it cannot be held twice:
 *
 * - Taking it: the holder's record (pid, host, a 128-bit nonce, time) is written to a file
 *   with a random name, which is then hard-linked to `<file>.lock`. link() fails if the name
 *   exists, and the lock appears with its whole record at once (never empty or half written).
 * - A lock is stale only when its holder is provably gone: same host and no such process. A
 *   live holder's lock is never broken, however old (the command then gives up and names the
 *   pid). Only a lock from another host, or one without a readable record (left by hand or by
 *   an older version), falls back to age: 10 s by its own record's clock or its mtime.
 * - Removing a lock, stale or one's own, first claims that very lock: link(`<file>.lock`,
 *   `.<file>.lock.<nonce>.claim`) names the inode the path holds right now, and fails for a
 *   second claimant of the same lock. The claimant reads the claim back; only when it holds
 *   the nonce it judged stale (or its own) does it unlink `<file>.lock`, and that unlink can
 *   only remove that lock: no one else may remove it while the claim exists, and no one can
 *   take the lock while the path is occupied. A claim that finds another lock there is
 *   dropped, leaving that lock alone.
 * - Before committing, the holder checks the lock still holds its nonce.
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** A lock this old may be broken when its holder's liveness cannot be checked. */
export const STALE_MS = 10_000;
const POLL_MS = 100;

export class LockError extends Error {}

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly nonce: string;
  readonly time: number;
}

/** What is at the lock path: a holder's record, something else (with its inode and mtime),
 * or nothing. */
type Seen = { kind: 'gone' } | { kind: 'holder'; holder: Holder } | { kind: 'foreign'; ino: number; mtimeMs: number };

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

function parseHolder(text: string): Holder | null {
  try {
    const h = JSON.parse(text) as Partial<Holder>;
    if (
      Number.isSafeInteger(h.pid) &&
      typeof h.host === 'string' &&
      typeof h.nonce === 'string' &&
      /^[0-9a-f]{32}$/.test(h.nonce) &&
      Number.isFinite(h.time)
    ) {
      return h as Holder;
    }
  } catch {
    // not a record written by this module
  }
  return null;
}

function look(path: string): Seen {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errno(error) === 'ENOENT') return { kind: 'gone' };
    // Unreadable (another user's) or a symbolic link: judged by the entry itself.
    try {
      const st = lstatSync(path);
      return { kind: 'foreign', ino: st.ino, mtimeMs: st.mtimeMs };
    } catch {
      return { kind: 'gone' };
    }
  }
  try {
    const st = fstatSync(fd);
    const holder = st.isFile() ? parseHolder(readFileSync(fd, 'utf8')) : null;
    return holder === null ? { kind: 'foreign', ino: st.ino, mtimeMs: st.mtimeMs } : { kind: 'holder', holder };
  } finally {
    closeSync(fd);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errno(error) === 'EPERM'; // exists, owned by someone else
  }
}

function isStale(seen: Exclude<Seen, { kind: 'gone' }>, now: number): boolean {
  if (seen.kind === 'foreign') return now - seen.mtimeMs > STALE_MS;
  const { holder } = seen;
  if (holder.host !== hostname()) return now - holder.time > STALE_MS;
  // Our own pid on a lock we do not hold can only be a crashed predecessor's.
  return holder.pid === process.pid || !alive(holder.pid);
}

/** A hidden name next to the lock. */
function sibling(lock: string, tag: string): string {
  return join(dirname(lock), `.${basename(lock)}.${tag}`);
}

/**
 * Removes the lock at `lock` if, and only if, it is still the one `seen` describes. Returns
 * false when another process is already removing it or it cannot be claimed.
 */
function removeIf(lock: string, seen: Exclude<Seen, { kind: 'gone' }>): boolean {
  const identity = seen.kind === 'holder' ? seen.holder.nonce : `ino${seen.ino}`;
  const claim = sibling(lock, `${identity}.claim`);
  try {
    linkSync(lock, claim);
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT') return true; // already gone
    if (code === 'EEXIST') return false; // someone else is removing this very lock
    if (code === 'EPERM') return false; // another user's lock (protected_hardlinks): left to a person
    throw error;
  }
  try {
    const now = look(claim);
    const same =
      seen.kind === 'holder'
        ? now.kind === 'holder' && now.holder.nonce === seen.holder.nonce
        : now.kind === 'foreign' && now.ino === seen.ino;
    if (same) rmSync(lock, { force: true });
    return same;
  } finally {
    rmSync(claim, { force: true });
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `fn` holding `<file>.lock`, waiting up to `waitMs` for another command's lock. `fn`
 * gets `stillHeld()`, to call right before it commits.
 */
export function withLock<T>(file: string, waitMs: number, fn: (stillHeld: () => boolean) => T): T {
  const lock = `${file}.lock`;
  const mine: Holder = { pid: process.pid, host: hostname(), nonce: randomBytes(16).toString('hex'), time: Date.now() };
  const staging = sibling(lock, `${mine.nonce}.new`);
  const fd = openSync(staging, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    try {
      writeFileSync(fd, `${JSON.stringify(mine)}\n`);
    } finally {
      closeSync(fd);
    }
    for (let waited = 0; ;) {
      try {
        linkSync(staging, lock);
        break;
      } catch (error) {
        if (errno(error) !== 'EEXIST') throw error;
      }
      const seen = look(lock);
      if (seen.kind === 'gone') continue; // released between our attempt and our look: try again now
      if (isStale(seen, Date.now()) && removeIf(lock, seen)) continue;
      if (waited >= waitMs) {
        const who =
          seen.kind === 'holder'
            ? ` (pid ${seen.holder.pid} on ${seen.holder.host === mine.host ? 'this host' : seen.holder.host})`
            : '';
        throw new LockError(`${lock} is held by another keys command${who}; remove it if none is running`);
      }
      sleepSync(POLL_MS);
      waited += POLL_MS;
    }
  } finally {
    rmSync(staging, { force: true });
  }
  const ours: Seen = { kind: 'holder', holder: mine };
  try {
    return fn(() => {
      const now = look(lock);
      return now.kind === 'holder' && now.holder.nonce === mine.nonce;
    });
  } finally {
    try {
      removeIf(lock, ours);
    } catch {
      // Left behind, it names a process that is gone, so the next command breaks it.
    }
  }
}
