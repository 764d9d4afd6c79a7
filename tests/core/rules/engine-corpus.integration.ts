/**
 * The prototype exact engine (lib/core/rules/engine.ts) on the 434-rule corpus: for every rule
 * the service accepts, at its shortest and longest length, the engine's count (by its
 * unranking tables and by the count alone) equals the planner's, its work stays within the
 * plan budget, and the first, the last and a seeded rank unrank to passwords the independent
 * checker (tests/helpers/rules-checker.ts) accepts. bench/engine-work.ts checks the count alone
 * at every length. Integration, not npm test: about 840 table sets, some of the costliest.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import corpus from '../../fixtures/password-rules/password-rules.json' with { type: 'json' };
import { isRulesPlan, parsePasswordRules, rulesLengthBounds } from '../../../lib/core/rules/index.ts';
import { PLAN_WORK_BUDGET, planPasswordRules } from '../../../lib/core/rules/plan.ts';
import { compile, countMachine, unrankingOf, unrankMachine, type EngineSpec } from '../../../lib/core/rules/engine.ts';
import { readRule, violation } from '../../helpers/rules-checker.ts';
import { seededRandom } from '../../helpers/seeded.ts';

it('the engine counts every accepted corpus rule as the planner does at its shortest and longest length, within the budget, and unranks valid passwords', () => {
  const random = seededRandom(29);
  let plans = 0;
  for (const [site, v] of Object.entries(corpus as Record<string, { 'password-rules': string }>)) {
    const text = v['password-rules'];
    const parsed = parsePasswordRules(text);
    if (!parsed.ok) continue;
    const rule = parsed.rule;
    const checker = readRule(text);
    const { min, max } = rulesLengthBounds(rule);
    for (const L of new Set([min, max])) {
      const plan = planPasswordRules(rule, L);
      if (!isRulesPlan(plan)) continue;
      const spec: EngineSpec = {
        codes: [...rule.allowed].map((c) => c.charCodeAt(0)),
        required: rule.required.map((set) => [...set].map((c) => c.charCodeAt(0))),
        length: L,
        maxRepeating: rule.maxRepeating,
        maxSequential: rule.maxSequential,
      };
      const m = compile(spec, PLAN_WORK_BUDGET);
      const unranking = unrankingOf(m);
      assert.ok(m.countWork + unranking.work <= PLAN_WORK_BUDGET, `${site} at ${L}: work`);
      const tables = countMachine(m, unranking);
      assert.equal(tables.count, plan.count, `${site} at ${L}: count by the tables`);
      const middle = BigInt(random.below(2 ** 30)) % tables.count;
      for (const rank of [0n, middle, tables.count - 1n]) {
        const password = String.fromCharCode(...unrankMachine(tables, rank));
        assert.equal(password.length, L);
        assert.equal(violation(checker, password), null, `${site} at ${L}: rank ${rank}`);
      }
      plans++;
    }
  }
  process.stdout.write(`engine on the corpus: ${plans} plans checked\n`);
  assert.ok(plans > 800);
});
