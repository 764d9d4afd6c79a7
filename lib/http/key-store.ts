/**
 * The keys the running server accepts: the key file's active records plus the optional
 * API_KEY. The file is polled with fs.watchFile every 500 ms (a stat, not a read), which sees
 * in-place writes and the CLI's write-then-rename alike, also for a file that does not exist
 * yet, so revocation and replacement take effect within about a second without a restart.
 * A file that stops parsing, or disappears, keeps the last good keys and is logged once per
 * bad version.
 * @module
 */
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { activeKeysOf, ENV_KEY_ID, parseKeyFile, sha256, verifyKey, type ActiveKey } from './api-keys.ts';
import type { Logger } from './logger.ts';

export interface KeyStoreOptions {
  readonly file: string;
  /** The file was named explicitly (its absence is then worth a warning). */
  readonly fileExplicit: boolean;
  readonly envKey: string | null;
  readonly logger: Logger;
  readonly pollMs?: number;
}

export class KeyStoreError extends Error {
  override readonly name = 'KeyStoreError';
}

type Loaded = { kind: 'missing' } | { kind: 'ok'; keys: ActiveKey[]; total: number } | { kind: 'invalid'; reason: string };

function load(file: string): Loaded {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'invalid', reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  try {
    const parsed = parseKeyFile(text);
    return { kind: 'ok', keys: activeKeysOf(parsed), total: parsed.keys.length };
  } catch (error) {
    return { kind: 'invalid', reason: (error as Error).message };
  }
}

export class KeyStore {
  private fileKeys: ActiveKey[] = [];
  private keys: ActiveKey[] = [];
  private readonly envKeys: ActiveKey[];
  private readonly options: KeyStoreOptions;
  private watching = false;
  private readonly listener = (curr: Stats, prev: Stats): void => this.changed(curr, prev);

  constructor(options: KeyStoreOptions) {
    this.options = options;
    this.envKeys = options.envKey === null ? [] : [{ id: ENV_KEY_ID, digest: sha256(options.envKey) }];
    this.keys = this.envKeys;
  }

  /** Loads the file once; an unusable file at start is fatal (there is no last good one). */
  start(): void {
    const { file, logger } = this.options;
    const first = load(file);
    if (first.kind === 'invalid') throw new KeyStoreError(`API_KEYS_FILE ${file} ${first.reason}`);
    if (first.kind === 'ok') {
      this.use(first.keys);
      logger.info('keys loaded', { file, active: first.keys.length, records: first.total });
    } else if (this.options.fileExplicit) {
      logger.info('key file does not exist yet; watching for it', { file });
    }
    if (this.keys.length === 0) logger.info('no API key configured: POST /generate answers 503 until one is issued');
    watchFile(file, { interval: this.options.pollMs ?? 500, persistent: false }, this.listener);
    this.watching = true;
  }

  private use(fileKeys: ActiveKey[]): void {
    this.fileKeys = fileKeys;
    this.keys = fileKeys.length === 0 ? this.envKeys : [...fileKeys, ...this.envKeys];
  }

  private changed(curr: Stats, prev: Stats): void {
    const { file, logger } = this.options;
    if (curr.nlink === 0 && prev.nlink === 0) return; // still absent
    const next = load(file);
    if (next.kind === 'invalid') {
      logger.error('key file rejected; keeping the last good keys', { file, reason: next.reason, active: this.fileKeys.length });
      return;
    }
    if (next.kind === 'missing') {
      // A file caught between an editor's delete and write, or removed by mistake, must not
      // lock every client out; revocation is `keys revoke`, and the next good file wins.
      logger.error('key file missing; keeping the last good keys', { file, active: this.fileKeys.length });
      return;
    }
    this.use(next.keys);
    logger.info('keys reloaded', { file, active: next.keys.length });
  }

  /** True when at least one key would be accepted (else POST /generate is a 503). */
  get configured(): boolean {
    return this.keys.length > 0;
  }

  /** The matching key's id, or null. */
  verify(presented: string): string | null {
    return verifyKey(presented, this.keys);
  }

  close(): void {
    if (this.watching) unwatchFile(this.options.file, this.listener);
    this.watching = false;
  }
}
