/**
 * Where a caller keeps plans between requests. Neither this layer nor the core keeps any (no
 * mutable state): the server passes its memo (lib/http/plan-memo.ts) in `GenerateSettings.plans`,
 * bounded in bytes and not flushable by one client; without one every request plans afresh,
 * which is correct and only slower. A plan is a pure function of its key, so a stored one is the
 * plan planning would give (tests/core/password.test.ts, "plan caches follow the schema").
 * @module
 */
import type { SpecPlan } from '../core/index.ts';

export interface PlanStore {
  /** What was stored under `key`, or undefined. Each call may count as a request for it. */
  get(key: string): object | undefined;
  /** Offers what was just made for `key` after a miss, with an upper bound on its bytes; the
   * store may keep it or not. */
  offer(key: string, value: object, bytes: number): void;
}

/** The value under `key` in the store, or `make(arg)` offered to it (and returned either way).
 * The caller's key prefix says which kind of value a key holds, so the cast is sound. */
export function remember<A, V extends object>(
  store: PlanStore | undefined,
  key: string,
  arg: A,
  make: (arg: A) => V,
  bytes: (value: V) => number,
): V {
  if (store === undefined) return make(arg);
  const known = store.get(key);
  if (known !== undefined) return known as V;
  const made = make(arg);
  store.offer(key, made, bytes(made));
  return made;
}

/**
 * An upper bound on a plan's heap, which the memo counts it as: the key and a fixed allowance (all
 * a refusal keeps); the spec, check and metadata (8,192 bytes and 48 a code of the allowed and
 * counted sets, above what was measured in the same place); and for the exact sampler the engine's
 * tables (engine.ts, Work: an array slot per entry and a BigInt for every two, as a piece's mirror
 * places share one, of at most the count's bits and on average half of them, and each row's array)
 * and their index (two Int32Array entries a cell, about 600 bytes a subset, and 200 a code for the
 * compiled spec's maps and sets). Checked against the heap kept by tests/core/rules/budget.test.ts.
 */
export function planBytes(plan: SpecPlan | object, key: string): number {
  const fixed = 2048 + 2 * key.length;
  if (!('count' in plan)) return fixed;
  const { spec, counted } = plan;
  const rest = fixed + 8192 + 48 * spec.sets.reduce((sum, set) => sum + set.codes.length, spec.codes.length);
  if (counted === null) return rest;
  const { rows, entries, cells } = counted.compiled.work;
  const subsets = counted.cells.length;
  const words = Math.ceil((plan.bits + 8) / 64);
  const tables = 80 * rows + entries * 8 + (entries / 2) * (24 + 8 * Math.ceil(words / 2));
  return Math.ceil(rest + tables + 8 * cells + 600 * subsets + 200 * spec.codes.length);
}
