/**
 * Security finding T4 (issue 28): a rule's plan costs at most the work budget, a rule over it
 * is a 400 naming options.passwordRules before any of the costly work is done. That one client
 * cannot flush the plan memo for the others: tests/http/plan-memo.test.ts. The work is the core
 * engine's price (lib/core/engine.ts), computed with no BigInt work.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { generate } from '../../../lib/request/generate.ts';
import { isRulesPlan, planRulesRequest } from '../../../lib/request/password-rules.ts';
import { planBytes } from '../../../lib/request/plan-store.ts';
import { planPasswordRules } from '../../../lib/core/rules/plan.ts';
import { PLAN_WORK_BUDGET } from '../../../lib/core/sample.ts';
import { rule as parsed } from '../../helpers/rule-plans.ts';

/** The finding's rule, its eight required characters varied: each set of eight cuts a-z, A-Z
 * and 0-9 into many alphabets under max-sequential 1 (about 15 million work units each). */
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

describe('T4: the cost of a plan is bounded', () => {
  // The engine prices a spec subset by subset and stops as soon as the table sets found so far
  // exceed the budget (compile in lib/core/engine.ts), so a refusal costs a fraction of a plan.
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
        new RegExp(
          `^options\\.passwordRules: at length 128 the plan takes more than ${PLAN_WORK_BUDGET} work units, over the budget of ${PLAN_WORK_BUDGET} \\(8 required sets under max-sequential 1 split the allowed set too many ways\\)$`,
        ),
      );
    }
    process.stdout.write(`T4: ten rules refused in ${stalled.toFixed(1)} ms of CPU in all\n`);
    assert.ok(stalled < 200, `${stalled.toFixed(1)} ms`);
  });

  it('the refusal is about cost only: with no budget the same rule plans, over the budget in work', () => {
    const rule = parsed(t4Rule(EIGHTS[0]));
    // At the shortest length it is still over the budget, and plans without one.
    const planned = planPasswordRules(rule, 8, undefined, Infinity);
    assert.ok(isRulesPlan(planned));
    assert.ok(planned.work > PLAN_WORK_BUDGET);
    assert.ok(!isRulesPlan(planPasswordRules(rule, 8)));
    const refused = planPasswordRules(rule, 128, undefined, 1000);
    assert.ok(!isRulesPlan(refused));
    assert.equal(refused.field, 'options.passwordRules');
  });

  it('the work is what the plan records, and the budget is compared with it', () => {
    // Eight required letters over ascii-printable at length 8: its rejection acceptance is tiny,
    // so the plan takes the exact sampler.
    const rule = parsed(`${[...'abcdefgh'].map((c) => `required: [${c}]`).join('; ')}; allowed: ascii-printable`);
    const plan = planPasswordRules(rule, 8, undefined, Infinity);
    assert.ok(isRulesPlan(plan) && plan.sampler === 'exact');
    const refused = planPasswordRules(rule, 8, undefined, plan.work - 1);
    assert.ok(!isRulesPlan(refused));
    assert.match(refused.error, new RegExp(`takes ${plan.work} work units, over the budget of ${plan.work - 1}$`));
    assert.ok(isRulesPlan(planPasswordRules(rule, 8, undefined, plan.work)));
  });
});

/** The collector, for measuring what a plan keeps (no flag needed on the command line). */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap bytes kept by the result of make(), after full collections before and after. */
function retained(make: () => unknown): { value: unknown; bytes: number } {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const value = make();
  gc();
  gc();
  return { value, bytes: process.memoryUsage().heapUsed - before };
}

describe('U1: an exact plan is priced with the draws of the largest request', () => {
  // The review's rule: eight required symbols under max-sequential 1 at 128. Before, its plan was
  // priced by its tables alone (480,256 units) and served, and each of a count=20 request's draws
  // walked 128 places over up to 256 subsets of the required sets, unpriced.
  const eightSymbols = `allowed: lower, upper, digit; ${[...'!#$%&*+-'].map((c) => `required: [${c}]`).join('; ')}; max-sequential: 1`;

  it("U1: the review's rule at 128 is a 400 naming options.passwordRules, its draws priced over the budget", () => {
    const r = generate({ mode: 'password', count: 20, options: { passwordRules: eightSymbols, length: 128 } });
    assert.equal(r.status, 400);
    assert.equal(r.body.field, 'options.passwordRules');
    assert.match(r.body.error, /over the budget of \d+ \(/);
  });

  it("U1: an exact plan's work is its tables and 20 draws, within the budget", () => {
    const text = 'allowed: lower, upper, digit, [-!]; required: [b]; required: [e]; required: [j]; max-sequential: 1';
    const plan = planRulesRequest({ text, length: 28 });
    assert.ok(isRulesPlan(plan) && plan.sampler === 'exact' && plan.counted !== null);
    const work = plan.counted.compiled.work;
    assert.ok(work.draw > 0);
    assert.equal(plan.work, work.tables + 20 * work.draw);
    assert.ok(plan.work <= PLAN_WORK_BUDGET);
  });
});

describe('planBytes: what the memo counts a plan as', () => {
  it("grows with the sampler's table: a refusal and a rejection plan are small, the exact tables are counted whole", () => {
    const at = (text: string, length: number) => {
      const plan = planRulesRequest({ text, length });
      return [plan, planBytes(plan, `${length}|${text}`)] as const;
    };
    const [refusal, refusalBytes] = at('maxlength: 6', 8);
    assert.ok(!isRulesPlan(refusal));
    assert.ok(refusalBytes < 2200);
    const [rejection, rejectionBytes] = at('required: upper; required: digit', 24);
    assert.ok(isRulesPlan(rejection) && rejection.sampler === 'rejection');
    assert.ok(rejectionBytes > refusalBytes && rejectionBytes < 20_000);
    const [exact, exactBytes] = at('required: [a]; required: [b]; required: [c]; allowed: ascii-printable', 8);
    assert.ok(isRulesPlan(exact) && exact.sampler === 'exact');
    assert.ok(exact.counted !== null);
    assert.ok(exactBytes > rejectionBytes + 8 * exact.counted.compiled.work.entries);
  });

  // Measured, not assumed: what a plan keeps on the heap, against what the memo counts it as (at
  // most 4 times as much, so that the bound does not waste the memo). The heap moves by some
  // 100 KB between two measures, so each is of `copies` plans made alike, and per plan. The
  // rules: the largest index of the tables (eight required sets over ascii-printable), and an
  // exact plan near the budget.
  for (const [name, text, length, copies] of [
    [
      'eight required letters over ascii-printable at 8',
      `${[...'abcdefgh'].map((c) => `required: [${c}]`).join('; ')}; allowed: ascii-printable`,
      8,
      12,
    ],
    [
      'three required letters among 64 under max-sequential 1 at 28',
      'allowed: lower, upper, digit, [-!]; required: [b]; required: [e]; required: [j]; max-sequential: 1',
      28,
      3,
    ],
  ] as const) {
    it(`bounds the heap an exact plan keeps: ${name}`, () => {
      // A plan of the same kind first, so that what V8 keeps for the code it runs is not counted.
      planRulesRequest({ text, length });
      const made = retained(() => Array.from({ length: copies }, () => planRulesRequest({ text, length })));
      const bytes = Math.round(made.bytes / copies);
      const plan = (made.value as ReturnType<typeof planRulesRequest>[])[0];
      assert.ok(isRulesPlan(plan) && plan.sampler === 'exact');
      const counted = planBytes(plan, `${length}|${text}`);
      process.stdout.write(
        `planBytes: ${name}: ${plan.work} work units, ${bytes} bytes kept a plan (${copies} made), counted as ${counted}\n`,
      );
      assert.ok(bytes <= counted, `${bytes} bytes kept, counted as ${counted}`);
      assert.ok(counted <= 4 * bytes, `${bytes} bytes kept, counted as ${counted}`);
    });
  }
});
