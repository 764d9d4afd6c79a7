/**
 * The policies the running server offers: POLICIES_FILE, read and checked at start and watched
 * as the key file is (lib/files/watch-file.ts: a stat every 500 ms), read under the same trust
 * rule (lib/files/trusted-file.ts: a regular file, no symbolic link, not writable by group or
 * others, owned by this server's user or root, in directories only they can write), since
 * whoever can write it decides what the service generates.
 *
 * At start any problem (no file, an untrusted one, one policy that fails its checks, more
 * plans than the file may make) stops the start with one line naming the policy and the field:
 * there is no last good set yet, and no request to serve meanwhile, so it is judged at once.
 *
 * While running, a rewrite is judged off the request path: the plans of policies whose stored
 * request is unchanged are reused, and each new one is planned in a slice of its own, the
 * event loop serving requests between two slices (a plan is bounded by the engine's work
 * budget, a file by MAX_PLANNED_POLICIES plans). The last good set is served until the new one
 * is judged whole; a newer change seen meanwhile starts the judging over on it. A rewrite that
 * fails keeps the last good set whole (never a part of the new one), is logged at error level
 * once per bad version with the reason, and `/ready` shows a fixed word for it (`status()`),
 * until a good version loads. A good one logs which policies it added, changed and removed.
 * @module
 */
import type { PolicyLookup } from '../request/index.ts';
import { readTrustedFile, serverOwners } from '../files/trusted-file.ts';
import { fileVersion, statOf, watchFile, type FileWatch } from '../files/watch-file.ts';
import type { Logger } from '../log/logger.ts';
import {
  firstFailure,
  judgeInSteps,
  judgePolicies,
  MAX_PLANNED_POLICIES,
  policyEntries,
  policySetOf,
  summaries,
  type PlannedCache,
  type PoliciesProblem,
  type PoliciesVerdict,
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

/** What `/ready` says of the policies: how many are offered, and, in one fixed word, why a
 * newer file is not (its reason in words is only in the error log line). */
export interface PolicyStatus {
  readonly state: 'loaded' | 'stale';
  readonly count: number;
  /** Why the file as it is now is not the set in use (state stale). */
  readonly reason?: PoliciesProblem;
}

/** A file's verdict: the set, or why not (one line, and its fixed word). */
export type LoadedPolicies =
  | { readonly ok: true; readonly set: PolicySet }
  | { readonly ok: false; readonly reason: string; readonly problem: PoliciesProblem };

/** The file's text, under the trust rule, or why it cannot be used. */
function readPoliciesFile(file: string): { ok: true; text: string } | Extract<LoadedPolicies, { ok: false }> {
  const read = readTrustedFile(file, serverOwners(), {
    unreadableHint: "give the server's user read access",
  });
  if (read.kind === 'missing') return { ok: false, reason: 'does not exist', problem: 'missing' };
  if (read.kind === 'refused') return { ok: false, reason: read.reason, problem: 'trust' };
  return { ok: true, text: read.data.toString('utf8') };
}

/** The set of a file's verdict, or its first failure. */
function setOf(verdict: PoliciesVerdict): LoadedPolicies {
  if (!verdict.ok) return { ok: false, reason: verdict.error, problem: verdict.problem };
  const failure = firstFailure(verdict);
  return failure === null ? { ok: true, set: policySetOf(verdict) } : { ok: false, reason: failure, problem: 'schema' };
}

/** The policies of the file, judged at once, or why it cannot be used (one line). Plans from
 * `known` and into `made` (judgePolicies). */
export function loadPolicies(
  file: string,
  minEntropyBits: number,
  known: PlannedCache = new Map(),
  made: PlannedCache = new Map(),
): LoadedPolicies {
  const read = readPoliciesFile(file);
  return read.ok ? setOf(judgePolicies(read.text, minEntropyBits, known, made)) : read;
}

/** What a policy stores, for telling a changed one from an unchanged one. */
const storedOf = (p: Policy): string => JSON.stringify([p.mode, p.options, p.minBits ?? null, p.description]);

/** Which names a reload added, changed (another stored request or description) and removed:
 * names are the operator's, restricted to a-z, 0-9, ".", "_", "-" by the schema. */
export function policyChanges(
  before: PolicySet,
  after: PolicySet,
): { added: string[]; changed: string[]; removed: string[] } {
  const added: string[] = [];
  const changed: string[] = [];
  for (const [name, policy] of after) {
    const was = before.get(name);
    if (was === undefined) added.push(name);
    else if (storedOf(was) !== storedOf(policy)) changed.push(name);
  }
  return { added, changed, removed: [...before.keys()].filter((name) => !after.has(name)) };
}

/** Lets the event loop run what is waiting (I/O, timers, requests) before the next slice. */
const nextTurn = (): Promise<void> =>
  new Promise((resolve) => {
    setImmediate(resolve);
  });

/** What the HTTP edge needs of the policies: the lookup, the list, the set, the status. */
export interface OfferedPolicies extends PolicyLookup {
  list(): readonly PolicySummary[];
  current(): PolicySet;
  status(): PolicyStatus;
}

export class PolicyStore implements OfferedPolicies {
  private set: PolicySet = new Map();
  private listed: readonly PolicySummary[] = [];
  /** The version last seen, so the start-up recheck and the watcher never double up. */
  private version = 'missing';
  private problem: PoliciesProblem | null = null;
  /** The plans of the last reading, by stored request (reused by the next). */
  private plans: PlannedCache = new Map();
  private watch: FileWatch | null = null;
  /** A judging is under way; `again`: the file changed since it began. */
  private judging = false;
  private again = false;
  /** Stored requests the judging under way has planned afresh (the others were reused). */
  private planned = 0;
  private readonly options: PolicyStoreOptions;

  constructor(options: PolicyStoreOptions) {
    this.options = options;
  }

  /** Loads the file; any problem is fatal at start (there is no last good set). */
  start(): void {
    const { file, logger, minEntropyBits } = this.options;
    this.version = fileVersion(statOf(file));
    const made: PlannedCache = new Map();
    const first = loadPolicies(file, minEntropyBits, this.plans, made);
    if (!first.ok) throw new PolicyStoreError(`POLICIES_FILE ${file} ${first.reason}`);
    this.plans = made;
    this.use(first.set);
    logger.info('policies loaded', { file, policies: first.set.size });
    this.watch = watchFile(file, this.options.pollMs ?? 500, (stats) => {
      this.changed(fileVersion(stats));
    });
  }

  private use(set: PolicySet): void {
    this.set = set;
    this.listed = Object.freeze(summaries(set));
  }

  private changed(version: string): void {
    if (version === this.version) return;
    this.version = version;
    this.again = true;
    if (!this.judging) void this.judgeChanges();
  }

  /** Judges the file until a judging ends with no newer change seen meanwhile. */
  private async judgeChanges(): Promise<void> {
    this.judging = true;
    try {
      while (this.again && this.watch !== null) {
        this.again = false;
        const made: PlannedCache = new Map();
        const outcome = await this.judgeInSlices(made);
        if (outcome !== null) this.apply(outcome, made);
      }
    } finally {
      this.judging = false;
    }
  }

  /** The file as it is now, judged a plan per slice; null when it changed (or the store closed)
   * before the judging ended: the next one reads it again. */
  private async judgeInSlices(made: PlannedCache): Promise<LoadedPolicies | null> {
    const read = readPoliciesFile(this.options.file);
    if (!read.ok) return read;
    const entries = policyEntries(read.text);
    if (!entries.ok) return setOf(entries);
    const steps = judgeInSteps(entries.entries, this.options.minEntropyBits, this.plans, made);
    this.planned = 0;
    let step = steps.next();
    while (step.done !== true) {
      this.planned++;
      await nextTurn();
      if (this.again || this.watch === null) return null;
      step = steps.next();
    }
    return setOf({ ok: true, verdicts: step.value });
  }

  private apply(outcome: LoadedPolicies, made: PlannedCache): void {
    const { file, logger } = this.options;
    if (!outcome.ok) {
      // The plans of the good policies of a bad version help its fix; bounded all the same.
      for (const [key, planned] of made) this.plans.set(key, planned);
      if (this.plans.size > 4 * MAX_PLANNED_POLICIES) this.plans = made;
      this.problem = outcome.problem;
      this.options.onReload?.('rejected');
      logger.error('policies file rejected; keeping the last good policies', {
        file,
        reason: outcome.reason,
        policies: this.set.size,
      });
      return;
    }
    const changes = policyChanges(this.set, outcome.set);
    this.plans = made;
    this.problem = null;
    this.use(outcome.set);
    this.options.onReload?.('loaded');
    // `policies` stays the last field: operators' and tests' patterns end on it. `planned`:
    // the stored requests planned afresh, the rest were reused.
    logger.info('policies reloaded', { file, ...changes, planned: this.planned, policies: outcome.set.size });
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
    this.watch?.close();
    this.watch = null;
  }
}
