/**
 * The one entry point the server and `window.ServiceAPI` share: any value in, the contract's
 * response body or error body out. Never throws for any input.
 * @module
 */
import { defaultRandom, type RandomSource } from './random.ts';
import { validateRequest, type ErrorBody, type ValidRequest } from './validate.ts';
import { cachedPlanPassword, generatePasswords, isPlan, type PasswordMetadata, type PasswordPlan } from './password.ts';
import {
  cachedPlanPassphrase,
  generatePassphrases,
  type PassphraseMetadata,
  type PassphrasePlan,
} from './passphrase.ts';
import {
  cachedPlanRules,
  generateRulesPasswords,
  isRulesPasswordPlan,
  type RulesMetadata,
  type RulesPasswordPlan,
} from './password-rules.ts';
import { floorError } from './entropy-floor.ts';
import type { Entropy } from './entropy.ts';

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
}

const NO_SETTINGS: GenerateSettings = Object.freeze({});

type Plan = PasswordPlan | RulesPasswordPlan | PassphrasePlan;

/** What a valid request produced: the values, and the plan's shared entropy, metadata and their JSON. */
interface Batch {
  readonly mode: 'password' | 'passphrase';
  readonly values: string[];
  readonly plan: Plan;
}

/** The request's plan (pool tables or rule tables, entropy, metadata, their JSON), cached per
 * option set so that a request only draws; or the 400 of options nothing can be made for. */
function planOf(request: ValidRequest): Plan | ErrorBody {
  if (request.mode === 'passphrase') return cachedPlanPassphrase(request.options);
  if (request.rules !== null) {
    const plan = cachedPlanRules(request.rules);
    return isRulesPasswordPlan(plan) ? plan : { ...plan };
  }
  const plan = cachedPlanPassword(request.options);
  return isPlan(plan) ? plan : { ...plan };
}

function valuesOf(plan: Plan, request: ValidRequest, random: RandomSource): string[] {
  if (request.mode === 'passphrase') return generatePassphrases(plan as PassphrasePlan, random, request.count);
  if (request.rules !== null) return generateRulesPasswords(plan as RulesPasswordPlan, random, request.count);
  return generatePasswords(plan as PasswordPlan, random, request.count);
}

function draw(input: unknown, random: RandomSource, settings: GenerateSettings): Batch | ErrorBody {
  const checked = validateRequest(input);
  if (!checked.ok) return checked.error;
  const { request } = checked;
  const plan = planOf(request);
  if (!('bits' in plan)) return plan;
  // The floor is decided from the plan's exact bits, before any draw.
  const belowFloor = floorError(plan.bits, request.minBits, settings.minEntropyBits ?? 0);
  if (belowFloor !== null) return belowFloor;
  return { mode: request.mode, values: valuesOf(plan, request, random), plan };
}

export function generate(
  input: unknown,
  random: RandomSource = defaultRandom,
  settings: GenerateSettings = NO_SETTINGS,
): GenerateOutcome {
  const batch = draw(input, random, settings);
  if (!('values' in batch)) return { status: 400, body: batch };
  const { values, plan } = batch;
  const { entropy, metadata } = plan;
  const results = new Array<Credential>(values.length);
  for (let i = 0; i < values.length; i++) results[i] = { value: values[i], entropy, metadata };
  return {
    status: 200,
    body: { mode: batch.mode, count: values.length, value: values[0], entropy, metadata, results },
  };
}

function quotePlain(value: string): string {
  return `"${value}"`;
}

/**
 * `generate()` and `JSON.stringify` of its body in one step, for the server: the same text,
 * byte for byte, with the same draws, but the entropy and metadata objects (the bulk of the
 * body, twice per credential) come as JSON cached in the plan, so a reply serialises only its
 * values. JSON.stringify of a cached, frozen body costs several microseconds per request.
 */
export function generateJson(
  input: unknown,
  random: RandomSource = defaultRandom,
  settings: GenerateSettings = NO_SETTINGS,
): { status: 200 | 400; json: string } {
  const batch = draw(input, random, settings);
  if (!('values' in batch)) return { status: 400, json: JSON.stringify(batch) };
  const { values, plan } = batch;
  const { json } = plan;
  const tail = `,"entropy":${json.entropy},"metadata":${json.metadata}`;
  // Pool characters, words and separators never need escaping; a rule's allowed set may hold
  // `"` or `\` (checked once per plan), and only then does a value go through JSON.stringify.
  const quote = json.plainValues ? quotePlain : JSON.stringify;
  let results = '';
  for (let i = 0; i < values.length; i++) results += `${i === 0 ? '' : ','}{"value":${quote(values[i])}${tail}}`;
  return {
    status: 200,
    json: `{"mode":"${batch.mode}","count":${values.length},"value":${quote(values[0])}${tail},"results":[${results}]}`,
  };
}
