/**
 * Named policies (POLICIES_FILE): what the file says, checked and counted without drawing.
 *
 * A policy is a stored request, `{mode, options?, minBits?, description?}`, that a request
 * `{mode, policy}` generates with (lib/request/generate.ts resolves the name). Every policy is
 * checked when its file is read, deterministically and without generating anything (Vault
 * generates 10 passwords within a second to check one, hashicorp/vault PR #8637):
 *
 * 1. the file's shape, by spec/policies.schema.json (compiled to lib/generated/);
 * 2. its options and minBits, by the request schema itself, as a request of its mode;
 * 3. that they can be met (a class emptied by exclusions, a site rule nothing satisfies...):
 *    the generator's own plan step, which also gives the exact bits;
 * 4. the operator's floor (MIN_ENTROPY_BITS), from those bits.
 *
 * Steps 2 to 4 are `plannedEntropy` of the core: the same code, in the same order, as a
 * request sending those options would meet, so a policy that loads is one that generates, with
 * the bits reported here. Each policy is judged on its own, so the CLI can report every one.
 * @module
 */
import validatePoliciesFile from '../generated/policies-validator.generated.ts';
import { plannedEntropy, type StoredPolicy } from '../request/index.ts';
import type { Entropy } from '../core/index.ts';
import { escapeForTerminal } from '../log/shown-text.ts';

/** A policy that passed every check, with its exact bits. */
export interface Policy extends StoredPolicy {
  readonly name: string;
  readonly description: string | null;
  /** log2 of the number of equally likely outputs, unrounded. */
  readonly bits: number;
  /** As a response shows it: bits to 2 decimals, label and level. */
  readonly entropy: Entropy;
}

/** One policy's verdict: loaded, or the field that failed and why. */
export type PolicyVerdict =
  | { readonly name: string; readonly ok: true; readonly policy: Policy }
  | { readonly name: string; readonly ok: false; readonly field: string; readonly error: string };

/**
 * Why a policies file is not in use, in one fixed word (GET /ready shows it; the reason in
 * words goes only to the error log line): `json` it is not JSON; `schema` it, or one of its
 * policies, is not what the schema and the checks allow; `budget` it would plan more than
 * MAX_PLANNED_POLICIES; `trust` it cannot be trusted or read; `missing` there is no file.
 */
export type PoliciesProblem = 'json' | 'schema' | 'budget' | 'trust' | 'missing';

/** The whole file's verdict: unusable as a whole, or one verdict per policy in file order. */
export type PoliciesVerdict =
  | { readonly ok: false; readonly error: string; readonly problem: 'json' | 'schema' | 'budget' }
  | { readonly ok: true; readonly verdicts: readonly PolicyVerdict[] };

/**
 * The most stored requests (mode, options, minBits) one file may have planned: policies that
 * store the same request share one plan. Each plan is bounded by the engine's work budget, so
 * a file's planning is bounded by this many times that budget (docs/deploy.md, Policies files).
 */
export const MAX_PLANNED_POLICIES = 64;

/** What planning a stored request gave: its exact entropy, or the refusal. */
export type Planned = ReturnType<typeof plannedEntropy>;

/** Plans of stored requests by plannedKey, kept from one reading of a file to the next so an
 * unchanged policy is not planned again. */
export type PlannedCache = Map<string, Planned>;

/** A loaded set: every policy valid. Read-only, and safe to share (frozen). */
export type PolicySet = ReadonlyMap<string, Policy>;

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}
type Validator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
const validateFile = validatePoliciesFile as unknown as Validator;

const cut = (name: string): string => (name.length > 64 ? `${name.slice(0, 64)}...` : name);

/** A name as an operator's message shows it: quoted, and cut short (it may be anything). */
export function shownName(name: string): string {
  return JSON.stringify(cut(name));
}

/** An unknown member's name as a message's field: cut short, and every character a terminal
 * could act on escaped (lib/log/shown-text.ts), a line break too. */
const shownField = (name: string): string => escapeForTerminal(cut(name));

/**
 * The first schema error, as `field` (dotted, inside the policy, or of the file when `base` is
 * '') and words. The schema nests no object with required or additional properties below a
 * policy or the file itself, so those errors name a field of that level.
 */
function schemaError(errors: Validator['errors'], base: string): { field: string; error: string } {
  /* c8 ignore next -- ajv reports at least one error when validation fails */
  const e = errors?.[0] ?? { instancePath: '', keyword: '', params: {}, message: 'is invalid' };
  const path = e.instancePath.split('/').slice(base === '' ? 1 : 3);
  let field = path.join('.');
  let words: string;
  switch (e.keyword) {
    case 'additionalProperties':
      // A name from the file, shown cut and escaped wherever the message goes (a terminal, the log).
      field = shownField(String(e.params.additionalProperty));
      words = `is not a field of ${base === '' ? 'the policies file (policies)' : 'a policy (mode, options, minBits, description)'}`;
      break;
    case 'required':
      field = String(e.params.missingProperty);
      words = 'is required';
      break;
    case 'type':
      words = `must be ${e.params.type === 'object' ? 'an' : 'a'} ${String(e.params.type)}`;
      break;
    case 'enum':
      words = `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      break;
    default:
      words = String(e.message);
  }
  return { field, error: `${field} ${words}` };
}

/** The key of a stored request's plan: what planning reads of a policy (not its description). */
function plannedKey(value: unknown): string {
  const v = (value !== null && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  return JSON.stringify([v.mode ?? null, v.options ?? null, v.minBits ?? null]);
}

/** One policy judged by steps 1 to 4; its plan from `known` when an earlier reading made it,
 * and written into `made` either way. */
function judge(
  name: string,
  value: unknown,
  minEntropyBits: number,
  known: PlannedCache,
  made: PlannedCache,
): PolicyVerdict {
  const refuse = (field: string, error: string): PolicyVerdict => ({ name, ok: false, field, error });
  if (!validateFile({ policies: { [name]: value } })) {
    if (validateFile.errors?.some((e) => e.keyword === 'propertyNames'))
      return refuse('name', 'a policy name is 1 to 64 of a-z, 0-9, ".", "_", "-", the first a letter or digit');
    const { field, error } = schemaError(validateFile.errors, name);
    return refuse(field, error);
  }
  const stored = value as {
    mode: Policy['mode'];
    options?: Record<string, unknown>;
    minBits?: number;
    description?: string;
  };
  const key = plannedKey(stored);
  const planned =
    made.get(key) ??
    known.get(key) ??
    plannedEntropy({ mode: stored.mode, options: stored.options, minBits: stored.minBits }, { minEntropyBits });
  made.set(key, planned);
  // Every refusal of a request built this way names its field; `options` is the fallback.
  /* c8 ignore next */
  if (!planned.ok) return refuse(planned.error.field ?? 'options', planned.error.error);
  const policy: Policy = Object.freeze({
    name,
    mode: stored.mode,
    options: Object.freeze({ ...(stored.options ?? {}) }),
    ...(stored.minBits === undefined ? {} : { minBits: stored.minBits }),
    description: stored.description ?? null,
    bits: planned.bits,
    entropy: planned.entropy,
  });
  return { name, ok: true, policy };
}

/** A policies file's text read as far as its policies (each name and value, in file order), or
 * why the file itself cannot be used. */
export function policyEntries(
  text: string,
): Exclude<PoliciesVerdict, { ok: true }> | { readonly ok: true; readonly entries: readonly [string, unknown][] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `is not JSON (${(error as Error).message})`, problem: 'json' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, error: 'must hold a JSON object {"policies": {...}}', problem: 'schema' };
  const { policies, ...rest } = parsed as Record<string, unknown>;
  const entries = policies !== null && typeof policies === 'object' ? Object.entries(policies) : [];
  // The file's own level (its fields, how many policies), each policy replaced by a valid
  // stand-in under a valid name: every policy is judged on its own below.
  const standIns = Object.fromEntries(entries.map((_, i) => [`p${i}`, { mode: 'password' }]));
  const shape = { ...rest, policies: Array.isArray(policies) || entries.length === 0 ? policies : standIns };
  if (!validateFile(shape)) return { ok: false, error: schemaError(validateFile.errors, '').error, problem: 'schema' };
  const plans = new Set(entries.map(([, value]) => plannedKey(value))).size;
  if (plans > MAX_PLANNED_POLICIES)
    return {
      ok: false,
      error: `stores ${String(plans)} different requests to plan, more than ${String(MAX_PLANNED_POLICIES)} (each plan may take the whole work budget of a request)`,
      problem: 'budget',
    };
  return { ok: true, entries };
}

/**
 * Judges `entries` one policy at a time, yielding after each policy it had to plan (a plan is
 * the costly step, up to the engine's work budget): a caller that resumes it from the event
 * loop lets other work run between two plans. Plans come from `known` when an earlier reading
 * made them; every plan of this reading is written into `made`.
 */
export function* judgeInSteps(
  entries: readonly [string, unknown][],
  minEntropyBits: number,
  known: PlannedCache,
  made: PlannedCache,
): Generator<void, PolicyVerdict[]> {
  const verdicts: PolicyVerdict[] = [];
  for (const [name, value] of entries) {
    const key = plannedKey(value);
    const fresh = !made.has(key) && !known.has(key);
    verdicts.push(judge(name, value, minEntropyBits, known, made));
    // A policy refused before planning (its schema) made no plan: nothing to yield after.
    if (fresh && made.has(key)) yield;
  }
  return verdicts;
}

/** Every policy of a policies file's text, judged at once; `minEntropyBits` is the operator's
 * floor. Plans from `known`, and into `made`, as judgeInSteps. */
export function judgePolicies(
  text: string,
  minEntropyBits: number,
  known: PlannedCache = new Map(),
  made: PlannedCache = new Map(),
): PoliciesVerdict {
  const read = policyEntries(text);
  if (!read.ok) return read;
  const steps = judgeInSteps(read.entries, minEntropyBits, known, made);
  let step = steps.next();
  while (step.done !== true) step = steps.next();
  return { ok: true, verdicts: step.value };
}

/** The first failure of a verdict as one line (policy, field, reason), or null when all hold. */
export function firstFailure(verdict: PoliciesVerdict): string | null {
  if (!verdict.ok) return verdict.error;
  const bad = verdict.verdicts.find((v) => !v.ok);
  if (bad === undefined) return null;
  return `policy ${shownName(bad.name)}, field ${bad.field}: ${bad.error}`;
}

/** The set of a verdict with no failure (call firstFailure first). */
export function policySetOf(verdict: PoliciesVerdict): PolicySet {
  const set = new Map<string, Policy>();
  if (verdict.ok) for (const v of verdict.verdicts) if (v.ok) set.set(v.name, v.policy);
  return set;
}

/** What GET /generate and the home page list of a policy: never more than a reader needs. */
export interface PolicySummary {
  readonly name: string;
  readonly mode: 'password' | 'passphrase';
  readonly description: string | null;
  readonly entropy: Entropy;
}

export function summaries(set: PolicySet): PolicySummary[] {
  return [...set.values()].map((p) => ({ name: p.name, mode: p.mode, description: p.description, entropy: p.entropy }));
}
