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
 * refused (lib/files/trusted-file.ts). See docs/security-review-keys.md (F1 to F3, F11, F13).
 * @module
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  emptyKeyFile,
  KEY_ID_PATTERN,
  newKey,
  newKeyId,
  parseKeyFile,
  serializeKeyFile,
  sha256Hex,
  type KeyFile,
  type KeyRecord,
} from './api-keys.ts';
import { directoryProblem, octal } from '../files/trusted-file.ts';
import { escapeForTerminal, escapeJsonText, terminalSafe } from '../log/shown-text.ts';
import { LockError, withLock } from './key-lock.ts';
import { readKeyFile } from './key-store.ts';

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
        [--another]       refused if NAME already has an active key, unless --another
  replace ID              issue a new key for ID's holder and revoke ID, in one write
  revoke ID               revoke the key with public id ID (effective within 2 s)
  list [--json]           list id, holder, created, revoked (never a key or a hash)

options:  --file PATH     the key file (default: $API_KEYS_FILE, else ./keys.json)
`;

class CliError extends Error {}

/** What a holder name may contain: letters, marks, digits, punctuation and symbols (Unicode
 * categories L, M, N, P, S) and the ASCII space, what lib/log/shown-text.ts shows as it is.
 * Everything else (controls such as ESC and CR, format characters such as bidi overrides and
 * zero-width joiners, other spaces, private use, unassigned code points, lone surrogates)
 * could move the cursor or hide text. */
const HOLDER = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]+$/u;

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
    return { store: parseKeyFile(read.data.toString('utf8')), stats: read.stats };
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
      giveOwnership(
        fd,
        file,
        previous === null
          ? newFileOwnership(dir, fstatSync(fd))
          : { uid: previous.uid, gid: previous.gid, mode: previous.mode },
      );
      fsyncSync(fd); // the rename must never expose a file whose data is not on disk yet
    } finally {
      closeSync(fd);
    }
    if (!stillHeld())
      throw new CliError(`${file}.lock was taken over by another command; nothing was changed, run the command again`);
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
  if (!KEY_ID_PATTERN.test(arg))
    throw new CliError(
      'not a key id: an id is the 8 characters after cgk_ (the argument is not repeated, in case it is a key)',
    );
  return arg;
}

function find(store: KeyFile, id: string): KeyRecord {
  const record = store.keys.find((k) => k.id === id);
  if (record === undefined) throw new CliError(`no key with id "${id}"`);
  return record;
}

/** What every command works on: the key file, the clock, and the locked read-change-write. */
interface Session {
  readonly file: string;
  readonly now: Date;
  readonly io: CliIo;
  readonly usage: string;
  /** Reads, changes and writes the file under the lock; `change` returns what to report, or
   * null for "nothing to write". `created` says whether this write creates the file, judged
   * under the lock (security review S5: checked before it, two of six concurrent commands
   * each said they had created it). */
  update<T>(change: (store: KeyFile, created: boolean) => T | null): T | null;
}

/** An exit code, or null for "these arguments are not this command's" (usage, exit 2). */
type Outcome = number | null;

function issueCommand(s: Session, argv: readonly string[]): Outcome {
  const another = argv.includes('--another');
  const rest = argv.filter((a) => a !== '--another');
  const at = rest.indexOf('--holder');
  const holder = at === -1 ? undefined : rest[at + 1]?.trim();
  if (holder === undefined || holder === '' || holder.length > 200 || !HOLDER.test(holder) || rest.length !== 2) {
    s.io.stderr(
      `issue needs --holder NAME: 1 to 200 letters, marks, digits, punctuation, symbols or spaces\n\n${s.usage}`,
    );
    return 2;
  }
  const issued = s.update((store, created) => {
    // A rerun of a setup script must not pile up keys: one active key per holder unless the
    // operator says otherwise (decided under the lock, so two runs cannot both pass).
    const current = store.keys.filter((k) => k.holder === holder && k.revoked === null);
    if (current.length > 0 && !another) {
      const ids = current.map((k) => k.id).join(', ');
      throw new CliError(
        `${shown(holder)} already has an active key (${ids}); nothing was issued: add --another for a second one, or use replace ${current[0].id}`,
      );
    }
    return { ...issueInto(store, holder, s.now), created };
  });
  if (issued === null) throw new CliError('nothing was issued');
  s.io.stdout(`${issued.key}\n`);
  if (issued.created) s.io.stderr(createdNote(s.file));
  s.io.stderr(
    `issued key ${issued.record.id} for ${shown(holder)} in ${s.file}\nthe key is shown once; store it in a secret manager now (the file keeps only its SHA-256)\n`,
  );
  return 0;
}

function replaceCommand(s: Session, rest: readonly string[]): Outcome {
  if (rest.length !== 1) return null;
  const id = checkedId(rest[0]);
  const done = s.update((store) => {
    const previous = find(store, id);
    if (previous.revoked !== null) throw new CliError(`key ${previous.id} is already revoked; use issue`);
    const issued = issueInto(store, previous.holder, s.now);
    previous.revoked = s.now.toISOString();
    return { old: previous, ...issued };
  });
  if (done === null) throw new CliError('nothing was replaced');
  s.io.stdout(`${done.key}\n`);
  s.io.stderr(
    `issued key ${done.record.id} for ${shown(done.record.holder)} and revoked ${done.old.id}\nthe key is shown once; store it in a secret manager now\n`,
  );
  return 0;
}

function revokeCommand(s: Session, rest: readonly string[]): Outcome {
  if (rest.length !== 1) return null;
  const id = checkedId(rest[0]);
  const record = s.update((store) => {
    const target = find(store, id);
    if (target.revoked !== null) return null;
    target.revoked = s.now.toISOString();
    return target;
  });
  s.io.stderr(
    record === null ? `key ${id} was already revoked\n` : `revoked key ${record.id} of ${shown(record.holder)}\n`,
  );
  return 0;
}

/** The list as one JSON array, for scripts: every character a terminal could act on (controls,
 * bidi overrides, zero-width ones) written as a \u escape, so the text stays valid JSON
 * and still shows nothing a hand-edited holder could hide. */
function listJson(keys: readonly KeyRecord[]): string {
  const rows = keys.map((k) => ({ id: k.id, holder: k.holder, created: k.created, revoked: k.revoked }));
  return `${escapeJsonText(JSON.stringify(rows))}\n`;
}

function listCommand(s: Session, rest: readonly string[]): Outcome {
  const json = rest.length === 1 && rest[0] === '--json';
  if (rest.length !== 0 && !json) return null;
  assertDirectoryTrusted(s.file);
  const { store } = readStore(s.file);
  if (json) {
    s.io.stdout(listJson(store.keys));
    return 0;
  }
  if (store.keys.length === 0) {
    s.io.stderr(`no keys in ${s.file}\n`);
    return 0;
  }
  // Every cell escaped: a hand-edited holder or date could hold terminal controls (the date
  // parser accepts "1 Jan 2026 (any text)").
  const rows = [
    ['ID', 'HOLDER', 'CREATED', 'STATUS'],
    ...store.keys.map((k) =>
      [k.id, k.holder, k.created, k.revoked === null ? 'active' : `revoked ${k.revoked}`].map(escapeForTerminal),
    ),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  s.io.stdout(
    rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]))).join('  ')).join('\n') +
      '\n',
  );
  return 0;
}

const COMMANDS: Readonly<Record<string, (s: Session, rest: readonly string[]) => Outcome>> = {
  issue: issueCommand,
  replace: replaceCommand,
  revoke: revokeCommand,
  list: listCommand,
};

/** The key file of `--file PATH` (taken out of `args`), else API_KEYS_FILE, else ./keys.json;
 * null when --file has no value. */
function takeFile(args: string[], io: CliIo): string | null {
  let file = io.env.API_KEYS_FILE !== undefined && io.env.API_KEYS_FILE !== '' ? io.env.API_KEYS_FILE : 'keys.json';
  const fileAt = args.indexOf('--file');
  if (fileAt !== -1) {
    const value = args.at(fileAt + 1);
    if (value === undefined) return null;
    file = value;
    args.splice(fileAt, 2);
  }
  return resolve(io.cwd, file);
}

/** One line for a refusal (exit 1); anything else is a bug and is thrown. */
function refusal(error: unknown, file: string): string {
  if (error instanceof CliError || error instanceof LockError) return `keys: ${error.message}\n`;
  const code = (error as NodeJS.ErrnoException).code;
  // A file system refusal (missing directory, no permission): one line, not a stack.
  if (typeof code === 'string') return `keys: cannot update ${file} (${code})\n`;
  throw error;
}

/** Runs one command; returns the exit code (0 ok, 1 failed, 2 usage). */
export function runKeysCli(argv: readonly string[], cliIo: CliIo): number {
  const io = terminalSafe(cliIo);
  const args = [...argv];
  const usageText = usage(io.program ?? 'npm run keys --');
  const file = takeFile(args, io);
  const [command = '', ...rest] = args;
  if (file === null) {
    io.stderr(usageText);
    return 2;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    io.stdout(usageText);
    return 0;
  }
  const lockWait = io.lockWaitMs ?? 5_000;
  const session: Session = {
    file,
    now: (io.now ?? (() => new Date()))(),
    io,
    usage: usageText,
    update(change) {
      assertDirectoryTrusted(file);
      return withLock(file, lockWait, (stillHeld) => {
        const { store, stats } = readStore(file);
        const result = change(store, stats === null);
        if (result !== null) writeStore(file, store, stats, stillHeld);
        return result;
      });
    },
  };
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  let outcome: Outcome = null;
  try {
    if (run !== undefined) outcome = run(session, rest);
  } catch (error) {
    io.stderr(refusal(error, file));
    return 1;
  }
  if (outcome !== null) return outcome;
  io.stderr(usageText);
  return 2;
}
