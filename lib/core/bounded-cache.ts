/**
 * The memo behind the plan caches: plans are pure functions of their options, so a hit skips
 * the BigInt entropy work and every allocation. Bounded because `excludedCharacters` makes the
 * key space unbounded; when full it is simply cleared (plans are cheap to rebuild, and a
 * client cycling option sets gains nothing but rebuilds).
 * @module
 */
export class BoundedCache<K, V> {
  readonly #map = new Map<K, V>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The value for `key`, made by `make(arg)` on a miss (no closure per call on the hot path). */
  getOrMake<A>(key: K, arg: A, make: (arg: A) => V): V {
    let value = this.#map.get(key);
    if (value === undefined) {
      value = make(arg);
      if (this.#map.size >= this.#limit) this.#map.clear();
      this.#map.set(key, value);
    }
    return value;
  }

  /** The value for `key`, or undefined on a miss. */
  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  get size(): number {
    return this.#map.size;
  }
}
