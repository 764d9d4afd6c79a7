/**
 * Where a caller keeps plans between requests. Neither this layer nor the core keeps any (no
 * mutable state): the server passes its memo (lib/http/plan-memo.ts) in `GenerateSettings.plans`,
 * bounded in bytes and not flushable by one client; without one every request plans afresh,
 * which is correct and only slower. A plan is a pure function of its key, so a stored one is the
 * plan planning would give (tests/core/password.test.ts, "plan caches follow the schema").
 * @module
 */
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
