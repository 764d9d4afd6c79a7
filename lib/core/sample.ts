/**
 * The one plan path over the engine (`planSpec`: price, count, choose a sampler) and its two
 * samplers, both uniform over V, the strings the check accepts (check.ts), whose size the engine
 * counts. Rejection keeps an attempt of |A|^L equally likely strings when valid; exact unranks a
 * rank uniform below |V| (E18), a bijection. The proofs and the threshold: docs/engine.md, The
 * two samplers.
 * @module
 */
import { checkOf, isValid, type Check } from './check.ts';
import { compile, count, type EngineSpec } from './engine.ts';
import { tablesOf, unrank, type Counted } from './unrank.ts';
import { log2BigInt } from './entropy.ts';
import { uniformBigIntBelow, type RandomSource } from './random.ts';
import { requestSchema } from '../generated/schema.generated.ts';

/** Rejection while an attempt is kept at least this often; the exact sampler beyond. */
export const REJECTION_ACCEPTANCE = 1 / 32;

/** What a plan may cost in work units (the count; for the exact sampler also its tables and the
 * largest request's draws), refused before any BigInt operation: docs/engine.md, Cost. */
export const PLAN_WORK_BUDGET = 700_000;

/** The most values one request draws from a plan: the request schema's `count` maximum. */
const MOST_DRAWS: number = requestSchema.properties.count.maximum;

export type Sampler = 'rejection' | 'exact';

/** A spec planned: its exact count and what its sampler needs. */
export interface SpecPlan {
  readonly spec: EngineSpec;
  /** The codes rejection draws from, in order (the spec's unless the compiler gave its pool). */
  readonly alphabet: readonly number[];
  /** The exact number of valid strings, all equally likely. */
  readonly count: bigint;
  /** log2(count), unrounded. */
  readonly bits: number;
  /** count / |A|^L: the chance that one rejection attempt is kept. */
  readonly acceptance: number;
  readonly sampler: Sampler;
  /** Work units of the plan and its largest request's draws: within the budget. */
  readonly work: number;
  /** The definition as a check (what rejection keeps). */
  readonly check: Check;
  /** The engine's tables, for the exact sampler only. */
  readonly counted: Counted | null;
}

/** Why a spec has no plan: over the budget (its work; Infinity: the count alone), or no string. */
export type PlanRefusal = { readonly kind: 'budget'; readonly work: number } | { readonly kind: 'empty' };

export function isSpecPlan(p: SpecPlan | PlanRefusal): p is SpecPlan {
  return 'count' in p;
}

/** The plan of a spec, or why there is none; `sampler` forces one (tests). */
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

/** `count` values from the plan, each uniform over its strings; the working codes are overwritten
 * (what stays in memory: docs/security.md). */
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
export function finish(chars: number[]): string {
  const value = String.fromCharCode(...chars);
  chars.fill(0);
  return value;
}
