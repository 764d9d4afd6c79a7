/**
 * The one plan path over the engine, and its two samplers. Every password constraint compiles to
 * an EngineSpec (password.ts, rules/plan.ts); `planSpec` prices it, counts it, chooses a sampler
 * and keeps what drawing needs. Both samplers are uniform over V, the strings of the spec's length
 * that the check accepts (check.ts, `isValid`), the set whose size the engine counts.
 *
 * Rejection. Each attempt draws every character independently and uniformly from the allowed
 * codes A (one `random.below(|A|)` each), so each of the |A|^L strings has the same chance
 * |A|^-L per attempt; the attempt is kept when valid. Every string of V then has the same chance
 * per attempt and the attempts are independent, so the kept string is uniform over V. An attempt
 * is kept with probability p = |V| / |A|^L; rejection is used while p >= 1/32
 * (REJECTION_ACCEPTANCE), so a value costs at most 32 x L draws on average and more than 700
 * attempts happen with probability (31/32)^700 < 2e-10.
 *
 * Exact. One integer uniform below |V| (uniformBigIntBelow, itself rejection on whole bit
 * strings), mapped to a string by `unrank`, a bijection from [0, |V|) onto V (engine.ts, (E18)):
 * each string of V is the image of exactly one integer, so it comes with chance 1/|V|. Its cost
 * does not depend on p, so it serves where rejection would keep too few attempts.
 * @module
 */
import { checkOf, isValid, type Check } from './check.ts';
import { compile, count, type EngineSpec } from './engine.ts';
import { tablesOf, unrank, type Counted } from './unrank.ts';
import { log2BigInt } from './entropy.ts';
import type { RandomSource } from './random.ts';
import { uniformBigIntBelow } from './random.ts';
import { requestSchema } from '../generated/schema.generated.ts';

/** Rejection while an attempt is kept at least this often; the exact sampler beyond. */
export const REJECTION_ACCEPTANCE = 1 / 32;

/**
 * What a plan may cost, in the engine's work units (engine.ts, Work): the count, and for the exact
 * sampler its tables and the draws of the largest request. A spec over it is refused before any
 * BigInt operation, with the reason, so that no request stalls the event loop and the answer does
 * not depend on the machine's load. What a plan at the budget costs in time: docs/engine.md, The
 * work budget.
 */
export const PLAN_WORK_BUDGET = 700_000;

/** The most values one request draws from a plan: the request schema's `count` maximum. */
const MOST_DRAWS: number = requestSchema.properties.count.maximum;

export type Sampler = 'rejection' | 'exact';

/** A spec planned: its exact count and what its sampler needs. */
export interface SpecPlan {
  readonly spec: EngineSpec;
  /** The allowed codes in the order rejection draws from them (the spec's, ascending, unless the
   * compiler gave its own: mode password draws from its pool, class by class). */
  readonly alphabet: readonly number[];
  /** The exact number of valid strings, all equally likely. */
  readonly count: bigint;
  /** log2(count), unrounded. */
  readonly bits: number;
  /** count / |A|^L: the chance that one rejection attempt is kept. */
  readonly acceptance: number;
  readonly sampler: Sampler;
  /** Work units of the plan and its largest request's draws: at most the budget it was planned under. */
  readonly work: number;
  /** The definition as a check (what rejection keeps). */
  readonly check: Check;
  /** The engine's tables, for the exact sampler only. */
  readonly counted: Counted | null;
}

/** Why a spec has no plan: over the budget (with its work, Infinity when the count alone is over),
 * or no string at all. */
export type PlanRefusal = { readonly kind: 'budget'; readonly work: number } | { readonly kind: 'empty' };

export function isSpecPlan(p: SpecPlan | PlanRefusal): p is SpecPlan {
  return 'count' in p;
}

/**
 * The plan of a spec, or why there is none. `sampler` forces one (tests: both are uniform over the
 * same strings, only their cost differs).
 */
export function planSpec(
  spec: EngineSpec,
  sampler?: Sampler,
  budget: number = PLAN_WORK_BUDGET,
  alphabet: readonly number[] = spec.codes,
): SpecPlan | PlanRefusal {
  const compiled = compile(spec, budget);
  const { work } = compiled;
  if (work.count > budget) return { kind: 'budget', work: work.count };
  const n = count(compiled);
  if (n === 0n) return { kind: 'empty' };
  const bits = log2BigInt(n);
  const acceptance = 2 ** (bits - spec.length * Math.log2(spec.codes.length));
  const chosen = sampler ?? (acceptance >= REJECTION_ACCEPTANCE ? 'rejection' : 'exact');
  const exactWork = work.tables + MOST_DRAWS * work.draw;
  if (chosen === 'exact' && exactWork > budget) return { kind: 'budget', work: exactWork };
  return Object.freeze({
    spec,
    alphabet,
    count: n,
    bits,
    acceptance,
    sampler: chosen,
    work: chosen === 'exact' ? exactWork : work.count,
    check: checkOf(spec),
    counted: chosen === 'exact' ? tablesOf(compiled) : null,
  });
}

/**
 * `count` values from the plan, each uniform over its strings. The strings returned stay in the
 * heap until the garbage collector reclaims them, which no code can force (docs/security.md, What
 * stays in memory); the working codes are overwritten.
 */
export function drawValues(plan: SpecPlan, random: RandomSource, count: number): string[] {
  const { counted } = plan;
  if (counted === null) return drawByRejection(plan.alphabet, plan.check, random, count);
  return Array.from({ length: count }, () => finish(unrank(counted, uniformBigIntBelow(counted.count, random))));
}

/** `count` strings by rejection (one working array for the batch, overwritten at the end). */
function drawByRejection(codes: readonly number[], check: Check, random: RandomSource, count: number): string[] {
  const chars = new Array<number>(check.length).fill(0);
  const values = new Array<string>(count);
  for (let k = 0; k < count;) {
    for (let i = 0; i < chars.length; i++) chars[i] = codes[random.below(codes.length)];
    if (isValid(check, chars)) values[k++] = String.fromCharCode(...chars);
  }
  chars.fill(0);
  return values;
}

/** The string, with the working codes overwritten. */
function finish(chars: number[]): string {
  const value = String.fromCharCode(...chars);
  chars.fill(0);
  return value;
}
