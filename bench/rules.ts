/**
 * `node --import tsx bench/rules.ts`: the figures behind docs/password-rules.md.
 *
 * 1. The corpus (434 real rules): parse, plan and sample times after a warm-up pass, median
 *    and worst, and the rejection acceptance rates at the default length.
 * 2. The sampler switch: the cost of one password by rejection and by the exact sampler, in
 *    the same run, interleaved, over rules whose acceptance falls from ~1 to ~1e-4; the
 *    ratio says where the exact sampler starts to win.
 * 3. The worst plans the limits allow (8 required sets, 128 characters, exact sampler): plan
 *    time, work units (the engine's price) and sample time.
 * 4. max-sequential: the costliest counts (8 single letters cutting a-z, A-Z and 0-9 into 256
 *    alphabet shapes, 128 characters; some past the budget) and the exact sampler where
 *    rejection keeps almost nothing, in CPU time (least of 5).
 * Times are wall clock on whatever machine runs it (CPU time where said); each figure is the
 * median of several interleaved batches, so load spikes shift both sides of a ratio alike.
 */
import corpus from '../tests/fixtures/password-rules/password-rules.json' with { type: 'json' };
import {
  generateRulesPasswords,
  isRulesPlan,
  parsePasswordRules,
  planPasswordRules,
  type PasswordRules,
  type RulesPlan,
} from '../lib/core/rules/index.ts';
import { defaultRandom, type Sampler } from '../lib/core/index.ts';

const RULES = Object.values(corpus as Record<string, { 'password-rules': string }>).map((v) => v['password-rules']);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const us = (ms: number) => `${(ms * 1000).toFixed(1)} us`;

function rule(text: string): PasswordRules {
  const r = parsePasswordRules(text);
  if (!r.ok) throw new Error(r.error.error);
  return r.rule;
}
/** Plans without the work budget: the sections below time the engines, some past it. */
function plan(text: string, length?: number, sampler?: Sampler): RulesPlan {
  const p = planPasswordRules(rule(text), length, sampler, Infinity);
  if (!isRulesPlan(p)) throw new Error(p.error);
  return p;
}

function corpusTimes(): void {
  const times = { parse: [] as number[], plan: [] as number[], sample: [] as number[] };
  const acceptance: number[] = [];
  for (let pass = 0; pass < 2; pass++) {
    for (const text of RULES) {
      let t = performance.now();
      const r = parsePasswordRules(text);
      const parseMs = performance.now() - t;
      if (!r.ok) continue;
      t = performance.now();
      const p = planPasswordRules(r.rule);
      const planMs = performance.now() - t;
      if (!isRulesPlan(p)) continue;
      t = performance.now();
      for (let i = 0; i < 10; i++) generateRulesPasswords(p, defaultRandom, 1);
      const sampleMs = (performance.now() - t) / 10;
      if (pass === 1) {
        times.parse.push(parseMs);
        times.plan.push(planMs);
        times.sample.push(sampleMs);
        acceptance.push(p.acceptance);
      }
    }
  }
  console.log('1. corpus, second pass (after warm-up):');
  for (const [k, xs] of Object.entries(times))
    console.log(`   ${k.padEnd(6)} median ${us(median(xs))}, worst ${us(Math.max(...xs))} over ${xs.length} rules`);
  const sorted = acceptance.sort((a, b) => a - b);
  console.log(
    `   acceptance at the default length: min ${sorted[0].toFixed(3)}, median ${median(sorted).toFixed(3)}, max ${sorted[sorted.length - 1].toFixed(3)}`,
  );
}

/** Mean ms per password of each plan, interleaved in batches; median over batches. */
function perPassword(plans: RulesPlan[], batches: number, perBatch: number): number[] {
  const samples = plans.map(() => [] as number[]);
  for (let b = 0; b < batches; b++) {
    plans.forEach((p, i) => {
      const t = performance.now();
      for (let n = 0; n < perBatch; n++) generateRulesPasswords(p, defaultRandom, 1);
      samples[i].push((performance.now() - t) / perBatch);
    });
  }
  return samples.map(median);
}

function switchPoint(): void {
  console.log('2. one password, rejection vs exact (same run, interleaved):');
  console.log(
    '   rule                                             length  acceptance  attempts  rejection    exact   exact/rejection   plan: rejection    exact',
  );
  const families: [string, number][] = [];
  const singles = 'abcdefgh';
  for (let k = 0; k <= 4; k++) {
    const req = [...singles.slice(0, k)].map((c) => `required: [${c}]`).join('; ');
    for (const length of [8, 24, 64]) families.push([`${req}${k ? '; ' : ''}allowed: ascii-printable`, length]);
  }
  families.push(['max-repeating: 1; required: [ab]; allowed: [cd]', 24]);
  families.push(['max-repeating: 1; required: lower; required: upper; required: digit; required: special', 24]);
  for (const [text, length] of families) {
    const rej = plan(text, length, 'rejection');
    if (rej.acceptance < 1e-5) continue;
    const ex = plan(text, length, 'exact');
    const expected = 1 / rej.acceptance;
    const perBatch = Math.max(1, Math.min(200, Math.round(2000 / expected)));
    const [r, e] = perPassword([rej, ex], 9, perBatch);
    const planTimes = (['rejection', 'exact'] as const).map((s) => {
      const xs: number[] = [];
      for (let i = 0; i < 9; i++) {
        const t = performance.now();
        plan(text, length, s);
        xs.push(performance.now() - t);
      }
      return median(xs);
    });
    console.log(
      `   ${text.slice(0, 48).padEnd(48)} ${String(length).padStart(6)}  ${rej.acceptance.toExponential(2).padStart(10)}  ${expected.toFixed(1).padStart(8)}  ${us(r).padStart(9)}  ${us(e).padStart(9)}  ${(e / r).toFixed(2).padStart(8)}` +
        `         ${us(planTimes[0]).padStart(9)}  ${us(planTimes[1]).padStart(9)}`,
    );
  }
}

function worstPlans(): void {
  console.log('3. the largest plans the limits allow (exact sampler):');
  const eight = [...'abcdefgh'].map((c) => `required: [${c}]`).join('; ');
  for (const text of [
    `minlength: 128; max-consecutive: 1; ${eight}; allowed: ascii-printable`,
    `minlength: 128; ${eight}; allowed: ascii-printable`,
  ]) {
    const r = rule(text);
    const planMs: number[] = [];
    let p: RulesPlan | undefined;
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      p = plan(r.text, 128, 'exact');
      planMs.push(performance.now() - t);
    }
    const [sample] = perPassword([p!], 7, 50);
    console.log(
      `   ${text.slice(0, 60)}...: plan median ${median(planMs).toFixed(1)} ms, ${p!.work} work units, ` +
        `sample ${us(sample)}, acceptance ${p!.acceptance.toExponential(2)}`,
    );
  }
}

function cpuMs(work: () => void): number {
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const before = process.cpuUsage();
    work();
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

function sequencePlans(): void {
  console.log('4. max-sequential (CPU time, least of 5):');
  const spread = [...'sxML2uqT'].map((c) => `required: [${c}]`).join('; ');
  for (const [text, length] of [
    [`max-sequential: 1; ${spread}; allowed: ascii-printable`, 128],
    [`max-consecutive: 1; ${spread}; allowed: ascii-printable`, 128],
    [`max-sequential: 2; ${spread}; allowed: ascii-printable`, 128],
    [`max-sequential: 1; ${spread}; allowed: lower, upper, digit`, 128],
    [`max-consecutive: 1; ${spread}; allowed: ascii-printable`, 24],
    ['max-consecutive: 1; allowed: digit', 24],
    ['max-consecutive: 1; allowed: digit', 128],
    ['max-consecutive: 1; required: lower; required: upper; required: digit; required: special', 128],
    ['max-sequential: 1; required: [b]; allowed: [abc]', 128],
  ] as const) {
    let p: RulesPlan | undefined;
    const planMs = cpuMs(() => {
      p = plan(text, length);
    });
    const sampleMs = cpuMs(() => {
      for (let i = 0; i < 20; i++) generateRulesPasswords(p!, defaultRandom, 1);
    });
    console.log(
      `   ${text.slice(0, 60).padEnd(60)} ${String(length).padStart(4)}: plan ${planMs.toFixed(1)} ms, ${p!.sampler}, one password ${us(sampleMs / 20)}`,
    );
  }
}

corpusTimes();
switchPoint();
worstPlans();
sequencePlans();
