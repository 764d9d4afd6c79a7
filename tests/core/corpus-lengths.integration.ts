/**
 * Every rule of the 434-rule corpus that was accepted before the plan work budget (T4) stays
 * accepted at every length it allows, with the same exact count (so the same bits), and its
 * plan stays within 40 % of the budget: the budget refuses pathological rules, never a
 * real site. The counts are pinned in tests/fixtures/password-rules/counts.json, taken from
 * main at 2fb3ee0. Prints the costliest plan of the corpus, in work units and CPU time.
 * Integration, not npm test: about 17,700 plans take 5-20 s.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import corpus from '../fixtures/password-rules/password-rules.json' with { type: 'json' };
import pinned from '../fixtures/password-rules/counts.json' with { type: 'json' };
import { isRulesPlan, parsePasswordRules } from '../../lib/core/rules/index.ts';
import { lengthBounds } from '../helpers/rule-plans.ts';
import { planPasswordRules } from '../../lib/core/rules/plan.ts';
import { PLAN_WORK_BUDGET } from '../../lib/core/sample.ts';

const PINNED = pinned as Record<string, { min: number; max: number; counts: string }>;

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

it('every corpus rule accepted before the budget is accepted at every length with the same count, within 40 % of the budget', () => {
  let plans = 0;
  let worst = { work: 0, site: '', length: 0 };
  for (const [site, v] of Object.entries(corpus as Record<string, { 'password-rules': string }>)) {
    const parsed = parsePasswordRules(v['password-rules']);
    const expected = PINNED[site];
    if (!parsed.ok) {
      assert.equal(expected, undefined, `${site} parsed before`);
      continue;
    }
    const { min, max } = lengthBounds(parsed.rule);
    assert.deepEqual([min, max], [expected.min, expected.max], site);
    const counts: string[] = [];
    for (let L = min; L <= max; L++) {
      const plan = planPasswordRules(parsed.rule, L);
      assert.ok(isRulesPlan(plan), `${site} at length ${L}: ${isRulesPlan(plan) ? '' : plan.error}`);
      plans++;
      assert.ok(plan.work * 2.5 <= PLAN_WORK_BUDGET, `${site} at length ${L}: ${plan.work} work units`);
      if (plan.work > worst.work) worst = { work: plan.work, site, length: L };
      counts.push(plan.count.toString(36));
    }
    assert.equal(createHash('sha256').update(counts.join(',')).digest('base64url'), expected.counts, `${site}: counts`);
  }
  const rule = parsePasswordRules(
    (corpus as Record<string, { 'password-rules': string }>)[worst.site]['password-rules'],
  );
  assert.ok(rule.ok);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = cpuMs();
    planPasswordRules(rule.rule, worst.length);
    times.push(cpuMs() - t0);
  }
  process.stdout.write(
    `rules corpus: ${plans} plans at every allowed length; costliest ${worst.site} at length ${worst.length}: ${worst.work} work units (budget ${PLAN_WORK_BUDGET}), ${Math.min(...times).toFixed(1)} ms of CPU (least of 5)\n`,
  );
  assert.equal(Object.keys(PINNED).length, 429);
});
