/**
 * The operator's key commands (`npm run keys -- ...`): issue, replace, revoke, list over the
 * key file. The new key goes to stdout exactly once and nowhere else (the file keeps its
 * SHA-256 only), so `KEY=$(npm run --silent keys -- issue --holder ci)` captures just the key;
 * everything meant for the operator's eyes goes to stderr.
 *
 * Writes are atomic (temp file in the same directory, then rename, mode 0600), so the running
 * server never reads half a file, and a lock file keeps two concurrent commands from losing
 * each other's change.
 * @module
 */
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { emptyKeyFile, newKey, newKeyId, parseKeyFile, serializeKeyFile, sha256Hex, type KeyFile, type KeyRecord } from './api-keys.ts';

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

function withLock<T>(file: string, waitMs: number, fn: () => T): T {
  const lock = `${file}.lock`;
  let fd: number | null = null;
  for (let attempt = 0; fd === null; attempt++) {
    try {
      fd = openSync(lock, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock older than 10 s was left by a crashed command.
      if (Date.now() - statSync(lock).mtimeMs > 10_000) rmSync(lock, { force: true });
      else if (attempt * 100 >= waitMs) throw new CliError(`${lock} is held by another keys command; remove it if none is running`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    return fn();
  } finally {
    closeSync(fd);
    rmSync(lock, { force: true });
  }
}

function readStore(file: string): KeyFile {
  if (!existsSync(file)) return emptyKeyFile();
  try {
    return parseKeyFile(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`${file} ${(error as Error).message}; fix or move it first`);
  }
}

function writeStore(file: string, store: KeyFile): void {
  const temp = join(dirname(file), `.${Date.now()}-${process.pid}.keys.tmp`);
  writeFileSync(temp, serializeKeyFile(store), { mode: 0o600 });
  renameSync(temp, file);
}

function issueInto(store: KeyFile, holder: string, now: Date): { record: KeyRecord; key: string } {
  let id = newKeyId();
  while (store.keys.some((k) => k.id === id)) id = newKeyId();
  const key = newKey(id);
  const record: KeyRecord = { id, holder, created: now.toISOString(), revoked: null, sha256: sha256Hex(key) };
  store.keys.push(record);
  return { record, key };
}

function find(store: KeyFile, id: string | undefined): KeyRecord {
  if (id === undefined) throw new CliError('missing key id');
  const record = store.keys.find((k) => k.id === id);
  if (record === undefined) throw new CliError(`no key with id ${JSON.stringify(id)}`);
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

  try {
    switch (command) {
      case 'issue': {
        const at = rest.indexOf('--holder');
        const holder = at === -1 ? undefined : rest[at + 1]?.trim();
        if (holder === undefined || holder === '' || holder.length > 200 || rest.length !== 2) {
          io.stderr(`issue needs --holder NAME (1 to 200 characters)\n\n${USAGE}`);
          return 2;
        }
        const { record, key } = withLock(file, lockWait, () => {
          const store = readStore(file);
          const issued = issueInto(store, holder, now);
          writeStore(file, store);
          return issued;
        });
        io.stdout(`${key}\n`);
        io.stderr(`issued key ${record.id} for ${JSON.stringify(holder)} in ${file}\nthe key is shown once; store it in a secret manager now (the file keeps only its SHA-256)\n`);
        return 0;
      }
      case 'replace': {
        if (rest.length !== 1) break;
        const { old, record, key } = withLock(file, lockWait, () => {
          const store = readStore(file);
          const previous = find(store, rest[0]);
          if (previous.revoked !== null) throw new CliError(`key ${previous.id} is already revoked; use issue`);
          const issued = issueInto(store, previous.holder, now);
          previous.revoked = now.toISOString();
          writeStore(file, store);
          return { old: previous, ...issued };
        });
        io.stdout(`${key}\n`);
        io.stderr(`issued key ${record.id} for ${JSON.stringify(record.holder)} and revoked ${old.id}\nthe key is shown once; store it in a secret manager now\n`);
        return 0;
      }
      case 'revoke': {
        if (rest.length !== 1) break;
        const record = withLock(file, lockWait, () => {
          const store = readStore(file);
          const target = find(store, rest[0]);
          if (target.revoked !== null) return null;
          target.revoked = now.toISOString();
          writeStore(file, store);
          return target;
        });
        io.stderr(record === null ? `key ${rest[0]} was already revoked\n` : `revoked key ${record.id} of ${JSON.stringify(record.holder)}\n`);
        return 0;
      }
      case 'help':
      case '--help':
      case '-h':
        io.stdout(USAGE);
        return 0;
      case 'list': {
        if (rest.length !== 0) break;
        const store = readStore(file);
        if (store.keys.length === 0) {
          io.stderr(`no keys in ${file}\n`);
          return 0;
        }
        const rows = [['ID', 'HOLDER', 'CREATED', 'STATUS'], ...store.keys.map((k) => [k.id, k.holder, k.created, k.revoked === null ? 'active' : `revoked ${k.revoked}`])];
        const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
        io.stdout(rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ')).join('\n') + '\n');
        return 0;
      }
      default:
        break;
    }
  } catch (error) {
    if (error instanceof CliError) {
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
