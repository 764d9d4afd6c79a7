/**
 * `node --import tsx bench/engine-work.ts [--counts]`: the exact engine's work units
 * (lib/core/rules/engine.ts) against the current planner's (plan.ts, RulesPlan.work) for every
 * rule of the 434-rule corpus at every length it allows; docs/password-rules.md, "The exact
 * engine's work". Both are deterministic counts of BigInt operations, not times, so the figures
 * do not depend on the machine. Prints the median and worst ratio and how many plans exceed the
 * budget, for the count alone (countWork) and for the count with the unranking tables (work).
 * With --counts it also counts every plan with the engine and checks it equals the planner's.
 * With --draws it only times one password by today's exact samplers and by the engine's
 * unranking, interleaved, on four rules (CPU, least of 5 rounds of 200).
 */
import corpus from '../tests/fixtures/password-rules/password-rules.json' with { type: 'json' };
import {
  generateRulesPassword,
  isRulesPlan,
  parsePasswordRules,
  rulesLengthBounds,
  type PasswordRules,
  type RulesSampler,
} from '../lib/core/rules/index.ts';
import { PLAN_WORK_BUDGET, planPasswordRules } from '../lib/core/rules/plan.ts';
import { compile, countMachine, unrankingOf, unrankMachine, type EngineSpec } from '../lib/core/rules/engine.ts';
import { uniformBigIntBelow } from '../lib/core/rules/uniform-bigint.ts';
import { defaultRandom } from '../lib/core/random.ts';

const specOf = (rule: PasswordRules, length: number): EngineSpec => ({
  codes: [...rule.allowed].map((c) => c.charCodeAt(0)),
  required: rule.required.map((set) => [...set].map((c) => c.charCodeAt(0))),
  length,
  maxRepeating: rule.maxRepeating,
  maxSequential: rule.maxSequential,
});

const checkCounts = process.argv.includes('--counts');

if (process.argv.includes('--draws')) {
  const now = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const rules = corpus as Record<string, { 'password-rules': string }>;
  const cases: [string, string, number, RulesSampler][] = [
    ['fedex.com', rules['fedex.com']['password-rules'], 128, 'exact'],
    ['fedex.com', rules['fedex.com']['password-rules'], 128, 'exact'],
    [
      'three single letters, max-consecutive 1',
      'required: [a]; required: [b]; required: [c]; allowed: lower; max-consecutive: 1',
      8,
      'exact',
    ],
    ['digits, max-consecutive 1', 'max-consecutive: 1; allowed: digit', 16, 'exact'],
    [
      '0 and 3 among 0123, max-sequential 1',
      'required: [0]; required: [3]; allowed: [0123]; max-sequential: 1',
      8,
      'exact',
    ],
  ];
  for (const [name, text, L, sampler] of cases) {
    const parsed = parsePasswordRules(text);
    if (!parsed.ok) throw new Error(text);
    const rule = parsed.rule;
    const plan = planPasswordRules(rule, L, sampler, Infinity);
    if (!isRulesPlan(plan)) throw new Error(plan.error);
    const tables = countMachine(compile(specOf(rule, L)));
    const best = [Infinity, Infinity];
    for (let round = 0; round < 5; round++) {
      let t = now();
      for (let i = 0; i < 200; i++) generateRulesPassword(plan, defaultRandom);
      best[0] = Math.min(best[0], (now() - t) / 200);
      t = now();
      for (let i = 0; i < 200; i++) unrankMachine(tables, uniformBigIntBelow(tables.count, defaultRandom));
      best[1] = Math.min(best[1], (now() - t) / 200);
    }
    console.log(
      `${name} at ${L}: today's ${sampler} ${(best[0] * 1000).toFixed(0)} us a password, the engine ${(best[1] * 1000).toFixed(0)} us`,
    );
  }
  process.exit(0);
}
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)];

interface Row {
  site: string;
  length: number;
  today: number;
  count: number;
  tables: number;
  sampler: string;
}
const rows: Row[] = [];
let mismatches = 0;
for (const [site, v] of Object.entries(corpus as Record<string, { 'password-rules': string }>)) {
  const parsed = parsePasswordRules(v['password-rules']);
  if (!parsed.ok) continue;
  const rule = parsed.rule;
  const { min, max } = rulesLengthBounds(rule);
  for (let L = min; L <= max; L++) {
    const plan = planPasswordRules(rule, L);
    if (!isRulesPlan(plan)) continue; // refused today: not part of the comparison
    const spec: EngineSpec = {
      codes: [...rule.allowed].map((c) => c.charCodeAt(0)),
      required: rule.required.map((set) => [...set].map((c) => c.charCodeAt(0))),
      length: L,
      maxRepeating: rule.maxRepeating,
      maxSequential: rule.maxSequential,
    };
    const m = compile(spec);
    rows.push({
      site,
      length: L,
      today: plan.work,
      count: m.countWork,
      tables: unrankingOf(m).work,
      sampler: plan.sampler,
    });
    if (checkCounts) {
      const counted = countMachine(m).count;
      const full = plan.sampler === 'rejection' ? counted : countMachine(m).count;
      if (counted !== plan.count || full !== plan.count) {
        mismatches++;
        console.log(`count differs: ${site} at ${L}`);
      }
    }
  }
}

function report(label: string, pick: (r: Row) => number, subset: Row[] = rows): void {
  const ratios = subset.map((r) => pick(r) / r.today);
  const worst = subset.reduce((a, b) => (pick(b) > pick(a) ? b : a));
  const worstRatio = subset.reduce((a, b) => (pick(b) / b.today > pick(a) / a.today ? b : a));
  const over = subset.filter((r) => pick(r) > PLAN_WORK_BUDGET);
  const overSites = new Set(over.map((r) => r.site));
  console.log(
    `${label}: ${subset.length} plans; ratio to today median ${quantile(ratios, 0.5).toFixed(2)}, ` +
      `90th ${quantile(ratios, 0.9).toFixed(2)}, worst ${(pick(worstRatio) / worstRatio.today).toFixed(2)} ` +
      `(${worstRatio.site} at ${worstRatio.length}: ${pick(worstRatio)} vs ${worstRatio.today}); ` +
      `costliest ${worst.site} at ${worst.length}: ${pick(worst)} units (today ${worst.today}); ` +
      `over the budget of ${PLAN_WORK_BUDGET}: ${over.length} plans of ${overSites.size} rules; ` +
      `over today's costliest (${Math.max(...rows.map((r) => r.today))}): ${subset.filter((r) => pick(r) > Math.max(...rows.map((x) => x.today))).length} plans`,
  );
}

const longest = new Map<string, Row>();
for (const r of rows) if ((longest.get(r.site)?.length ?? 0) < r.length) longest.set(r.site, r);
console.log(
  `today: costliest plan ${Math.max(...rows.map((r) => r.today))} units; median ${quantile(
    rows.map((r) => r.today),
    0.5,
  )}`,
);
report('count alone, every length', (r) => r.count);
report('count and unranking tables, every length', (r) => r.count + r.tables);
report('count and unranking tables, each rule at its longest length', (r) => r.count + r.tables, [...longest.values()]);
const exact = rows.filter((r) => r.sampler !== 'rejection');
if (exact.length > 0)
  report('count and tables, plans that use an exact sampler today', (r) => r.count + r.tables, exact);
if (checkCounts) console.log(`counts checked against the planner: ${rows.length} plans, ${mismatches} differ`);

// The T4 rules (tests/core/rules/budget.test.ts): 8 single letters required under
// max-sequential 1 at length 128. What the engine would price them at, and the CPU time of
// pricing (compile, no BigInt work) against today's refusal, least of 5 over the ten.
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
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const t4 = EIGHTS.map((eight) => {
  const p = parsePasswordRules(
    `allowed: lower, upper, digit; ${[...eight].map((c) => `required: [${c}]`).join('; ')}; max-sequential: 1; max-repeating: 2`,
  );
  if (!p.ok) throw new Error(eight);
  return p.rule;
});
const least = (f: () => void) => {
  let best = Infinity;
  for (let i = 0; i < 15; i++) {
    const t0 = cpuMs();
    f();
    best = Math.min(best, cpuMs() - t0);
  }
  return best;
};
const t4Specs = t4.map((rule) => ({
  codes: [...rule.allowed].map((c) => c.charCodeAt(0)),
  required: rule.required.map((set) => [...set].map((c) => c.charCodeAt(0))),
  length: 128,
  maxRepeating: rule.maxRepeating,
  maxSequential: rule.maxSequential,
}));
const t4Work = t4Specs.map((spec) => compile(spec));
const t4Priced = t4Specs.map((spec) => compile(spec, PLAN_WORK_BUDGET));
const fmt = (xs: number[]) => `${Math.min(...xs)}-${Math.max(...xs)}`;
console.log(
  `T4 rules at 128: engine count alone ${fmt(t4Work.map((m) => m.countWork))} units, tables ${fmt(t4Work.map((m) => unrankingOf(m).work))}; ` +
    `refused under the budget: ${t4Priced.filter((m) => m.countWork > PLAN_WORK_BUDGET).length} of 10; ` +
    `pricing all ten under the budget, CPU least of 15: engine ${least(() => t4Specs.forEach((s) => compile(s, PLAN_WORK_BUDGET))).toFixed(1)} ms, today's refusal ${least(() => t4.forEach((r) => planPasswordRules(r, 128))).toFixed(1)} ms`,
);
