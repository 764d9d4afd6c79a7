/**
 * The operator's key commands (`npm run keys -- ...`): issue, replace, revoke, list over the
 * key file. The new key goes to stdout exactly once and nowhere else (the file keeps its
 * SHA-256 only), so `KEY=$(npm run --silent keys -- issue --holder ci)` captures just the key;
 * everything meant for the operator's eyes goes to stderr.
 *
 * A change is written to a temp file with a random name (O_EXCL, O_NOFOLLOW) in the key
 * file's directory, given the owner, group and mode of the file it replaces, synced, then
 * renamed over it under the lock of key-lock.ts, so the running server never reads half a
 * file, still can read the new one, and two commands cannot lose each other's change. A key
 * file or directory that others can write, a symbolic link or anything but a regular file is
 * refused (key-file-trust.ts). See docs/security-review-keys.md (F1 to F3, F11, F13).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, fchmodSync, fchownSync, fstatSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { emptyKeyFile, KEY_ID_PATTERN, newKey, newKeyId, parseKeyFile, serializeKeyFile, sha256Hex, type KeyFile, type KeyRecord } from './api-keys.ts';
import { directoryProblem, octal, readKeyFile } from './key-file-trust.ts';
import { LockError, withLock } from './key-lock.ts';

export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly now?: () => Date;
  /** How long to wait for another command's lock (default 5 s). */
  readonly lockWaitMs?: number;
  /** The command as the operator ran it, for the usage text (default `npm run keys --`). */
  readonly program?: string;
}

export const usage = (program: string): string => `usage: ${program} <command>

  issue --holder NAME     issue a new key for NAME; prints the key once, on stdout
  replace ID              issue a new key for ID's holder and revoke ID, in one write
  revoke ID               revoke the key with public id ID (effective within 2 s)
  list                    list id, holder, created, revoked (never a key or a hash)

options:  --file PATH     the key file (default: $API_KEYS_FILE, else ./keys.json)
`;

class CliError extends Error {}

/** What a holder name may contain: letters, marks, digits, punctuation and symbols (Unicode
 * categories L, M, N, P, S) and the ASCII space. Everything else (controls such as ESC and
 * CR, format characters such as bidi overrides and zero-width joiners, other spaces, private
 * use, unassigned code points, lone surrogates) could move the cursor or hide text. */
const SHOWN = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;
const HOLDER = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]+$/u;

const NAMED_ESCAPES = new Map([
  [0x09, '\\t'],
  [0x0a, '\\n'],
  [0x0d, '\\r'],
]);

/** The text with every character outside SHOWN written as an escape (\n, \x1b, \u202e,
 * \u{e0001}), for names read from a file someone may have edited by hand. */
export function escapeForTerminal(text: string): string {
  let out = '';
  for (const ch of text) {
    if (SHOWN.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    const named = NAMED_ESCAPES.get(cp);
    if (named !== undefined) out += named;
    else if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\u{${cp.toString(16)}}`;
  }
  return out;
}

const shown = (holder: string): string => `"${escapeForTerminal(holder)}"`;

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

function assertDirectoryTrusted(file: string): void {
  let problem: string | null;
  try {
    problem = directoryProblem(dirname(file), null);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return; // reported when the write fails
    throw error;
  }
  if (problem !== null) throw new CliError(`${file} ${problem}`);
}

/** The parsed file and the stats of what was read (null when there is no file yet). */
function readStore(file: string): { store: KeyFile; stats: Stats | null } {
  const read = readKeyFile(file, null);
  if (read.kind === 'missing') return { store: emptyKeyFile(), stats: null };
  if (read.kind === 'refused') throw new CliError(`${file} ${read.reason}`);
  try {
    return { store: parseKeyFile(read.text), stats: read.stats };
  } catch (error) {
    throw new CliError(`${file} ${(error as Error).message}; fix or move it first`);
  }
}

interface Ownership {
  readonly uid: number;
  readonly gid: number;
  readonly mode: number;
}

/**
 * Who a new key file belongs to: root creating it in a directory that belongs to another user
 * (the service user's state directory) hands it to that user, who could create it anyway;
 * otherwise whoever runs the command. Mode 0600 either way.
 */
function newFileOwnership(dir: string, created: Stats): Ownership {
  const d = statSync(dir);
  if (process.geteuid?.() === 0 && d.uid !== 0) return { uid: d.uid, gid: d.gid, mode: 0o600 };
  return { uid: created.uid, gid: created.gid, mode: 0o600 };
}

/** Gives the open temp file `target`'s owner, group and mode, or refuses (F1): a file the
 * server cannot read would leave it on the old keys, a revoked key still working. */
function giveOwnership(fd: number, file: string, target: Ownership): void {
  fchmodSync(fd, target.mode & 0o777);
  const st = fstatSync(fd);
  if (st.uid === target.uid && st.gid === target.gid) return;
  try {
    fchownSync(fd, target.uid, target.gid);
  } catch (error) {
    if (errnoOf(error) !== 'EPERM') throw error;
    throw new CliError(
      `${file} belongs to uid ${target.uid}, gid ${target.gid}, and this command runs as uid ${st.uid}, which cannot give its replacement that owner (the server might then no longer read it); run the command as the file's owner (sudo -u <that user> ...); nothing was changed`,
    );
  }
}

function writeStore(file: string, store: KeyFile, previous: Stats | null, stillHeld: () => boolean): void {
  const dir = dirname(file);
  // 128 random bits: no one can guess the name and plant a file or link there first, and
  // O_EXCL|O_NOFOLLOW refuse anything already present.
  const temp = join(dir, `.${basename(file)}.${randomBytes(16).toString('hex')}.tmp`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  let renamed = false;
  try {
    try {
      writeFileSync(fd, serializeKeyFile(store));
      giveOwnership(fd, file, previous === null ? newFileOwnership(dir, fstatSync(fd)) : { uid: previous.uid, gid: previous.gid, mode: previous.mode });
      fsyncSync(fd); // the rename must never expose a file whose data is not on disk yet
    } finally {
      closeSync(fd);
    }
    if (!stillHeld()) throw new CliError(`${file}.lock was taken over by another command; nothing was changed, run the command again`);
    renameSync(temp, file);
    renamed = true;
  } finally {
    if (!renamed) rmSync(temp, { force: true });
  }
}

/** Said once, when a command creates the file: who may read it is what decides whether the
 * server sees the keys (the server names the file in an error line when it cannot). */
function createdNote(file: string): string {
  const st = statSync(file);
  return `created ${file} (uid ${st.uid}, gid ${st.gid}, mode ${octal(st.mode)}): the server's user must be able to read it; run keys commands as that user\n`;
}

function issueInto(store: KeyFile, holder: string, now: Date): { record: KeyRecord; key: string } {
  let id = newKeyId();
  while (store.keys.some((k) => k.id === id)) id = newKeyId();
  const key = newKey(id);
  const record: KeyRecord = { id, holder, created: now.toISOString(), revoked: null, sha256: sha256Hex(key) };
  store.keys.push(record);
  return { record, key };
}

/** An id argument, never echoed unless it has the id's shape: an operator who pastes a whole
 * key by mistake must not see it repeated in a terminal or a CI log. */
function checkedId(arg: string): string {
  if (!KEY_ID_PATTERN.test(arg)) throw new CliError('not a key id: an id is the 8 characters after cgk_ (the argument is not repeated, in case it is a key)');
  return arg;
}

function find(store: KeyFile, id: string): KeyRecord {
  const record = store.keys.find((k) => k.id === id);
  if (record === undefined) throw new CliError(`no key with id "${id}"`);
  return record;
}

/** Runs one command; returns the exit code (0 ok, 1 failed, 2 usage). */
export function runKeysCli(argv: readonly string[], io: CliIo): number {
  const args = [...argv];
  const USAGE = usage(io.program ?? 'npm run keys --');
  let file = io.env.API_KEYS_FILE !== undefined && io.env.API_KEYS_FILE !== '' ? io.env.API_KEYS_FILE : 'keys.json';
  const fileAt = args.indexOf('--file');
  if (fileAt !== -1) {
    const value = args[fileAt + 1];
    if (value === undefined) {
      io.stderr(USAGE);
      return 2;
    }
    file = value;
    args.splice(fileAt, 2);
  }
  file = resolve(io.cwd, file);
  const now = (io.now ?? (() => new Date()))();
  const lockWait = io.lockWaitMs ?? 5_000;
  const [command, ...rest] = args;
  /** Reads, changes and writes the file under the lock; `change` returns what to report, or
   * null for "nothing to write". */
  const update = <T>(change: (store: KeyFile) => T | null): T | null => {
    assertDirectoryTrusted(file);
    return withLock(file, lockWait, (stillHeld) => {
      const { store, stats } = readStore(file);
      const result = change(store);
      if (result !== null) writeStore(file, store, stats, stillHeld);
      return result;
    });
  };

  try {
    switch (command) {
      case 'issue': {
        const at = rest.indexOf('--holder');
        const holder = at === -1 ? undefined : rest[at + 1]?.trim();
        if (holder === undefined || holder === '' || holder.length > 200 || !HOLDER.test(holder) || rest.length !== 2) {
          io.stderr(`issue needs --holder NAME: 1 to 200 letters, marks, digits, punctuation, symbols or spaces\n\n${USAGE}`);
          return 2;
        }
        const existed = existsSync(file);
        const { record, key } = update((store) => issueInto(store, holder, now))!;
        io.stdout(`${key}\n`);
        if (!existed) io.stderr(createdNote(file));
        io.stderr(`issued key ${record.id} for ${shown(holder)} in ${file}\nthe key is shown once; store it in a secret manager now (the file keeps only its SHA-256)\n`);
        return 0;
      }
      case 'replace': {
        if (rest.length !== 1) break;
        const id = checkedId(rest[0]!);
        const { old, record, key } = update((store) => {
          const previous = find(store, id);
          if (previous.revoked !== null) throw new CliError(`key ${previous.id} is already revoked; use issue`);
          const issued = issueInto(store, previous.holder, now);
          previous.revoked = now.toISOString();
          return { old: previous, ...issued };
        })!;
        io.stdout(`${key}\n`);
        io.stderr(`issued key ${record.id} for ${shown(record.holder)} and revoked ${old.id}\nthe key is shown once; store it in a secret manager now\n`);
        return 0;
      }
      case 'revoke': {
        if (rest.length !== 1) break;
        const id = checkedId(rest[0]!);
        const record = update((store) => {
          const target = find(store, id);
          if (target.revoked !== null) return null;
          target.revoked = now.toISOString();
          return target;
        });
        io.stderr(record === null ? `key ${id} was already revoked\n` : `revoked key ${record.id} of ${shown(record.holder)}\n`);
        return 0;
      }
      case 'help':
      case '--help':
      case '-h':
        io.stdout(USAGE);
        return 0;
      case 'list': {
        if (rest.length !== 0) break;
        assertDirectoryTrusted(file);
        const { store } = readStore(file);
        if (store.keys.length === 0) {
          io.stderr(`no keys in ${file}\n`);
          return 0;
        }
        // Every cell escaped: a hand-edited holder or date could hold terminal controls (the
        // date parser accepts "1 Jan 2026 (any text)").
        const rows = [['ID', 'HOLDER', 'CREATED', 'STATUS'], ...store.keys.map((k) => [k.id, k.holder, k.created, k.revoked === null ? 'active' : `revoked ${k.revoked}`].map(escapeForTerminal))];
        const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
        io.stdout(rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ')).join('\n') + '\n');
        return 0;
      }
      default:
        break;
    }
  } catch (error) {
    if (error instanceof CliError || error instanceof LockError) {
      io.stderr(`keys: ${error.message}\n`);
      return 1;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string') {
      // A file system refusal (missing directory, no permission): one line, not a stack.
      io.stderr(`keys: cannot update ${file} (${code})\n`);
      return 1;
    }
    throw error;
  }
  io.stderr(USAGE);
  return 2;
}
