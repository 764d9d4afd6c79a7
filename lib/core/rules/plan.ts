/**
 * What the service makes of a parsed rule: whether it can be satisfied (each refusal says
 * why), the length, the exact count and entropy, and the sampler, computed once per
 * (rule, length) so that repeated requests only draw.
 * @module
 */
import { log2BigInt } from '../entropy.ts';
import {
  atomsOf,
  completionPrefixTable,
  countRulePasswords,
  MAX_REQUIRED_SETS,
  signaturesOf,
  type Atom,
} from './count.ts';
import { quoteToken, RULES_FIELD, rulesError, type PasswordRules, type RulesError } from './parse.ts';

/** The service's password lengths. */
export const SERVICE_MIN_LENGTH = 8;
export const SERVICE_MAX_LENGTH = 128;

/** The length used when the request gives none: this, moved into the rule's bounds. */
export const DEFAULT_RULES_LENGTH = 24;

/**
 * Rejection is used while it needs at most this many attempts on average (acceptance
 * probability >= 1/32), the exact sampler beyond. Rejection is the simpler path (no table, a
 * few lines to audit) and below the threshold it costs at most 32 x length draws on average,
 * tens of microseconds, within a small factor of the exact sampler (bench/rules.ts: 20
 * expected attempts at length 24 cost 19 us against 7 us plus a 20 us table). Past it the
 * cost of rejection grows with 1/acceptance without bound (three required letters at length
 * 8: 2,762 attempts, 292 us; four: 52,777 attempts, 5.4 ms) while the exact sampler stays
 * near 2-100 us. Its tail stays short too: more than 700 attempts happen with probability
 * (31/32)^700 < 2e-10.
 */
export const EXACT_SAMPLING_THRESHOLD = 32;

const LENGTH_FIELD = 'options.length';

export type RulesSampler = 'rejection' | 'exact';

export interface RulesMetadata {
  readonly entropyMode: 'uniform-rules';
  /** The canonical text of the normalised rule. */
  readonly passwordRules: string;
  readonly allowedSize: number;
  readonly length: number;
  /** True when the rule said `unicode`, which was read as ascii-printable. */
  readonly unicodeAsAsciiPrintable: boolean;
}

export interface RulesPlan {
  readonly rule: PasswordRules;
  readonly length: number;
  /** The longest run of one character allowed: max-consecutive, or the length if none. */
  readonly maxRun: number;
  /** UTF-16 codes of the allowed characters, in code order. */
  readonly codes: Uint16Array;
  /** signatures[j]: bit i set when codes[j] is in required set i. */
  readonly signatures: Uint8Array;
  /** The signature bits of all required sets together. */
  readonly allRequired: number;
  readonly atoms: readonly Atom[];
  /** The exact number of passwords the rule allows at this length (all equally likely). */
  readonly count: bigint;
  /** log2(count): the entropy in bits, unrounded. */
  readonly bits: number;
  /** count / |allowed|^length: the chance that one rejection attempt is kept. */
  readonly acceptance: number;
  readonly sampler: RulesSampler;
  /** The exact sampler's prefix sums of completion counts (count.ts), when it is used. */
  readonly completions: readonly (readonly bigint[])[] | null;
  readonly metadata: RulesMetadata;
}

/** Why the service cannot satisfy a rule at any length it offers, or null. */
export function checkPasswordRules(rule: PasswordRules): RulesError | null {
  const { minLength, maxLength, maxConsecutive } = rule;
  if (maxLength !== null && maxLength < SERVICE_MIN_LENGTH) {
    return rulesError(
      `${RULES_FIELD}: maxlength ${maxLength} is below the service's minimum length ${SERVICE_MIN_LENGTH}`,
    );
  }
  if (minLength !== null && minLength > SERVICE_MAX_LENGTH) {
    return rulesError(
      `${RULES_FIELD}: minlength ${minLength} is above the service's maximum length ${SERVICE_MAX_LENGTH}`,
    );
  }
  if (minLength !== null && maxLength !== null && minLength > maxLength) {
    return rulesError(`${RULES_FIELD}: minlength ${minLength} is greater than maxlength ${maxLength}`);
  }
  if (maxConsecutive === 0) {
    return rulesError(`${RULES_FIELD}: max-consecutive 0 allows no character at all (it must be at least 1)`);
  }
  if (rule.allowed.length < 2) {
    return rulesError(
      `${RULES_FIELD}: allows only the character ${quoteToken(rule.allowed)}; a password needs at least 2 to choose from`,
    );
  }
  if (rule.required.length > MAX_REQUIRED_SETS) {
    return rulesError(
      `${RULES_FIELD}: has ${rule.required.length} different required sets; the service supports at most ${MAX_REQUIRED_SETS}`,
    );
  }
  return null;
}

/** The lengths the rule and the service both allow (non-empty once checkPasswordRules passed). */
export function rulesLengthBounds(rule: PasswordRules): { readonly min: number; readonly max: number } {
  return {
    min: Math.max(SERVICE_MIN_LENGTH, rule.minLength ?? 0),
    max: Math.min(SERVICE_MAX_LENGTH, rule.maxLength ?? SERVICE_MAX_LENGTH),
  };
}

/**
 * The length to generate: `given` when it lies inside the rule's and the service's bounds
 * (else an error naming the bound it breaks), or DEFAULT_RULES_LENGTH moved into the bounds
 * when the request gives none.
 */
export function resolveRulesLength(rule: PasswordRules, given: number | undefined): number | RulesError {
  const { min, max } = rulesLengthBounds(rule);
  if (given === undefined) return Math.min(max, Math.max(min, DEFAULT_RULES_LENGTH));
  if (!Number.isInteger(given) || given < SERVICE_MIN_LENGTH || given > SERVICE_MAX_LENGTH) {
    return rulesError(`${LENGTH_FIELD} must be between ${SERVICE_MIN_LENGTH} and ${SERVICE_MAX_LENGTH}`, LENGTH_FIELD);
  }
  if (rule.minLength !== null && given < rule.minLength) {
    return rulesError(
      `${LENGTH_FIELD} ${given} is below the minlength ${rule.minLength} of ${RULES_FIELD}`,
      LENGTH_FIELD,
    );
  }
  if (rule.maxLength !== null && given > rule.maxLength) {
    return rulesError(
      `${LENGTH_FIELD} ${given} is above the maxlength ${rule.maxLength} of ${RULES_FIELD}`,
      LENGTH_FIELD,
    );
  }
  return given;
}

export function isRulesPlan(p: RulesPlan | RulesError): p is RulesPlan {
  return 'count' in p;
}

/**
 * The plan for a rule and a requested length (undefined: the default), or the error that
 * explains why there is none. `sampler` forces a sampler (tests and benchmarks: both are
 * uniform over the same set, only their cost differs); by default rejection is chosen while
 * it needs at most EXACT_SAMPLING_THRESHOLD attempts on average.
 */
export function planPasswordRules(
  rule: PasswordRules,
  length?: number,
  sampler?: RulesSampler,
): RulesPlan | RulesError {
  const infeasible = checkPasswordRules(rule);
  if (infeasible !== null) return infeasible;
  const resolved = resolveRulesLength(rule, length);
  if (typeof resolved !== 'number') return resolved;
  const L = resolved;
  const k = rule.required.length;
  const maxRun = Math.min(rule.maxConsecutive ?? L, L);
  const atoms = atomsOf(rule.allowed, rule.required);
  const count = countRulePasswords(atoms, k, maxRun, L);
  // Unreachable for a parsed rule that passed the checks: pick one character from each
  // required set; the distinct ones (at most 8 <= L) written in a row never repeat, and
  // alternating the last with another allowed character fills the rest, runs of 1 only.
  if (count === 0n) return rulesError(`${RULES_FIELD}: no password of length ${L} satisfies the rule`);
  const n = rule.allowed.length;
  const bits = log2BigInt(count);
  const acceptance = 2 ** (bits - log2BigInt(BigInt(n) ** BigInt(L)));
  const chosen: RulesSampler = sampler ?? (acceptance * EXACT_SAMPLING_THRESHOLD >= 1 ? 'rejection' : 'exact');
  return Object.freeze({
    rule,
    length: L,
    maxRun,
    codes: Uint16Array.from(rule.allowed, (c) => c.charCodeAt(0)),
    signatures: signaturesOf(rule.allowed, rule.required),
    allRequired: (1 << k) - 1,
    atoms: Object.freeze(atoms),
    count,
    bits,
    acceptance,
    sampler: chosen,
    completions: chosen === 'exact' ? completionPrefixTable(atoms, k, maxRun, L) : null,
    metadata: Object.freeze({
      entropyMode: 'uniform-rules',
      passwordRules: rule.text,
      allowedSize: n,
      length: L,
      unicodeAsAsciiPrintable: rule.unicodeAsAsciiPrintable,
    }),
  });
}
