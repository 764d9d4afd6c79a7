/**
 * The server's plan memo: the one place plans live between requests (the core keeps none,
 * lib/request/plan-store.ts). Bounded in bytes, and not flushable by one client at the others'
 * expense (docs/security.md, Plans and CPU).
 *
 * A plan is a pure function of its key, so a hit skips the planning work (up to the work
 * budget of lib/core/rules/plan.ts) and the reply's JSON of its entropy and metadata
 * (response-json.ts). What a client sends decides the keys, so a plain LRU lets one client
 * evict everyone's plans by cycling through a few costly rules of its own (with the old limit
 * of 4 exact-sampler plans, five rules did it). Here a new plan may only take the room of
 * entries used less often than it was requested lately (frequency admission, as in TinyLFU):
 * - an entry counts its hits; a miss counts its key in a bounded table of recent misses;
 *   every `window` misses all counts are halved, so old popularity fades where new plans
 *   compete for room (a hit costs a Map lookup and an increment, nothing more);
 * - a plan made on a miss is kept outright while it fits in the free bytes; else entries used
 *   less often than it was requested, oldest first, are evicted to make room, and if they do
 *   not free enough it is served once and dropped, evicting nothing.
 * So a plan requested once never displaces anything (it needs a second request first), and a
 * client cycling rules displaces only entries used less often than each of its own, which its
 * rate limit bounds. Per-client quotas would be stricter but need each plan to carry its
 * clients, and the budget already bounds a miss: the worst a flush can do is cost a victim
 * one bounded plan.
 * @module
 */

/** Default bound on the entries' estimated bytes: thousands of the usual rule plans (a
 * rejection plan keeps no table: about 10 KB counted) and at least one of the largest exact
 * plans the work budget allows (counted at up to 14 MB by planBytes, which bounds their
 * measured heap from above; docs/password-rules.md, "The plan memo's bytes"). */
export const PLAN_MEMO_BYTES = 16 * 2 ** 20;
/** Default number of missed keys counted at once (a key is at most about 1 KB: 2 MB). */
export const PLAN_MEMO_COUNTED_KEYS = 2048;
/** Default misses between two halvings of every count. */
export const PLAN_MEMO_WINDOW = 16_384;

interface Entry {
  readonly value: object;
  readonly bytes: number;
  uses: number;
}

export class PlanMemo {
  /** In insertion order: the oldest first, the order evictions look in. */
  readonly #entries = new Map<string, Entry>();
  readonly #misses = new Map<string, number>();
  readonly #maxBytes: number;
  readonly #countedKeys: number;
  readonly #window: number;
  #bytes = 0;
  /** Misses since the last halving. */
  #sinceHalving = 0;

  constructor(maxBytes = PLAN_MEMO_BYTES, countedKeys = PLAN_MEMO_COUNTED_KEYS, window = PLAN_MEMO_WINDOW) {
    this.#maxBytes = maxBytes;
    this.#countedKeys = countedKeys;
    this.#window = window;
  }

  /** The value for `key`, or undefined; counts the request either way. A hit costs a Map
   * lookup and an increment, no more: it is every request's path. */
  get(key: string): object | undefined {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      entry.uses++;
      return entry.value;
    }
    if (++this.#sinceHalving >= this.#window) this.#age();
    const n = this.#misses.get(key);
    if (n !== undefined) this.#misses.set(key, n + 1);
    else {
      if (this.#misses.size >= this.#countedKeys) this.#age();
      // Still full after halving: every counted key missed at least twice lately, so a new key
      // is not counted (it can fill free room but displaces no entry) until they age.
      if (this.#misses.size < this.#countedKeys) this.#misses.set(key, 1);
    }
    return undefined;
  }

  /** Offers a value made after `get(key)` missed; true when it was kept. */
  offer(key: string, value: object, bytes: number): boolean {
    if (bytes > this.#maxBytes || this.#entries.has(key)) return false;
    const requested = this.#misses.get(key) ?? 0;
    let free = this.#maxBytes - this.#bytes;
    const victims: [string, number][] = [];
    for (const [k, entry] of this.#entries) {
      if (free >= bytes) break;
      if (entry.uses >= requested) continue;
      victims.push([k, entry.bytes]);
      free += entry.bytes;
    }
    if (free < bytes) return false;
    for (const [k, b] of victims) {
      this.#bytes -= b;
      this.#entries.delete(k);
    }
    this.#misses.delete(key);
    this.#entries.set(key, { value, bytes, uses: requested });
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

  /** How often `key` was asked for lately: its entry's uses, or its counted misses. */
  frequency(key: string): number {
    return this.#entries.get(key)?.uses ?? this.#misses.get(key) ?? 0;
  }

  /** Halves every count, forgetting missed keys that reach 0. */
  #age(): void {
    this.#sinceHalving = 0;
    for (const entry of this.#entries.values()) entry.uses >>= 1;
    for (const [k, n] of this.#misses) {
      if (n > 1) this.#misses.set(k, n >> 1);
      else this.#misses.delete(k);
    }
  }
}
