/**
 * Mode password with `options.passwordRules`: the request path around lib/core/rules/ (parse,
 * plan, sample; docs/password-rules.md). It adds what a request needs: the rule's own default
 * length when the request gives none, the response's entropy and metadata, and the keys under
 * which a caller's plan store keeps parses and plans, so a rule used again costs a lookup
 * instead of a parse and a plan.
 * @module
 */
import { remember, type PlanStore } from './plan-store.ts';
import { strength, type Entropy } from '../core/entropy.ts';
import type { RandomSource } from '../core/random.ts';
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
} from '../core/rules/index.ts';
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
 * (PLAN_WORK_BUDGET, docs/password-rules.md), and an exact plan keeps the engine's tables,
 * whose bytes planBytes bounds from that work. Refusals made after the checks (max-sequential 1
 * can leave no password at a length; the budget) are kept too, small and keyed alike, so a
 * refused rule is not planned again on every request.
 */
const parseKey = (text: string) => `rules-text ${text}`;
const parseBytes = () => 8192;
const planKey = (rule: PasswordRules, length: number) =>
  // The canonical text says ascii-printable for unicode too; the metadata tells them apart, so
  // the key does as well.
  `rules ${String(length)}|${rule.unicodeAsAsciiPrintable ? 'u' : 'a'}|${rule.text}`;

/**
 * The engine's tables keep `entries` coefficients (engine.ts, Machine.entries): an array slot
 * each, and a BigInt for every two (a piece's mirror places share one), of at most the bits of
 * |allowed|^length and on average half of them (a coefficient at step t has about t/L of
 * them). Checked against the heap kept by tests/core/rules/budget.test.ts.
 */
const tableBytes = (entries: number, words: number) => entries * 8 + (entries / 2) * (16 + 8 * Math.ceil(words / 2));
/** Bytes of the tables' index per required-set subset and allowed character (about 210 measured
 * on eight required sets over ascii-printable, whose tables are otherwise tiny; budget.test.ts). */
export const TABLE_BYTES_PER_CELL = 320;

/** An upper bound on a plan's memory: the key; a refusal's fixed allowance; a plan's rule, spec,
 * validity check and metadata (8,192 bytes and 48 a code of the allowed and required sets,
 * above what was measured in the same place); and on an exact plan the engine's tables
 * (tableBytes) and their index (TABLE_BYTES_PER_CELL). */
export function planBytes(plan: RulesPasswordPlan | RulesError, key: string): number {
  const fixed = 2048 + 2 * key.length;
  if (!isRulesPasswordPlan(plan)) return fixed;
  const p = plan.rules;
  const n = p.spec.codes.length;
  const rest = fixed + 8192 + 48 * p.spec.sets.reduce((sum, set) => sum + set.codes.length, n);
  if (p.tables === null) return rest;
  const words = Math.ceil((p.length * Math.log2(n) + 8) / 64);
  const cells = TABLE_BYTES_PER_CELL * 2 ** p.spec.sets.length * n;
  return rest + Math.ceil(tableBytes(p.tables.machine.entries, words)) + cells;
}

function wrap(rules: RulesPlan): RulesPasswordPlan {
  return Object.freeze({ rules, bits: rules.bits, entropy: strength(rules.bits), metadata: rules.metadata });
}

interface PlanInput {
  readonly rule: PasswordRules;
  readonly length: number;
}

/** The plan for a rule at a resolved length, or why there is none (the rule and length passed
 * the checks, but max-sequential can leave no password, or the plan is over the budget). */
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

/** `count` passwords, each drawn on its own from the plan's sampler (lib/core/rules/plan.ts). */
export function generateRulesPasswords(plan: RulesPasswordPlan, random: RandomSource, count: number): string[] {
  const values = new Array<string>(count);
  for (let i = 0; i < count; i++) values[i] = generateRulesPassword(plan.rules, random);
  return values;
}
