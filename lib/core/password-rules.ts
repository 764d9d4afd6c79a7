/**
 * Mode password with `options.passwordRules`: the request path around lib/core/rules/ (parse,
 * plan, sample; docs/password-rules.md). It adds what a request needs: the rule's own default
 * length when the request gives none, the response's entropy and metadata, and caches, so a
 * rule used again costs a lookup instead of a parse and a plan.
 * @module
 */
import { BoundedCache } from './bounded-cache.ts';
import { strength, type Entropy } from './entropy.ts';
import type { RandomSource } from './random.ts';
import {
  checkPasswordRules,
  generateRulesPassword,
  isRulesPlan,
  parsePasswordRules,
  planPasswordRules,
  resolveRulesLength,
  type PasswordRules,
  type RulesError,
  type RulesMetadata,
  type RulesParse,
  type RulesPlan,
} from './rules/index.ts';
import type { RulesRequest } from './validate.ts';

export type { RulesMetadata };

export interface RulesPasswordPlan {
  readonly rules: RulesPlan;
  /** log2 of the number of valid passwords, unrounded (the entropy floor's figure). */
  readonly bits: number;
  readonly entropy: Entropy;
  readonly metadata: RulesMetadata;
}

/**
 * Parses by the text exactly as sent, so a repeated rule is not parsed again (a parse costs
 * 15-70 us, a lookup well under 1). An entry is the key (at most 1,024 code points, 4 KB) and
 * a parse result (a normalised rule: at most 9 sets of at most 95 characters and a canonical
 * text of about 1,000 characters at most, or an error of under 200): under 8 KB, so 256
 * entries stay under 2 MB.
 */
const PARSE_CACHE_LIMIT = 256;
const parseCache = new BoundedCache<string, RulesParse>(PARSE_CACHE_LIMIT);

/**
 * Plans by canonical rule text and length (and whether the rule said `unicode`, which only
 * the metadata records), so every spelling of one rule shares its plan.
 * Two caches because plans differ in size by three orders of magnitude:
 * - a rejection plan holds the allowed codes, their signatures and at most 95 atoms, and its
 *   metadata JSON: measured 2-5 KB, so 256 of them stay near 1 MB;
 * - an exact-sampler plan also holds its table: the exact sampler's 2^k x length BigInts
 *   (count.ts): at the limits (8 required sets, 128 characters) 32,768 numbers of at most 848
 *   bits, about 4.5 MB at most (2.5 MB measured for the costliest rule the fuzz test knows);
 *   the exact-sequences sampler's 4 x length x (characters of its distinct chain shapes)
 *   (sequence-sample.ts): at most about 20,000 numbers, under 3 MB; the exact-full sampler's
 *   table has at most 32,768 entries (FULL_SAMPLER_LIMIT). So 4 of them bound that cache to about 18 MB. Rules
 *   users write for an exact sampler are rarely that large (three single characters required
 *   at length 8: 9 KB). A miss costs a plan, at most ~30 ms without max-sequential and ~100 ms
 *   with it (docs/password-rules.md), which the rate limit bounds like any other request.
 * A plan can still be refused after the checks (max-sequential 1 can leave no password at a
 * length): those refusals are kept too, small and keyed alike, so a refused rule is not planned
 * again on every request.
 */
const REJECTION_PLAN_CACHE_LIMIT = 256;
const EXACT_PLAN_CACHE_LIMIT = 4;
const REFUSED_PLAN_CACHE_LIMIT = 256;
const rejectionPlans = new BoundedCache<string, RulesPasswordPlan>(REJECTION_PLAN_CACHE_LIMIT);
const exactPlans = new BoundedCache<string, RulesPasswordPlan>(EXACT_PLAN_CACHE_LIMIT);
const refusedPlans = new BoundedCache<string, RulesError>(REFUSED_PLAN_CACHE_LIMIT);

function wrap(rules: RulesPlan): RulesPasswordPlan {
  return Object.freeze({ rules, bits: rules.bits, entropy: strength(rules.bits), metadata: rules.metadata });
}

interface PlanInput {
  readonly rule: PasswordRules;
  readonly length: number;
}

/** The plan for a rule at a resolved length, or why there is none (the rule and length passed
 * the checks, but max-sequential can leave no password, or none an exact sampler reaches). */
function makePlan({ rule, length }: PlanInput): RulesPasswordPlan | RulesError {
  const planned = planPasswordRules(rule, length);
  return isRulesPlan(planned) ? wrap(planned) : planned;
}

/**
 * The plan for a `passwordRules` request, or the 400 body that explains why there is none:
 * a parse error, a rule the service cannot satisfy, or a length outside the rule's bounds.
 * Every error keeps the field the rules module gives it (`options.passwordRules`, or
 * `options.length` for a length).
 */
export function cachedPlanRules(request: RulesRequest): RulesPasswordPlan | RulesError {
  const parsed = parseCache.getOrMake(request.text, request.text, parsePasswordRules);
  if (!parsed.ok) return parsed.error;
  const { rule } = parsed;
  const infeasible = checkPasswordRules(rule);
  if (infeasible !== null) return infeasible;
  const length = resolveRulesLength(rule, request.length);
  if (typeof length !== 'number') return length;
  // The canonical text says ascii-printable for unicode too; the metadata tells them apart, so
  // the key does as well.
  const key = `${String(length)}|${rule.unicodeAsAsciiPrintable ? 'u' : 'a'}|${rule.text}`;
  // Which cache a plan belongs in is only known once it is made: look in both, then file it.
  const known = rejectionPlans.get(key) ?? exactPlans.get(key) ?? refusedPlans.get(key);
  if (known !== undefined) return known;
  const plan = makePlan({ rule, length });
  if (!isRulesPasswordPlan(plan)) return refusedPlans.getOrMake(key, plan, (p) => p);
  return (plan.rules.sampler === 'rejection' ? rejectionPlans : exactPlans).getOrMake(key, plan, (p) => p);
}

export function isRulesPasswordPlan(p: RulesPasswordPlan | RulesError): p is RulesPasswordPlan {
  return 'rules' in p;
}

/** `count` passwords, each drawn on its own from the plan's sampler (rules/sample.ts). */
export function generateRulesPasswords(plan: RulesPasswordPlan, random: RandomSource, count: number): string[] {
  const values = new Array<string>(count);
  for (let i = 0; i < count; i++) values[i] = generateRulesPassword(plan.rules, random);
  return values;
}
