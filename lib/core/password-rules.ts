/**
 * Mode password with `options.passwordRules`: the request path around lib/core/rules/ (parse,
 * plan, sample; docs/password-rules.md). It adds what a request needs: the rule's own default
 * length when the request gives none, the response's entropy and metadata, and the keys under
 * which a caller's plan store keeps parses and plans, so a rule used again costs a lookup
 * instead of a parse and a plan.
 * @module
 */
import { remember, type PlanStore } from './plan-store.ts';
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
 * The plan store's keys (plan-store.ts). Parses by the text exactly as sent, so a repeated
 * rule is not parsed again (a parse costs far more than a lookup: docs/benchmark.md, The core
 * and the 3 % rule): an entry is the key (at most 1,024 code points) and a parse result (a
 * normalised rule: at most 9 sets of at most 95 characters and a canonical text of about 1,000
 * characters at most, or a short error), so parseBytes bounds it. Plans by canonical rule text
 * and length (and whether the rule said `unicode`, which only the metadata records), so every
 * spelling of one rule shares its plan. A plan costs at most the work budget to make
 * (PLAN_WORK_BUDGET, docs/password-rules.md), and its table at most the exact sampler's
 * 2^k x length BigInts (32,768 numbers at 8 required sets and length 128). Refusals made after
 * the checks (max-sequential 1 can leave no password at a length; the budget) are kept too,
 * small and keyed alike, so a refused rule is not planned again on every request.
 */
const parseKey = (text: string) => `rules-text ${text}`;
const parseBytes = () => 8192;
const planKey = (rule: PasswordRules, length: number) =>
  // The canonical text says ascii-printable for unicode too; the metadata tells them apart, so
  // the key does as well.
  `rules ${String(length)}|${rule.unicodeAsAsciiPrintable ? 'u' : 'a'}|${rule.text}`;

/** An upper bound on a plan's memory: its BigInt tables (each number at most the size of
 * |allowed|^length, plus V8's header of two words), the key and a fixed allowance for the rest (codes,
 * signatures, atoms, metadata). */
export function planBytes(plan: RulesPasswordPlan | RulesError, key: string): number {
  const fixed = 2048 + 2 * key.length;
  if (!isRulesPasswordPlan(plan)) return fixed;
  const p = plan.rules;
  const perNumber = 16 + 8 * Math.ceil((p.length * Math.log2(p.codes.length) + 8) / 64);
  let numbers = 3 * (p.length + 1);
  if (p.completions !== null) numbers += p.length * p.completions[0].length;
  const s = p.sequenceTables;
  if (s !== null) {
    numbers += s.totals.length;
    for (const table of new Set(s.tableOf)) numbers += 4 * p.length * table.jump[0].length;
  }
  if (p.fullTables !== null) numbers += p.fullTables.w.length;
  return fixed + numbers * perNumber;
}

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
 * `options.length` for a length). Parses and plans are kept in `store` when there is one.
 */
export function planRulesRequest(request: RulesRequest, store?: PlanStore): RulesPasswordPlan | RulesError {
  const parsed = remember(store, parseKey(request.text), request.text, parsePasswordRules, parseBytes);
  if (!parsed.ok) return parsed.error;
  const { rule } = parsed;
  const infeasible = checkPasswordRules(rule);
  if (infeasible !== null) return infeasible;
  const length = resolveRulesLength(rule, request.length);
  if (typeof length !== 'number') return length;
  const key = planKey(rule, length);
  return remember(store, key, { rule, length }, makePlan, (plan) => planBytes(plan, key));
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
