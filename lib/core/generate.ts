/**
 * The one entry point the server and `window.ServiceAPI` share: any value in, the contract's
 * response body or error body out. Never throws for any input.
 * @module
 */
import { defaultRandom, type RandomSource } from './random.ts';
import { validateRequest, type ErrorBody } from './validate.ts';
import { cachedPlanPassword, generatePassword, isPlan, type PasswordMetadata } from './password.ts';
import { cachedPlanPassphrase, generatePassphrase, type PassphraseMetadata } from './passphrase.ts';
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
  | { readonly status: 200; readonly body: GenerateResponse }
  | { readonly status: 400; readonly body: ErrorBody };

export function generate(input: unknown, random: RandomSource = defaultRandom): GenerateOutcome {
  const checked = validateRequest(input);
  if (!checked.ok) return { status: 400, body: checked.error };
  const { request } = checked;

  // Plans (pool, codes, entropy, metadata) are cached per option set; a request only draws.
  const results: Credential[] = [];
  if (request.mode === 'password') {
    const plan = cachedPlanPassword(request.options);
    if (!isPlan(plan)) return { status: 400, body: { ...plan } };
    const { entropy, metadata } = plan;
    for (let i = 0; i < request.count; i++) results.push({ value: generatePassword(plan, random), entropy, metadata });
  } else {
    const plan = cachedPlanPassphrase(request.options);
    const { entropy, metadata } = plan;
    for (let i = 0; i < request.count; i++) results.push({ value: generatePassphrase(plan, random), entropy, metadata });
  }
  const first = results[0];
  return {
    status: 200,
    body: {
      mode: request.mode,
      count: request.count,
      value: first.value,
      entropy: first.entropy,
      metadata: first.metadata,
      results,
    },
  };
}

