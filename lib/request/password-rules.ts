/**
 * Mode password with `options.passwordRules`: the request path around lib/core/rules/ (parse,
 * plan, sample; docs/password-rules.md). It adds what a request needs: the rule's own default
 * length when the request gives none, the response's entropy and metadata, and the keys under
 * which a caller's plan store keeps parses and plans, so a rule used again costs a lookup
 * instead of a parse and a plan.
 * @module
 */
import { planBytes, remember, type PlanStore } from './plan-store.ts';
import {
  checkPasswordRules,
  generateRulesPasswords,
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

export type { RulesMetadata, RulesPlan };

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

interface PlanInput {
  readonly rule: PasswordRules;
  readonly length: number;
}

/** The plan for a rule at a resolved length, or why there is none (the rule and length passed
 * the checks, but max-sequential can leave no password, or the plan is over the budget). */
function makePlan({ rule, length }: PlanInput): RulesPlan | RulesError {
  return planPasswordRules(rule, length);
}

/**
 * The plan for a `passwordRules` request, or the 400 body that explains why there is none:
 * a parse error, a rule the service cannot satisfy, or a length outside the rule's bounds.
 * Every error keeps the field the rules module gives it (`options.passwordRules`, or
 * `options.length` for a length). Parses and plans are kept in `store` when there is one.
 */
export function planRulesRequest(request: RulesRequest, store?: PlanStore): RulesPlan | RulesError {
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

export { generateRulesPasswords, isRulesPlan };
