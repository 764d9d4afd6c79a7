/**
 * A parsed rule's plan: whether it can be satisfied (each refusal says why), the length, and the
 * rule compiled to one spec of the exact engine, planned by the one plan path (../sample.ts).
 * @module
 */
import { MAX_SETS, type EngineSpec } from '../engine.ts';
import { strength, type Entropy } from '../entropy.ts';
import type { RandomSource } from '../random.ts';
import { drawValues, isSpecPlan, planSpec, PLAN_WORK_BUDGET, type Sampler, type SpecPlan } from '../sample.ts';
import { quoteToken, RULES_FIELD, rulesError, type PasswordRules, type RulesError } from './parse.ts';

/** The most required sets (normalised) a rule may have: the engine's limit, which also fits one
 * character of each in any length the service allows (>= 8). */
export const MAX_REQUIRED_SETS = MAX_SETS;

/** The service's password lengths. */
export const SERVICE_MIN_LENGTH = 8;
export const SERVICE_MAX_LENGTH = 128;

/** The length used when the request gives none: this, moved into the rule's bounds. */
export const DEFAULT_RULES_LENGTH = 24;

const LENGTH_FIELD = 'options.length';

export interface RulesMetadata {
  readonly entropyMode: 'uniform-rules';
  /** The canonical text of the normalised rule. */
  readonly passwordRules: string;
  readonly allowedSize: number;
  readonly length: number;
  /** True when the rule said `unicode`, which was read as ascii-printable. */
  readonly unicodeAsAsciiPrintable: boolean;
}

/** A rule's plan at one length: the engine's plan with the response's entropy and metadata. */
export interface RulesPlan extends SpecPlan {
  readonly rule: PasswordRules;
  readonly length: number;
  readonly entropy: Entropy;
  readonly metadata: RulesMetadata;
}

/** Why the service cannot satisfy a rule at any length it offers, or null. */
export function checkPasswordRules(rule: PasswordRules): RulesError | null {
  const { minLength, maxLength, maxRepeating, maxSequential } = rule;
  const no = (why: string) => rulesError(`${RULES_FIELD}: ${why}`);
  if (maxLength !== null && maxLength < SERVICE_MIN_LENGTH)
    return no(`maxlength ${maxLength} is below the service's minimum length ${SERVICE_MIN_LENGTH}`);
  if (minLength !== null && minLength > SERVICE_MAX_LENGTH)
    return no(`minlength ${minLength} is above the service's maximum length ${SERVICE_MAX_LENGTH}`);
  if (minLength !== null && maxLength !== null && minLength > maxLength)
    return no(`minlength ${minLength} is greater than maxlength ${maxLength}`);
  // The parser refuses 0 with the property's position; this guards a rule object built by hand.
  if ((maxRepeating ?? 1) < 1 || (maxSequential ?? 1) < 1)
    return no('max-repeating and max-sequential must be at least 1');
  if (rule.allowed.length < 2)
    return no(`allows only the character ${quoteToken(rule.allowed)}; a password needs at least 2 to choose from`);
  if (rule.required.length > MAX_REQUIRED_SETS)
    return no(`has ${rule.required.length} different required sets; the service supports at most ${MAX_REQUIRED_SETS}`);
  return null;
}

/** The length to generate: `given` within the rule's and the service's bounds (else the error
 * naming the bound it breaks), or DEFAULT_RULES_LENGTH moved into the bounds when none is given. */
export function resolveRulesLength(rule: PasswordRules, given: number | undefined): number | RulesError {
  const min = Math.max(SERVICE_MIN_LENGTH, rule.minLength ?? 0);
  const max = Math.min(SERVICE_MAX_LENGTH, rule.maxLength ?? SERVICE_MAX_LENGTH);
  if (given === undefined) return Math.min(max, Math.max(min, DEFAULT_RULES_LENGTH));
  const no = (why: string) => rulesError(`${LENGTH_FIELD} ${why}`, LENGTH_FIELD);
  if (!Number.isInteger(given) || given < SERVICE_MIN_LENGTH || given > SERVICE_MAX_LENGTH)
    return no(`must be between ${SERVICE_MIN_LENGTH} and ${SERVICE_MAX_LENGTH}`);
  if (rule.minLength !== null && given < rule.minLength)
    return no(`${given} is below the minlength ${rule.minLength} of ${RULES_FIELD}`);
  if (rule.maxLength !== null && given > rule.maxLength)
    return no(`${given} is above the maxlength ${rule.maxLength} of ${RULES_FIELD}`);
  return given;
}

export function isRulesPlan(p: RulesPlan | RulesError): p is RulesPlan {
  return 'count' in p;
}

/** The engine's input for a rule at length L: every required set must be hit once. */
export function ruleSpec(rule: PasswordRules, L: number): EngineSpec {
  const codesOf = (set: string) => Array.from(set, (c) => c.charCodeAt(0)).sort((a, b) => a - b);
  return {
    codes: codesOf(rule.allowed),
    sets: rule.required.map((set) => ({ codes: codesOf(set), min: 1 })),
    length: L,
    maxRepeating: rule.maxRepeating,
    maxSequential: rule.maxSequential,
  };
}

/** The refusal over the work budget, with what makes it costly (under 200 characters). */
function overBudget(rule: PasswordRules, L: number, work: number, budget: number): RulesError {
  const why =
    rule.maxSequential !== null && rule.required.length > 0
      ? ` (${rule.required.length} required sets under max-sequential ${rule.maxSequential} split the allowed set too many ways)`
      : '';
  const takes = Number.isFinite(work) ? String(work) : `more than ${budget}`;
  return rulesError(
    `${RULES_FIELD}: at length ${L} the plan takes ${takes} work units, over the budget of ${budget}${why}`,
  );
}

/** Why no password of length L exists, for a rule that passed the checks. Only a binding
 * max-sequential of 1 can cause it: with 2 or more, alternating two characters always works. */
function noPassword(rule: PasswordRules, L: number): RulesError {
  const why =
    rule.maxSequential === 1
      ? ': max-sequential 1 keeps neighbours such as "ab" or "21" apart, and the allowed characters leave no other way'
      : '';
  return rulesError(`${RULES_FIELD}: no password of length ${L} satisfies the rule${why}`);
}

/** The plan for a rule and a length (undefined: the default), or the error saying why there is
 * none; `sampler` forces one (tests, bench), and a plan over `budget` is refused undone. */
export function planPasswordRules(
  rule: PasswordRules,
  length?: number,
  sampler?: Sampler,
  budget: number = PLAN_WORK_BUDGET,
): RulesPlan | RulesError {
  const infeasible = checkPasswordRules(rule);
  if (infeasible !== null) return infeasible;
  const L = resolveRulesLength(rule, length);
  if (typeof L !== 'number') return L;
  const spec = ruleSpec(rule, L);
  const plan = planSpec(spec, sampler, budget);
  if (!isSpecPlan(plan)) return plan.kind === 'budget' ? overBudget(rule, L, plan.work, budget) : noPassword(rule, L);
  return Object.freeze({
    ...plan,
    rule,
    length: L,
    entropy: strength(plan.bits),
    metadata: Object.freeze({
      entropyMode: 'uniform-rules',
      passwordRules: rule.text,
      allowedSize: spec.codes.length,
      length: L,
      unicodeAsAsciiPrintable: rule.unicodeAsAsciiPrintable,
    }),
  });
}

/** `count` passwords, each uniform over the plan's strings, by the plan's sampler (../sample.ts). */
export function generateRulesPasswords(plan: RulesPlan, random: RandomSource, count: number): string[] {
  return drawValues(plan, random, count);
}
