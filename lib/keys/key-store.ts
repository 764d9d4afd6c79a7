/**
 * The keys the running server accepts: the key file's active records plus the optional
 * API_KEY. The file is polled every 500 ms (lib/files/watch-file.ts: a stat, not a read), which
 * sees in-place writes and the CLI's write-then-rename alike, also for a file that does not
 * exist yet, so revocation and replacement take effect within about a second without a restart.
 * A file that stops parsing, disappears, or can no longer be trusted keeps the last good keys
 * and is logged at error level once per bad version, with its path and the reason.
 *
 * Trusted means (lib/files/trusted-file.ts, docs/security-review-keys.md F4): a regular file, not a
 * symbolic link, that neither it nor any directory on its path lets group or others write,
 * all owned by this server's user or root. Anyone else able to write it could add a key.
 * @module
 */
import type { Stats } from 'node:fs';
import { dirname } from 'node:path';
import { ENV_KEY_ID, knownKeysOf, matchKey, parseKeyFile, sha256, type KeyMatch, type KnownKey } from './api-keys.ts';
import { directoryProblem, readTrustedFile, serverOwners, type TrustedRead } from '../files/trusted-file.ts';
import { fileVersion, statOf, watchFile, type FileWatch } from '../files/watch-file.ts';
import type { Logger } from '../log/logger.ts';

export interface KeyStoreOptions {
  readonly file: string;
  /** The file was named explicitly (its absence is then worth a warning). */
  readonly fileExplicit: boolean;
  readonly envKey: string | null;
  readonly logger: Logger;
  readonly pollMs?: number;
  /** Told what each change of the file led to, as logged (the metrics count them). */
  readonly onReload?: (outcome: 'loaded' | 'rejected' | 'missing') => void;
}

/** What the HTTP edge needs of the keys: whether any is configured, and one check. */
export interface KeyVerifier {
  /** True when at least one key would be accepted. */
  readonly configured: boolean;
  /** The id of the key that matches, or null; constant time in the presented key. */
  verify(presented: string): string | null;
  /** As verify, but also naming the revoked record a key matches (for the 401's log line);
   * the same constant-time comparison over every record. */
  check(presented: string): KeyMatch;
}

export class KeyStoreError extends Error {
  override readonly name = 'KeyStoreError';
}

/** The key file, if it may be trusted (a symbolic link at its name is refused: the CLI
 * replaces the file by rename, so a link there is never one it wrote). */
export function readKeyFile(file: string, owners: readonly number[] | null): TrustedRead {
  return readTrustedFile(file, owners, {
    unreadableHint: "run the keys command as the server's user, or give that user read access",
  });
}

type Loaded = { kind: 'missing' } | { kind: 'ok'; keys: KnownKey[] } | { kind: 'invalid'; reason: string };

function load(file: string): Loaded {
  const read = readKeyFile(file, serverOwners());
  if (read.kind !== 'ok') return read.kind === 'missing' ? read : { kind: 'invalid', reason: read.reason };
  try {
    const parsed = parseKeyFile(read.data.toString('utf8'));
    return { kind: 'ok', keys: knownKeysOf(parsed) };
  } catch (error) {
    return { kind: 'invalid', reason: (error as Error).message };
  }
}

/** Why a key file could not be trusted in this (existing) directory, or null. */
function directoryDistrust(file: string): string | null {
  try {
    return directoryProblem(dirname(file), serverOwners());
  } catch {
    return null; // no directory yet: judged when a file appears
  }
}

const activeIds = (keys: readonly KnownKey[]): Set<string> => new Set(keys.filter((k) => !k.revoked).map((k) => k.id));

/** Which ids a reload made active (new, or un-revoked by hand), revoked (still in the file,
 * now revoked) or removed (no longer in the file), so the log line says which key changed;
 * ids are public (they name keys in every request line), digests never appear. */
export function keyChanges(
  before: readonly KnownKey[],
  after: readonly KnownKey[],
): { added: string[]; revoked: string[]; removed: string[] } {
  const was = activeIds(before);
  const is = activeIds(after);
  const present = new Set(after.map((k) => k.id));
  const gone = [...was].filter((id) => !is.has(id));
  return {
    added: [...is].filter((id) => !was.has(id)),
    revoked: gone.filter((id) => present.has(id)),
    removed: gone.filter((id) => !present.has(id)),
  };
}

export class KeyStore implements KeyVerifier {
  private fileKeys: KnownKey[] = [];
  /** The version last acted on, so the start-up recheck and the watcher never double up. */
  private signature = 'missing';
  private watch: FileWatch | null = null;
  /** Every record of the file (revoked too) plus API_KEY: what check() compares against. */
  private keys: KnownKey[] = [];
  private active = 0;
  private readonly envKeys: KnownKey[];
  private readonly options: KeyStoreOptions;

  constructor(options: KeyStoreOptions) {
    this.options = options;
    this.envKeys = options.envKey === null ? [] : [{ id: ENV_KEY_ID, digest: sha256(options.envKey), revoked: false }];
    this.use([]);
  }

  /** Loads the file once; an unusable file at start is fatal (there is no last good one). */
  start(): void {
    const { file, logger } = this.options;
    // Stat before reading: if the file changes in between, the recheck below sees a newer
    // version than the one recorded and reads it again.
    this.signature = fileVersion(statOf(file));
    const first = load(file);
    if (first.kind === 'invalid') throw new KeyStoreError(`API_KEYS_FILE ${file} ${first.reason}`);
    if (first.kind === 'ok') {
      this.use(first.keys);
      logger.info('keys loaded', { file, active: activeIds(first.keys).size, records: first.keys.length });
    } else {
      // No file yet: one that appears in a directory others can write will be refused, so an
      // explicit API_KEYS_FILE there is a configuration error; the default keys.json in such a
      // working directory (e.g. /tmp) is only a warning, as API_KEY may be all that is meant.
      const distrust = directoryDistrust(file);
      if (distrust !== null && this.options.fileExplicit) throw new KeyStoreError(`API_KEYS_FILE ${file} ${distrust}`);
      if (distrust !== null)
        logger.warn('keys.json in the working directory will not be trusted', { file, reason: distrust });
      else if (this.options.fileExplicit) logger.info('key file does not exist yet; watching for it', { file });
    }
    this.watch = watchFile(file, this.options.pollMs ?? 500, (stats) => {
      this.changed(stats);
    });
  }

  private use(fileKeys: KnownKey[]): void {
    this.fileKeys = fileKeys;
    this.keys = fileKeys.length === 0 ? this.envKeys : [...fileKeys, ...this.envKeys];
    this.active = activeIds(fileKeys).size + this.envKeys.length;
  }

  private changed(curr: Stats | undefined): void {
    const { file, logger } = this.options;
    const signature = fileVersion(curr);
    if (signature === this.signature) return; // nothing new (or still absent)
    this.signature = signature;
    const next = load(file);
    if (next.kind === 'invalid') {
      logger.error('key file rejected; keeping the last good keys', {
        file,
        reason: next.reason,
        active: activeIds(this.fileKeys).size,
      });
      this.options.onReload?.('rejected');
      return;
    }
    if (next.kind === 'missing') {
      // A file caught between an editor's delete and write, or removed by mistake, must not
      // lock every client out; revocation is `keys revoke`, and the next good file wins.
      logger.error('key file missing; keeping the last good keys', { file, active: activeIds(this.fileKeys).size });
      this.options.onReload?.('missing');
      return;
    }
    const changes = keyChanges(this.fileKeys, next.keys);
    this.use(next.keys);
    // `active` stays the last field: operators' and tests' patterns end on it.
    logger.info('keys reloaded', { file, ...changes, active: activeIds(next.keys).size });
    this.options.onReload?.('loaded');
  }

  /** True when at least one key would be accepted (else POST /generate is a 503). */
  get configured(): boolean {
    return this.active > 0;
  }

  /** The matching active key's id, or null. */
  verify(presented: string): string | null {
    const match = matchKey(presented, this.keys);
    return match.kind === 'active' ? match.id : null;
  }

  check(presented: string): KeyMatch {
    return matchKey(presented, this.keys);
  }

  close(): void {
    this.watch?.close();
    this.watch = null;
  }
}
