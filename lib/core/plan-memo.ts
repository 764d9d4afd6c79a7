/**
 * The memo of rule plans: bounded in bytes, and not flushable by one client at the others'
 * expense (security finding T4).
 *
 * A plan is a pure function of its key, so a hit skips the planning work (up to the work
 * budget, rules/plan.ts) and its tables. What a client sends decides the keys, so a plain LRU
 * lets one client evict everyone's plans by cycling through a few costly rules of its own
 * (with the old limit of 4, five rules did it). Here a new plan may only take the room of
 * entries that were requested less often than it recently (frequency admission, as in
 * TinyLFU):
 * - every lookup counts its key in a bounded table of recent request counts, halved every
 *   `window` lookups so that old popularity fades;
 * - a plan made on a miss is kept outright while it fits in the free bytes; else the least
 *   recently used entries are its victims, and it is kept only if each victim was requested
 *   less often than it, else it is served once and dropped.
 * So a plan requested once never displaces anything (it needs a second request first), and a
 * client rotating rules displaces only entries less requested than each of its own, which
 * its rate limit bounds. Per-client quotas would be stricter but need the client's identity
 * here, which the core does not have; and since the budget bounds a miss, the worst a flush
 * can do is cost a victim one bounded plan.
 * @module
 */
export class PlanMemo<V> {
  readonly #entries = new Map<string, { readonly value: V; readonly bytes: number }>();
  readonly #seen = new Map<string, number>();
  readonly #maxBytes: number;
  readonly #seenLimit: number;
  readonly #window: number;
  #bytes = 0;
  #lookups = 0;

  /** `maxBytes`: the entries' estimated size bound; `seenLimit`: the most keys counted at once
   * (each at most a key's size, about 1 KB); `window`: lookups between two halvings. */
  constructor(maxBytes: number, seenLimit: number, window: number) {
    this.#maxBytes = maxBytes;
    this.#seenLimit = seenLimit;
    this.#window = window;
  }

  /** The value for `key`, or undefined; counts the request either way. */
  get(key: string): V | undefined {
    this.#count(key);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    // Most recently used last: the Map's order is the eviction order.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Offers a value made after `get(key)` missed; true when it was kept. */
  offer(key: string, value: V, bytes: number): boolean {
    if (bytes > this.#maxBytes || this.#entries.has(key)) return false;
    const frequency = this.#seen.get(key) ?? 0;
    let free = this.#maxBytes - this.#bytes;
    const victims: [string, number][] = [];
    for (const [k, entry] of this.#entries) {
      if (free >= bytes) break;
      if ((this.#seen.get(k) ?? 0) >= frequency) return false;
      victims.push([k, entry.bytes]);
      free += entry.bytes;
    }
    for (const [k, b] of victims) {
      this.#bytes -= b;
      this.#entries.delete(k);
    }
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    return true;
  }

  /** The entries' estimated bytes (at most maxBytes). */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Requests of `key` counted and not yet aged away. */
  frequency(key: string): number {
    return this.#seen.get(key) ?? 0;
  }

  #count(key: string): void {
    if (++this.#lookups >= this.#window) this.#age();
    const n = this.#seen.get(key);
    if (n !== undefined) {
      this.#seen.set(key, n + 1);
      return;
    }
    if (this.#seen.size >= this.#seenLimit) this.#age();
    // Still full after halving: every counted key was requested at least twice lately, so a
    // new key is not counted (it can fill free room but displaces no entry) until they age.
    if (this.#seen.size < this.#seenLimit) this.#seen.set(key, 1);
  }

  /** Halves every count, dropping those that reach 0. */
  #age(): void {
    this.#lookups = 0;
    for (const [k, n] of this.#seen) {
      if (n > 1) this.#seen.set(k, n >> 1);
      else this.#seen.delete(k);
    }
  }
}
