/**
 * The one entry point the server and `window.ServiceAPI` share: any value in, the contract's
 * response body or error body out. Never throws for any input.
 * @module
 */
import { defaultRandom, type RandomSource } from './random.ts';
import { validateRequest, type ErrorBody, type ValidRequest } from './validate.ts';
import {
  generatePasswords,
  isPlan,
  PASSWORD_PLAN_BYTES,
  passwordPlanKey,
  planPassword,
  type PasswordMetadata,
  type PasswordPlan,
} from './password.ts';
import {
  generatePassphrases,
  isPassphrasePlan,
  PASSPHRASE_PLAN_BYTES,
  passphrasePlanKey,
  planPassphrase,
  type PassphraseMetadata,
  type PassphrasePlan,
} from './passphrase.ts';
import {
  generateRulesPasswords,
  isRulesPasswordPlan,
  planRulesRequest,
  type RulesMetadata,
  type RulesPasswordPlan,
} from './password-rules.ts';
import { floorError } from './entropy-floor.ts';
import type { Entropy } from './entropy.ts';
import { remember, type PlanStore } from './plan-store.ts';

export type { PlanStore };

export type Metadata = PasswordMetadata | RulesMetadata | PassphraseMetadata;

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

/** What the caller of the generator (the server, the page's ServiceAPI) decides, not the request. */
export interface GenerateSettings {
  /** The service's entropy floor in bits (MIN_ENTROPY_BITS; 0 to MAX_MIN_BITS, checked by the
   * caller): requests whose options give fewer bits are refused (entropy-floor.ts). */
  readonly minEntropyBits?: number;
  /** Where plans are kept between requests (the server's memo, lib/http/plan-memo.ts); without
   * one every request plans afresh. */
  readonly plans?: PlanStore;
}

const NO_SETTINGS: GenerateSettings = Object.freeze({});

type Plan = PasswordPlan | RulesPasswordPlan | PassphrasePlan;

// Made once, not per request (an arrow written in the call would be a new function each time).
const passwordBytes = () => PASSWORD_PLAN_BYTES;
const passphraseBytes = () => PASSPHRASE_PLAN_BYTES;

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
    return isRulesPasswordPlan(plan) ? plan : { ...plan };
  }
  const o = request.options;
  const plan = remember(store, passwordPlanKey(o), o, planPassword, passwordBytes);
  return isPlan(plan) ? plan : { ...plan };
}

function valuesOf(plan: Plan, request: ValidRequest, random: RandomSource): string[] {
  if (request.mode === 'passphrase') return generatePassphrases(plan as PassphrasePlan, random, request.count);
  if (request.rules !== null) return generateRulesPasswords(plan as RulesPasswordPlan, random, request.count);
  return generatePasswords(plan as PasswordPlan, random, request.count);
}

export function generate(
  input: unknown,
  random: RandomSource = defaultRandom,
  settings: GenerateSettings = NO_SETTINGS,
): GenerateOutcome {
  const checked = validateRequest(input);
  if (!checked.ok) return { status: 400, body: checked.error };
  const { request } = checked;
  const plan = planOf(request, settings.plans);
  if (!('bits' in plan)) return { status: 400, body: plan };
  // The floor is decided from the plan's exact bits, before any draw.
  const belowFloor = floorError(plan.bits, request.minBits, settings.minEntropyBits ?? 0);
  if (belowFloor !== null) return { status: 400, body: belowFloor };
  const values = valuesOf(plan, request, random);
  const { entropy, metadata } = plan;
  const results = values.map((value): Credential => ({ value, entropy, metadata }));
  return {
    status: 200,
    body: { mode: request.mode, count: values.length, value: values[0], entropy, metadata, results },
  };
}
