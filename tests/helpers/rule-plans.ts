/** Parsing and planning a `passwordrules` string in tests, asserting that it went as expected. */
import assert from 'node:assert/strict';
import {
  parsePasswordRules,
  planPasswordRules,
  isRulesPlan,
  type PasswordRules,
  type RulesPlan,
} from '../../lib/core/rules/index.ts';
import type { Sampler } from '../../lib/core/sample.ts';

export function rule(text: string): PasswordRules {
  const r = parsePasswordRules(text);
  assert.ok(r.ok, r.ok ? '' : r.error.error);
  return r.rule;
}

export function plan(text: string, length?: number, sampler?: Sampler): RulesPlan {
  const p = planPasswordRules(rule(text), length, sampler);
  assert.ok(isRulesPlan(p), isRulesPlan(p) ? '' : p.error);
  return p;
}

export function planError(text: string, length?: number): { error: string; field: string } {
  const p = planPasswordRules(rule(text), length);
  assert.ok(!isRulesPlan(p), `planned: ${text}`);
  assert.equal(p.status, 400);
  return { error: p.error, field: p.field };
}

/** The lengths a rule and the service both allow: 8-128 within the rule's minlength and maxlength
 * (empty when they do not meet), as docs/password-rules.md, Length, defines them. */
export function lengthBounds(r: PasswordRules): { readonly min: number; readonly max: number } {
  return { min: Math.max(8, r.minLength ?? 0), max: Math.min(128, r.maxLength ?? 128) };
}
