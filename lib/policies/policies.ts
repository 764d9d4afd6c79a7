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
import type { Entropy } from '../core/entropy.ts';
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

/** The whole file's verdict: unreadable as a whole, or one verdict per policy in file order. */
export type PoliciesVerdict =
  { readonly ok: false; readonly error: string } | { readonly ok: true; readonly verdicts: readonly PolicyVerdict[] };

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

/** One policy judged by steps 1 to 4. */
function judge(name: string, value: unknown, minEntropyBits: number): PolicyVerdict {
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
  const request = { mode: stored.mode, options: stored.options, minBits: stored.minBits };
  const planned = plannedEntropy(request, { minEntropyBits });
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

/** Every policy of a policies file's text, judged; `minEntropyBits` is the operator's floor. */
export function judgePolicies(text: string, minEntropyBits: number): PoliciesVerdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `is not JSON (${(error as Error).message})` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, error: 'must hold a JSON object {"policies": {...}}' };
  const { policies, ...rest } = parsed as Record<string, unknown>;
  const entries = policies !== null && typeof policies === 'object' ? Object.entries(policies) : [];
  // The file's own level (its fields, how many policies), each policy replaced by a valid
  // stand-in under a valid name: every policy is judged on its own below.
  const standIns = Object.fromEntries(entries.map((_, i) => [`p${i}`, { mode: 'password' }]));
  const shape = { ...rest, policies: Array.isArray(policies) || entries.length === 0 ? policies : standIns };
  if (!validateFile(shape)) return { ok: false, error: schemaError(validateFile.errors, '').error };
  return { ok: true, verdicts: entries.map(([name, value]) => judge(name, value, minEntropyBits)) };
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
