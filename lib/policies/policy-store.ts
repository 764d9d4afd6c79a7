/**
 * The policies the running server offers: POLICIES_FILE, read and checked at start and watched
 * as the key file is (lib/keys/key-store.ts): polled with fs.watchFile (a stat every 500 ms),
 * read under the same trust rule (lib/files/trusted-file.ts: a regular file, no symbolic link,
 * not writable by group or others, owned by this server's user or root, in directories only
 * they can write), since whoever can write it decides what the service generates.
 *
 * At start any problem (no file, an untrusted one, one policy that fails its checks) stops the
 * start with one line naming the policy and the field: there is no last good set yet. While
 * running, a rewrite that fails keeps the last good set whole (never a part of the new one),
 * is logged at error level once per bad version with the reason, and `/ready` shows it
 * (`status()`), until a good version loads.
 * @module
 */
import { statSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import type { PolicyLookup } from '../request/index.ts';
import { readTrustedFile, serverOwners } from '../files/trusted-file.ts';
import type { Logger } from '../log/logger.ts';
import {
  firstFailure,
  judgePolicies,
  policySetOf,
  summaries,
  type Policy,
  type PolicySet,
  type PolicySummary,
} from './policies.ts';

export interface PolicyStoreOptions {
  readonly file: string;
  /** The operator's floor (MIN_ENTROPY_BITS): a policy below it is invalid. */
  readonly minEntropyBits: number;
  readonly logger: Logger;
  readonly pollMs?: number;
  /** Each change of the file acted on: loaded, or rejected (the last good set stays). */
  readonly onReload?: (outcome: 'loaded' | 'rejected') => void;
}

export class PolicyStoreError extends Error {
  override readonly name = 'PolicyStoreError';
}

/** What `/ready` says of the policies: how many are offered, and why a newer file is not. */
export interface PolicyStatus {
  readonly state: 'loaded' | 'stale';
  readonly count: number;
  /** Why the file as it is now is not the set in use (state stale). */
  readonly reason?: string;
}

/** The policies of the file, or why it cannot be used (one line). */
export function loadPolicies(
  file: string,
  minEntropyBits: number,
): { ok: true; set: PolicySet } | { ok: false; reason: string } {
  const read = readTrustedFile(file, serverOwners(), {
    unreadableHint: "give the server's user read access",
  });
  if (read.kind === 'missing') return { ok: false, reason: 'does not exist' };
  if (read.kind === 'refused') return { ok: false, reason: read.reason };
  const verdict = judgePolicies(read.data.toString('utf8'), minEntropyBits);
  const failure = firstFailure(verdict);
  return failure === null ? { ok: true, set: policySetOf(verdict) } : { ok: false, reason: failure };
}

/** One version of the file: a rename changes ino, an in-place write mtime/ctime/size. */
function signatureOf(stats: Stats | undefined): string {
  return stats === undefined || stats.nlink === 0
    ? 'missing'
    : `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

function statOf(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

/** What the HTTP edge needs of the policies: the lookup, the list, the set, the status. */
export interface OfferedPolicies extends PolicyLookup {
  list(): readonly PolicySummary[];
  current(): PolicySet;
  status(): PolicyStatus;
}

export class PolicyStore implements OfferedPolicies {
  private set: PolicySet = new Map();
  private listed: readonly PolicySummary[] = [];
  private signature = 'missing';
  private problem: string | null = null;
  private recheck: NodeJS.Timeout | null = null;
  private watching = false;
  private readonly options: PolicyStoreOptions;
  private readonly listener = (curr: Stats): void => {
    this.changed(curr);
  };

  constructor(options: PolicyStoreOptions) {
    this.options = options;
  }

  /** Loads the file; any problem is fatal at start (there is no last good set). */
  start(): void {
    const { file, logger, minEntropyBits } = this.options;
    this.signature = signatureOf(statOf(file));
    const first = loadPolicies(file, minEntropyBits);
    if (!first.ok) throw new PolicyStoreError(`POLICIES_FILE ${file} ${first.reason}`);
    this.use(first.set);
    logger.info('policies loaded', { file, policies: first.set.size });
    const interval = this.options.pollMs ?? 500;
    watchFile(file, { interval, persistent: false }, this.listener);
    this.watching = true;
    // watchFile takes its first stat asynchronously: a write before it would go unseen.
    this.recheck = setTimeout(
      () => {
        this.changed(statOf(file));
      },
      2 * interval + 50,
    );
    this.recheck.unref();
  }

  private use(set: PolicySet): void {
    this.set = set;
    this.listed = Object.freeze(summaries(set));
  }

  private changed(curr: Stats | undefined): void {
    const { file, logger, minEntropyBits } = this.options;
    const signature = signatureOf(curr);
    if (signature === this.signature) return;
    this.signature = signature;
    const next = loadPolicies(file, minEntropyBits);
    if (!next.ok) {
      this.problem = next.reason;
      this.options.onReload?.('rejected');
      logger.error('policies file rejected; keeping the last good policies', {
        file,
        reason: next.reason,
        policies: this.set.size,
      });
      return;
    }
    this.problem = null;
    this.use(next.set);
    this.options.onReload?.('loaded');
    logger.info('policies reloaded', { file, policies: next.set.size });
  }

  get(name: string): Policy | undefined {
    return this.set.get(name);
  }

  /** The policies in use, as GET /generate and the home page list them (file order). */
  list(): readonly PolicySummary[] {
    return this.listed;
  }

  /** The set in use (for the home page, which generates in the browser). */
  current(): PolicySet {
    return this.set;
  }

  status(): PolicyStatus {
    return this.problem === null
      ? { state: 'loaded', count: this.set.size }
      : { state: 'stale', count: this.set.size, reason: this.problem };
  }

  close(): void {
    if (this.watching) unwatchFile(this.options.file, this.listener);
    this.watching = false;
    if (this.recheck !== null) clearTimeout(this.recheck);
    this.recheck = null;
  }
}
