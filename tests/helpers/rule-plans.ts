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
