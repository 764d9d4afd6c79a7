/**
 * The one entry point the server and `window.ServiceAPI` share: any value in, the contract's
 * response body or error body out. Never throws for any input.
 * @module
 */
import {
  defaultRandom,
  generatePassphrases,
  generatePasswords,
  isPassphrasePlan,
  isPlan,
  planPassphrase,
  planPassword,
  type Entropy,
  type PassphraseMetadata,
  type PassphrasePlan,
  type PasswordMetadata,
  type PasswordPlan,
  type RandomSource,
} from '../core/index.ts';
// The plan store's keys: every option, generated from the schema (spec/build.ts), so none is missed.
import {
  passphraseOptionsKey as passphrasePlanKey,
  passwordOptionsKey as passwordPlanKey,
} from '../generated/options.generated.ts';
import {
  DEFAULT_PASSWORD_OPTIONS,
  validateRequest,
  type ErrorBody,
  type Validation,
  type ValidRequest,
} from './validate.ts';
import {
  generateRulesPasswords,
  isRulesPlan,
  planRulesRequest,
  type RulesMetadata,
  type RulesPlan,
} from './password-rules.ts';
import {
  generatePatternPasswords,
  planPatternRequest,
  type PatternMetadata,
  type PatternRequestPlan,
} from './pattern.ts';
import { floorError } from './_entropy-floor.ts';
import { planBytes, remember, type PlanStore } from './plan-store.ts';

export type { PlanStore };

/** A credential's metadata: what its options give, and the policy named, if one was. */
export type Metadata = (PasswordMetadata | RulesMetadata | PatternMetadata | PassphraseMetadata) & {
  readonly policy?: string;
};

export interface Credential {
  readonly value: string;
  readonly entropy: Entropy;
  readonly metadata: Metadata;
}

export interface GenerateResponse {
  readonly mode: 'password' | 'passphrase';
  readonly count: number;
  readonly value: string;
  readonly entropy: Entropy;
  readonly metadata: Metadata;
  readonly results: readonly Credential[];
}

export type GenerateOutcome =
  { readonly status: 200; readonly body: GenerateResponse } | { readonly status: 400; readonly body: ErrorBody };

/**
 * A named policy as the generator uses it: a stored request, the options and minBits a request
 * naming it generates with (the operator's POLICIES_FILE; lib/policies/ reads and checks it).
 */
export interface StoredPolicy {
  readonly mode: 'password' | 'passphrase';
  readonly options: { readonly [key: string]: unknown };
  readonly minBits?: number;
}

/**
 * The name of the `<meta>` in which the server gives the home page its policies (their stored
 * requests, descriptions and entropy, as JSON): lib/http/assets.ts writes it, browser/entry.ts
 * reads it, so the page's ServiceAPI generates with them without a network request.
 */
export const POLICIES_META = 'policies';

/** The policies a request may name (a ReadonlyMap fits). */
export interface PolicyLookup {
  get(name: string): StoredPolicy | undefined;
}

/** What the caller of the generator (the server, the page's ServiceAPI) decides, not the request. */
export interface GenerateSettings {
  /** The service's entropy floor in bits (MIN_ENTROPY_BITS; 0 to MAX_MIN_BITS, checked by the
   * caller): requests whose options give fewer bits are refused (_entropy-floor.ts). */
  readonly minEntropyBits?: number;
  /** The named policies (absent or null: none configured, and a request naming one is a 400). */
  readonly policies?: PolicyLookup | null;
  /** Where plans are kept between requests (the server's memo, lib/http/plan-memo.ts); without
   * one every request plans afresh. */
  readonly plans?: PlanStore;
}

const NO_SETTINGS: GenerateSettings = Object.freeze({});

type Plan = PasswordPlan | RulesPlan | PatternRequestPlan | PassphrasePlan;

/** A passphrase plan's bytes, at most: its options, letter range, metadata and key, with room to
 * spare (the word array is the list's own, shared by every plan of that list). */
const PASSPHRASE_PLAN_BYTES = 2048;

// Made once, not per request (an arrow written in the call would be a new function each time).
const passphraseBytes = () => PASSPHRASE_PLAN_BYTES;
const passwordBytes = (plan: PasswordPlan | ErrorBody) => planBytes(plan, '');
/** The store key of a password request without options, made once: a key is a long string,
 * and making and hashing it costs more than the rest of the plan's lookup. */
const DEFAULT_PASSWORD_KEY = passwordPlanKey(DEFAULT_PASSWORD_OPTIONS);

/** The request's plan (pool or rule tables, entropy, metadata), from the store when it holds
 * it; or the 400 of options nothing can be made for. */
function planOf(request: ValidRequest, store: PlanStore | undefined): Plan | ErrorBody {
  if (request.mode === 'passphrase') {
    const o = request.options;
    const plan = remember(store, passphrasePlanKey(o), o, planPassphrase, passphraseBytes);
    return isPassphrasePlan(plan) ? plan : { ...plan };
  }
  if (request.rules !== null) {
    const plan = planRulesRequest(request.rules, store);
    return isRulesPlan(plan) ? plan : { ...plan };
  }
  if (request.pattern !== null) {
    const plan = planPatternRequest(request.pattern, store);
    return 'pattern' in plan ? plan : { ...plan };
  }
  const o = request.options;
  const key = o === DEFAULT_PASSWORD_OPTIONS ? DEFAULT_PASSWORD_KEY : passwordPlanKey(o);
  const plan = remember(store, key, o, planPassword, passwordBytes);
  return isPlan(plan) ? plan : { ...plan };
}

function valuesOf(plan: Plan, request: ValidRequest, random: RandomSource): string[] {
  if (request.mode === 'passphrase') return generatePassphrases(plan as PassphrasePlan, random, request.count);
  if (request.rules !== null) return generateRulesPasswords(plan as RulesPlan, random, request.count);
  if (request.pattern !== null) return generatePatternPasswords(plan as PatternRequestPlan, random, request.count);
  return generatePasswords(plan as PasswordPlan, random, request.count);
}

const refused = (error: string, field: string): { readonly ok: false; readonly error: ErrorBody } => ({
  ok: false,
  error: { error, status: 400, field },
});

/** The stored request a request naming a policy stands for, or the 400 that names the field. */
function resolvePolicy(
  request: ValidRequest,
  name: string,
  policies: PolicyLookup | null | undefined,
): Validation | { readonly ok: false; readonly error: ErrorBody } {
  if (policies === null || policies === undefined)
    return refused('policy: this service has no policies configured (POLICIES_FILE)', 'policy');
  const stored = policies.get(name);
  // The name is not echoed (the contract's messages never repeat a submitted value).
  if (stored === undefined) return refused('policy: no policy of that name (GET /generate lists them)', 'policy');
  if (stored.mode !== request.mode) return refused(`mode: that policy is of mode ${stored.mode}`, 'mode');
  // Checked again as a request, so a policy is never more than what a request could send
  // (lib/policies/ has checked it at load; this costs one validation of a small object).
  return validateRequest({ mode: stored.mode, count: request.count, minBits: stored.minBits, options: stored.options });
}

/**
 * The request to plan: the input checked and given its defaults, or, when it names a policy,
 * the policy's stored request (with `policy` set to the name). Allocates nothing more than the
 * validation for a request without a policy: this is every request's path.
 */
function requestOf(input: unknown, settings: GenerateSettings): Validation {
  const checked = validateRequest(input);
  if (!checked.ok) return checked;
  const name = checked.request.policy;
  if (name === undefined) return checked;
  const resolved = resolvePolicy(checked.request, name, settings.policies);
  if (resolved.ok) resolved.request.policy = name; // a fresh object of our own
  return resolved;
}

/** The request's plan, if the floor allows it (decided from the exact bits, before any draw). */
function plannedWithin(request: ValidRequest, settings: GenerateSettings): Plan | ErrorBody {
  const plan = planOf(request, settings.plans);
  if (!('bits' in plan)) return plan;
  return floorError(plan.bits, request.minBits, settings.minEntropyBits ?? 0) ?? plan;
}

export function generate(
  input: unknown,
  random: RandomSource = defaultRandom,
  settings: GenerateSettings = NO_SETTINGS,
): GenerateOutcome {
  const checked = requestOf(input, settings);
  if (!checked.ok) return { status: 400, body: checked.error };
  const { request } = checked;
  const plan = plannedWithin(request, settings);
  if (!('bits' in plan)) return { status: 400, body: plan };
  const values = valuesOf(plan, request, random);
  const { entropy } = plan;
  // The plan's metadata is shared by every request of these options: a policy's is a copy.
  const metadata: Metadata =
    request.policy === undefined ? plan.metadata : { ...plan.metadata, policy: request.policy };
  const results = values.map((value): Credential => ({ value, entropy, metadata }));
  return {
    status: 200,
    body: { mode: request.mode, count: values.length, value: values[0], entropy, metadata, results },
  };
}

/**
 * What `generate` would answer about a request's strength, without drawing anything: its exact
 * entropy (unrounded bits too), or the 400 it would get. For checks made ahead of any request,
 * such as a named policy's when its file is loaded (lib/policies/).
 */
export function plannedEntropy(
  input: unknown,
  settings: GenerateSettings = NO_SETTINGS,
):
  | { readonly ok: true; readonly bits: number; readonly entropy: Entropy }
  | { readonly ok: false; readonly error: ErrorBody } {
  const checked = requestOf(input, settings);
  if (!checked.ok) return checked;
  const plan = plannedWithin(checked.request, settings);
  return 'bits' in plan ? { ok: true, bits: plan.bits, entropy: plan.entropy } : { ok: false, error: plan };
}
