/**
 * Mode password with `options.pattern`: the request path around lib/core/pattern/ (docs/pattern.md).
 * It adds what a request needs: the response's entropy and metadata, and the key under which a
 * caller's plan store keeps the plan, so a pattern used again costs a lookup instead of a plan.
 * @module
 */
import { planBytes, remember, type PlanStore } from './plan-store.ts';
import { drawPattern, isPatternPlan, planPattern, type PatternPlan } from '../core/pattern/index.ts';
import { strength, type Entropy, type ErrorBody, type RandomSource } from '../core/index.ts';
import type { PatternRequest } from './validate.ts';

export interface PatternMetadata {
  readonly entropyMode: 'uniform-pattern';
  /** How many characters some match of any length uses. */
  readonly allowedSize: number;
  readonly length: number;
}

/** A pattern's plan with the response's entropy and metadata. */
export interface PatternRequestPlan {
  readonly pattern: PatternPlan;
  readonly bits: number;
  readonly entropy: Entropy;
  readonly metadata: PatternMetadata;
}

/**
 * The plan store's key: the text exactly as sent and the length asked (none: the pattern's own).
 * A plan costs at most the work budget to make; its bytes are bounded from its parts: the
 * engine's plan as planBytes bounds it, or the automaton's transitions (4 bytes each), its
 * graph's edges (about 120 bytes and 8 a symbol each) and, for the exact walk, its rows (a
 * BigInt of at most the count's bits a state and place). A refusal is kept too, small.
 */
const keyOf = ({ text, length }: PatternRequest) => `pattern ${String(length ?? '')}|${text}`;

function bytesOf(plan: PatternRequestPlan | ErrorBody, key: string): number {
  if (!('pattern' in plan)) return planBytes(plan, key);
  const { engine, walk, length, bits } = plan.pattern;
  if (engine !== null) return planBytes(engine, key) + 1024;
  if (walk === null) return planBytes({}, key);
  const edges = walk.graph.edges.flat();
  const symbols = edges.reduce((n, e) => n + e.syms.length, 0);
  const rows = walk.rows === undefined ? 0 : (length + 1) * walk.graph.edges.length * (32 + Math.ceil(bits / 8));
  return planBytes({}, key) + 4 * walk.dfa.delta.length + 120 * edges.length + 8 * symbols + rows;
}

function makePlan(request: PatternRequest): PatternRequestPlan | ErrorBody {
  const pattern = planPattern(request.text, request.length);
  if (!isPatternPlan(pattern)) return pattern;
  const allowedSize = pattern.engine?.spec.codes.length ?? pattern.walk?.pool.length ?? 0;
  return Object.freeze({
    pattern,
    bits: pattern.bits,
    entropy: strength(pattern.bits),
    metadata: Object.freeze({ entropyMode: 'uniform-pattern', allowedSize, length: pattern.length }),
  });
}

/** The plan for a `pattern` request, or the 400 body that says why there is none (field
 * `options.pattern`). Plans are kept in `store` when there is one. */
export function planPatternRequest(request: PatternRequest, store?: PlanStore): PatternRequestPlan | ErrorBody {
  const key = keyOf(request);
  return remember(store, key, request, makePlan, (plan) => bytesOf(plan, key));
}

/** `count` passwords, each uniform over the pattern's matches of the plan's length. */
export function generatePatternPasswords(plan: PatternRequestPlan, random: RandomSource, count: number): string[] {
  return drawPattern(plan.pattern, random, count);
}
