/**
 * `node --import tsx bench/engine.ts [--quick]`, or section `engine` of `npm run bench`: what a plan costs (docs/engine.md, The work budget;
 * docs/benchmark.md, The engine). Each planner is bundled by esbuild from its own sources, the same
 * way (no names kept): this checkout's lib/, and the planner of 2fb3ee0 (the last before the exact
 * engine) from git, so both run as built code in one process.
 *
 * 1. The issue's requests, each planned afresh (no plan store): CPU time per plan, the least of
 *    many batches, the two planners interleaved batch by batch so load shifts both alike; a row
 *    the old planner had no spec for shows "-".
 * 2. The 434-site corpus at every length each rule allows: total CPU time of all plans, least of 3.
 * 3. A plan at the budget: the costliest options a person reaches one change at a time that are
 *    still served (tests/helpers/costliest-options.ts, the page's speed test's search), planned
 *    and drawn from (20 values, the most one request asks): its CPU time, the least of 5 after a warm-up.
 * 4. The realistic family: 1,000 seeded option sets (any classes with exclusions, length 8-128,
 *    class minimums 0-4, minClasses, first and last classes, maxRepeating and maxSequential 2-8 or
 *    absent): the share served and the worst and median plan times (each the lesser of two, after one untimed pass over the family).
 * 5. options.pattern (docs/pattern.md): the real regexes of tests/fixtures/pattern/, each planned
 *    at its default length and drawn from (20 values), the worst of them; and a pattern at the
 *    budget: the most work units still served among k negative lookaheads (?!.*w) before
 *    (?=.*\d)[a-z0-9]+ at lengths 8-128, planned and drawn from, and one more lookahead at that
 *    length, refused over the budget: CPU time of each, the least of 5.
 * Figures are CPU time of this process (process.cpuUsage), so the machine's other work moves
 * them less than wall time; on a loaded machine quote the ratios, not the times.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { ROOT } from './procs.ts';
import { seededRandom } from '../tests/helpers/seeded.ts';
import { costliestPath } from '../tests/helpers/costliest-options.ts';

interface Planner {
  planPassword(o: object): object;
  planPasswordRules(rule: object, length?: number): object;
  parsePasswordRules(text: string): { ok: boolean; rule?: object };
  withPasswordOptionsDefaults(o: object): object;
  drawValues?(plan: object, random: object, count: number): string[];
  defaultRandom?: object;
  planPattern?: (text: string, length?: number) => { work?: number; error?: string };
  drawPattern?: (plan: object, random: object, count: number) => string[];
}

const ENTRY = (root: string, current: boolean) => `
export { planPassword } from '${root}/lib/core/password.ts';
export { planPasswordRules } from '${root}/lib/core/rules/plan.ts';
export { parsePasswordRules } from '${root}/lib/core/rules/parse.ts';
export { withPasswordOptionsDefaults } from '${root}/lib/generated/options.generated.ts';
${current ? `export { drawValues } from '${root}/lib/core/sample.ts';\nexport { defaultRandom } from '${root}/lib/core/random.ts';\nexport { planPattern, drawPattern } from '${root}/lib/core/pattern/plan.ts';` : ''}
`;

/** Bundles one planner from a source tree into dir/name.mjs and imports it. */
async function planner(root: string, dir: string, name: string, current: boolean): Promise<Planner> {
  const entry = join(dir, `${name}-entry.ts`);
  writeFileSync(entry, ENTRY(root, current));
  const outfile = join(dir, `${name}.mjs`);
  await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'neutral', outfile, logLevel: 'warning' });
  return (await import(pathToFileURL(outfile).href)) as Planner;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Warm-up: the function runs untimed first (2,000 calls, or 3 s), so that V8 has optimised the
 * code a long-running server has long since optimised before a timing counts. */
function warm(f: () => unknown): void {
  for (let n = 0, t0 = performance.now(); n < 2000 && performance.now() - t0 < 3000; n++) f();
}

/** CPU ms per call of each function, the least over batches, the functions interleaved batch by
 * batch; each batch runs for at least `sliceMs`. */
function paired(fns: readonly (() => unknown)[], batches: number, sliceMs: number): number[] {
  const best = fns.map(() => Infinity);
  fns.forEach(warm);
  for (let b = 0; b < batches; b++)
    fns.forEach((f, i) => {
      let n = 0;
      const t0 = cpuMs();
      do {
        f();
        n++;
      } while (cpuMs() - t0 < sliceMs);
      best[i] = Math.min(best[i], (cpuMs() - t0) / n);
    });
  return best;
}

const CLASSES = ['lowercase', 'uppercase', 'numbers', 'symbols'] as const;
const OPTION = { lowercase: 'Lowercase', uppercase: 'Uppercase', numbers: 'Numbers', symbols: 'Symbols' } as const;

/** One member of the realistic family, seeded. */
function familyMember(below: (n: number) => number): Record<string, unknown> {
  let included = CLASSES.filter(() => below(2) === 0);
  if (included.length === 0) included = [CLASSES[below(4)]];
  const o: Record<string, unknown> = { length: 8 + below(121) };
  for (const c of CLASSES) o[`include${OPTION[c]}`] = included.includes(c);
  if (below(4) === 0) o.avoidAmbiguous = true;
  if (below(4) === 0) o.excludedCharacters = [...'aeiouXYZ239!#'].filter(() => below(4) === 0).join('');
  if (below(4) === 0) o.minClasses = 1 + below(included.length);
  else for (const c of included) if (below(2) === 0) o[`min${OPTION[c]}`] = below(5);
  const some = () => included.filter(() => below(2) === 0);
  if (below(4) === 0 && some().length > 0) o.firstCharacter = some().length > 0 ? some() : [included[0]];
  if (below(4) === 0) o.lastCharacter = some().length > 0 ? some() : [included[0]];
  if (below(2) === 0) o.maxRepeating = [2, 2, 3, 3, 4, 8][below(6)];
  if (below(2) === 0) o.maxSequential = [2, 2, 3, 3, 4, 8][below(6)];
  return o;
}

const FEDEX =
  'minlength: 8; max-consecutive: 3; required: lower; required: upper; required: digit; allowed: [-!@#$%^&*_+=`|(){}[:;,.?]];';

/** What the section measured (CPU milliseconds), for bench/run.ts's table and targets. */
export interface EngineResult {
  readonly requests: readonly { readonly name: string; readonly nowMs: number; readonly oldMs: number | null }[];
  readonly corpus: { readonly nowMs: number; readonly oldMs: number };
  readonly atBudget: { readonly work: number; readonly options: object; readonly ms: number };
  readonly family: {
    readonly members: number;
    readonly served: number;
    readonly refused: number;
    readonly servedShare: number;
    readonly medianMs: number;
    readonly p99Ms: number;
    readonly worstMs: number;
    readonly costliest: { readonly work: number; readonly ms: number };
    readonly slowest: { readonly work: number; readonly ms: number; readonly options: object };
    readonly refusals: readonly string[];
  };
}

/** The section, its lines written to `print` as they are measured. */
export async function runEngine(quick: boolean, print: (line: string) => void = console.log): Promise<EngineResult> {
  const dir = mkdtempSync(join(tmpdir(), 'engine-bench-'));
  try {
    const oldRoot = join(dir, 'old');
    execFileSync('sh', ['-c', `mkdir -p ${oldRoot} && git -C ${ROOT} archive 2fb3ee0 lib | tar -x -C ${oldRoot}`]);
    const now = await planner(ROOT, dir, 'now', true);
    const old = await planner(oldRoot, dir, 'old', false);
    const rule = (p: Planner, text: string) => {
      const r = p.parsePasswordRules(text);
      if (!r.ok) throw new Error(`bench: ${text} does not parse`);
      return r.rule as object;
    };
    const requests: [string, object | string, number | undefined, boolean][] = [
      ['default options', {}, undefined, true],
      ['length 128 with symbols', { length: 128, includeSymbols: true }, undefined, true],
      [
        'four classes, each at least 4, length 32',
        { length: 32, includeSymbols: true, minLowercase: 4, minUppercase: 4, minNumbers: 4, minSymbols: 4 },
        undefined,
        false,
      ],
      ['fedex.com at 128', FEDEX, 128, true],
    ];
    print('1. requests, each planned afresh: CPU ms per plan (least of batches)');
    const rows: EngineResult['requests'][number][] = [];
    for (const [name, options, length, withOld] of requests) {
      const call = (p: Planner) =>
        typeof options === 'string'
          ? () => p.planPasswordRules(rule(p, options), length)
          : () => p.planPassword(p.withPasswordOptionsDefaults(options));
      const fns = withOld ? [call(now), call(old)] : [call(now)];
      const [t, o] = paired(fns, quick ? 3 : 12, quick ? 30 : 100);
      rows.push({ name, nowMs: t, oldMs: o ?? null });
      print(
        `   ${name.padEnd(42)} now ${t.toFixed(3)} ms` +
          (o === undefined ? '   2fb3ee0 -' : `   2fb3ee0 ${o.toFixed(3)} ms   ratio ${(t / o).toFixed(2)}`),
      );
    }
    const corpus = JSON.parse(
      readFileSync(join(ROOT, 'tests/fixtures/password-rules/password-rules.json'), 'utf8'),
    ) as Record<string, { 'password-rules': string }>;
    const texts = Object.values(corpus).map((v) => v['password-rules']);
    const corpusTotal = (p: Planner) => () => {
      let plans = 0;
      for (const text of texts) {
        const r = p.parsePasswordRules(text);
        if (!r.ok) continue;
        for (let L = 8; L <= 128; L++) if ('count' in p.planPasswordRules(r.rule as object, L)) plans++;
      }
      return plans;
    };
    const [ct, co] = paired([corpusTotal(now), corpusTotal(old)], quick ? 1 : 3, 0);
    print(
      `2. corpus, every rule at every length it allows: now ${ct.toFixed(0)} ms, 2fb3ee0 ${co.toFixed(0)} ms, ratio ${(ct / co).toFixed(2)}`,
    );
    const workOf = (options: object) => {
      const plan = now.planPassword(now.withPasswordOptionsDefaults(options)) as { work?: number };
      return plan.work ?? -1;
    };
    const costliest = costliestPath(workOf);
    const random20 = now.defaultRandom as object;
    const atBudget = () => {
      const plan = now.planPassword(now.withPasswordOptionsDefaults(costliest.options));
      (now.drawValues as NonNullable<Planner['drawValues']>)(plan, random20, 20);
    };
    let budgetMs = Infinity;
    warm(atBudget);
    for (let round = 0; round < 5; round++) {
      const t0 = cpuMs();
      atBudget();
      budgetMs = Math.min(budgetMs, cpuMs() - t0);
    }
    print(
      `3. a plan at the budget (${costliest.work} work units): ${JSON.stringify(costliest.options)}: ${budgetMs.toFixed(1)} ms to plan and draw 20`,
    );
    const random = seededRandom(2026);
    const below = (n: number) => random.below(n);
    const times: number[] = [];
    let served = 0;
    let refused = 0;
    const refusals: string[] = [];
    // The member served with the most work units: nearer the budget than the search of section 3
    // may reach, which climbs one change at a time from the defaults.
    let costliestMember = { work: 0, ms: 0 };
    const members = quick ? 200 : 1000;
    const optionSets = Array.from({ length: members }, () => now.withPasswordOptionsDefaults(familyMember(below)));
    // One untimed pass over the family first, as `warm` does for one request: a plan's time is then
    // what a running server pays for a new option set, not V8's first compilations.
    for (const options of optionSets) now.planPassword(options);
    let slowest = { ms: 0, work: 0, options: {} as object };
    for (const options of optionSets) {
      // The lesser of two fresh plans: a garbage collection landing in one is not the plan's cost.
      let t = Infinity;
      let plan: { error?: string; work?: number } = {};
      for (let k = 0; k < 2; k++) {
        const t0 = cpuMs();
        plan = now.planPassword(options);
        t = Math.min(t, cpuMs() - t0);
      }
      if (plan.error === undefined) {
        served++;
        times.push(t);
        if ((plan.work ?? 0) > costliestMember.work) costliestMember = { work: plan.work ?? 0, ms: t };
        if (t > slowest.ms) slowest = { ms: t, work: plan.work ?? 0, options };
      } else if (/budget/.test(plan.error)) {
        refused++;
        if (refusals.length < 5) refusals.push(JSON.stringify(options));
      }
    }
    times.sort((a, b) => a - b);
    const family = {
      members,
      served,
      refused,
      servedShare: served / (served + refused),
      medianMs: times[times.length >> 1],
      p99Ms: times[Math.floor(times.length * 0.99)],
      worstMs: times[times.length - 1],
      costliest: costliestMember,
      slowest,
      refusals,
    };
    print(
      `4. family: ${members} seeded members, ${served} served, ${refused} over the budget (${(100 * family.servedShare).toFixed(1)} % served); plan ms median ${family.medianMs.toFixed(3)}, p99 ${family.p99Ms.toFixed(2)}, worst ${family.worstMs.toFixed(2)}`,
    );
    print(
      `   the member served with the most work: ${costliestMember.work} units, ${costliestMember.ms.toFixed(2)} ms`,
    );
    print(`   the slowest: ${slowest.work} units, ${slowest.ms.toFixed(2)} ms: ${JSON.stringify(slowest.options)}`);
    for (const r of refusals) print(`   refused: ${r}`);
    patterns(now, random20, print);
    return {
      requests: rows,
      corpus: { nowMs: ct, oldMs: co },
      atBudget: { work: costliest.work, options: costliest.options, ms: budgetMs },
      family,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Section 5: the real regexes, and a pattern at the budget and one step over it. */
function patterns(now: Planner, random: object, print: (line: string) => void): void {
  const plan = now.planPattern as NonNullable<Planner['planPattern']>;
  const draw = now.drawPattern as NonNullable<Planner['drawPattern']>;
  const least = (f: () => unknown) => {
    let t = Infinity;
    for (let round = 0; round < 5; round++) {
      const t0 = cpuMs();
      f();
      t = Math.min(t, cpuMs() - t0);
    }
    return t;
  };
  const served = (text: string, length?: number) => {
    const p = plan(text, length);
    if (p.error === undefined) draw(p, random, 20);
    return p;
  };
  const real = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/pattern/real-regexes.json'), 'utf8')) as {
    id: string;
    pattern: string;
  }[];
  const times = real.map((r) => [least(() => served(r.pattern)), r.id] as const).sort((a, b) => b[0] - a[0]);
  print(`5. patterns: the worst real regex ${times[0][1]}, ${times[0][0].toFixed(1)} ms to plan and draw 20`);
  const words = ['abc', 'bcd', 'cde', 'def', 'efg', 'fgh', 'ghi', 'hij'];
  const text = (k: number) =>
    `${words
      .map((w) => `(?!.*${w})`)
      .slice(0, k)
      .join('')}(?=.*\\d)[a-z0-9]+`;
  let best = { k: 0, length: 8, work: -1 };
  for (let k = 1; k <= words.length; k++)
    for (let length = 8; length <= 128; length += 8) {
      const work = plan(text(k), length).work ?? -1;
      if (work > best.work) best = { k, length, work };
    }
  const over = [best.k + 1, best.k + 2, words.length].find((k) => plan(text(k), best.length).error !== undefined);
  const atBudget = least(() => served(text(best.k), best.length));
  print(
    `   at the budget: ${text(best.k)} at ${best.length} (${best.work} work units): ${atBudget.toFixed(1)} ms to plan and draw 20`,
  );
  if (over !== undefined) {
    const refused = least(() => plan(text(over), best.length));
    print(`   over it: ${text(over)} at ${best.length}, refused in ${refused.toFixed(1)} ms`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runEngine(process.argv.includes('--quick'));
