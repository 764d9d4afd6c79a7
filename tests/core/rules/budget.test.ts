/**
 * Security finding T4 (issue 28): a rule's plan costs at most the work budget, a rule over it
 * is a 400 naming options.passwordRules before any of the costly work is done. That one client
 * cannot flush the plan memo for the others: tests/http/plan-memo.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../../lib/core/generate.ts';
import { isRulesPasswordPlan, planBytes, planRulesRequest } from '../../../lib/core/password-rules.ts';
import { isRulesPlan, parsePasswordRules, type PasswordRules } from '../../../lib/core/rules/index.ts';
import { PLAN_WORK_BUDGET, planPasswordRules } from '../../../lib/core/rules/plan.ts';

/** The finding's rule, its eight required characters varied: each set of eight cuts a-z, A-Z
 * and 0-9 into many alphabets under max-sequential 1 (4.0 to 4.7 million work units each). */
const EIGHTS = [
  'bejsCHP5',
  'adkqDGR7',
  'cfmtBJQ2',
  'dhnuEKS3',
  'egovFLT4',
  'fipwAMU6',
  'gjrxNVW8',
  'hkszXOY9',
  'iluyZIK0',
  'bmqvJRW1',
];
const t4Rule = (eight: string) =>
  `allowed: lower, upper, digit; ${[...eight].map((c) => `required: [${c}]`).join('; ')}; max-sequential: 1; max-repeating: 2`;

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function parsed(text: string): PasswordRules {
  const p = parsePasswordRules(text);
  assert.ok(p.ok, text);
  return p.rule;
}

describe('T4: the cost of a plan is bounded', () => {
  it('T4: the ten rules of the finding at length 128 stall the event loop less than 200 ms in all, each refused with a 400 naming options.passwordRules', () => {
    let stalled = 0;
    for (const eight of EIGHTS) {
      // generate() is what the route runs on the event loop for a request: its CPU time is the
      // stall (CPU time rather than wall clock, so a loaded machine does not fail the test).
      const t0 = cpuMs();
      const r = generate({ mode: 'password', options: { passwordRules: t4Rule(eight), length: 128 } });
      stalled += cpuMs() - t0;
      assert.equal(r.status, 400, eight);
      assert.equal(r.body.field, 'options.passwordRules', eight);
      assert.match(
        r.body.error,
        /^options\.passwordRules: at length 128 the plan takes more than 500000 work units, over the budget of 500000 \(8 required sets under max-sequential 1 split the allowed set too many ways\)$/,
      );
    }
    process.stdout.write(`T4: ten rules refused in ${stalled.toFixed(1)} ms of CPU in all\n`);
    assert.ok(stalled < 200, `${stalled.toFixed(1)} ms`);
  });

  it('the refusal is about cost only: with no budget the same rule plans, over the budget in work', () => {
    const rule = parsed(t4Rule(EIGHTS[0]));
    // A shorter length costs less; at 24 it fits (the counts' triangle grows with the square).
    const short = planPasswordRules(rule, 24);
    assert.ok(isRulesPlan(short));
    assert.ok(short.work <= PLAN_WORK_BUDGET);
    const refused = planPasswordRules(rule, 128, undefined, 1000);
    assert.ok(!isRulesPlan(refused));
    assert.equal(refused.field, 'options.passwordRules');
  });

  it('a plan whose counts fit but whose table does not is refused too, and the work is what the plan records', () => {
    // Eight required letters over ascii-printable at length 8: its rejection acceptance is tiny,
    // so the plan takes the exact sampler, whose table is L x 2^8 x 10 work units.
    const rule = parsed(`${[...'abcdefgh'].map((c) => `required: [${c}]`).join('; ')}; allowed: ascii-printable`);
    const plan = planPasswordRules(rule, 8, undefined, Infinity);
    assert.ok(isRulesPlan(plan) && plan.sampler === 'exact');
    assert.ok(plan.work > 8 * 256 * 10);
    const refused = planPasswordRules(rule, 8, undefined, plan.work - 1);
    assert.ok(!isRulesPlan(refused));
    assert.match(refused.error, new RegExp(`takes ${plan.work} work units, over the budget of ${plan.work - 1}$`));
    assert.ok(isRulesPlan(planPasswordRules(rule, 8, undefined, plan.work)));
  });
});

describe('planBytes: what the memo counts a plan as', () => {
  it("grows with the sampler's table: a refusal and a rejection plan are small, the exact tables are counted whole", () => {
    const at = (text: string, length: number) => {
      const plan = planRulesRequest({ text, length });
      return [plan, planBytes(plan, `${length}|${text}`)] as const;
    };
    const [refusal, refusalBytes] = at('maxlength: 6', 8);
    assert.ok(!isRulesPasswordPlan(refusal));
    assert.ok(refusalBytes < 2200);
    const [rejection, rejectionBytes] = at('required: upper; required: digit', 24);
    assert.ok(isRulesPasswordPlan(rejection) && rejection.rules.sampler === 'rejection');
    assert.ok(rejectionBytes > refusalBytes && rejectionBytes < 6000);
    const [exact, exactBytes] = at('required: [a]; required: [b]; required: [c]; allowed: ascii-printable', 8);
    assert.ok(isRulesPasswordPlan(exact) && exact.rules.sampler === 'exact');
    // 2^3 x 8 numbers of at least 24 bytes each, besides the fixed part.
    assert.ok(exactBytes > 2048 + 8 * 8 * 24);
    const [sequences, sequencesBytes] = at('max-consecutive: 1; allowed: digit', 24);
    assert.ok(isRulesPasswordPlan(sequences) && sequences.rules.sampler === 'exact-sequences');
    assert.ok(sequencesBytes > 2048 + 4 * 24 * 10 * 24);
    const [full, fullBytes] = at('required: [b]; allowed: [abc]; max-sequential: 1', 24);
    assert.ok(isRulesPasswordPlan(full) && full.rules.sampler === 'exact-full');
    assert.ok(fullBytes > 2048 + 24 * 2 * 3 * 4 * 24);
  });
});
