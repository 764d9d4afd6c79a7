/**
 * The one entry point the server and `window.ServiceAPI` share: any value in, the contract's
 * response body or error body out. Never throws for any input.
 * @module
 */
import { defaultRandom, type RandomSource } from './random.ts';
import { validateRequest, type ErrorBody } from './validate.ts';
import { cachedPlanPassword, generatePasswords, isPlan, type PasswordMetadata, type PasswordPlan } from './password.ts';
import {
  cachedPlanPassphrase,
  generatePassphrases,
  type PassphraseMetadata,
  type PassphrasePlan,
} from './passphrase.ts';
import type { Entropy } from './entropy.ts';

export interface Credential {
  readonly value: string;
  readonly entropy: Entropy;
  readonly metadata: PasswordMetadata | PassphraseMetadata;
}

export interface GenerateResponse {
  readonly mode: 'password' | 'passphrase';
  readonly count: number;
  readonly value: string;
  readonly entropy: Entropy;
  readonly metadata: PasswordMetadata | PassphraseMetadata;
  readonly results: readonly Credential[];
}

export type GenerateOutcome =
  { readonly status: 200; readonly body: GenerateResponse } | { readonly status: 400; readonly body: ErrorBody };

/** What a valid request produced: the values, and the plan's shared entropy, metadata and their JSON. */
interface Batch {
  readonly mode: 'password' | 'passphrase';
  readonly values: string[];
  readonly plan: PasswordPlan | PassphrasePlan;
}

function draw(input: unknown, random: RandomSource): Batch | ErrorBody {
  const checked = validateRequest(input);
  if (!checked.ok) return checked.error;
  const { request } = checked;
  // Plans (pool tables, entropy, metadata, their JSON) are cached per option set; a request only draws.
  if (request.mode === 'password') {
    const plan = cachedPlanPassword(request.options);
    if (!isPlan(plan)) return { ...plan };
    return { mode: 'password', values: generatePasswords(plan, random, request.count), plan };
  }
  const plan = cachedPlanPassphrase(request.options);
  return { mode: 'passphrase', values: generatePassphrases(plan, random, request.count), plan };
}

export function generate(input: unknown, random: RandomSource = defaultRandom): GenerateOutcome {
  const batch = draw(input, random);
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
): { status: 200 | 400; json: string } {
  const batch = draw(input, random);
  if (!('values' in batch)) return { status: 400, json: JSON.stringify(batch) };
  const { values, plan } = batch;
  const { json } = plan;
  const tail = `,"entropy":${json.entropy},"metadata":${json.metadata}`;
  // Pool characters, words and separators never need escaping (checked once per plan); the
  // JSON.stringify fallback keeps the output right should a future alphabet need it.
  /* c8 ignore next -- no reachable option set has a character that JSON escapes */
  const quote = json.plainValues ? quotePlain : JSON.stringify;
  let results = '';
  for (let i = 0; i < values.length; i++) results += `${i === 0 ? '' : ','}{"value":${quote(values[i])}${tail}}`;
  return {
    status: 200,
    json: `{"mode":"${batch.mode}","count":${values.length},"value":${quote(values[0])}${tail},"results":[${results}]}`,
  };
}
