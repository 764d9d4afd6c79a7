/**
 * The minimal unbiased reference the project is measured against: batched getRandomValues
 * and rejection sampling, nothing else (no validation, no each-class rule, no entropy, no
 * zeroing of used words). It is the floor a careful generator cannot go much below, so
 * "project / reference" says what the contract's extra work costs.
 * @module
 */

export type Fill = (buffer: Uint32Array) => void;

const TWO_32 = 2 ** 32;
const BATCH = 512;

export interface Reference {
  /** A uniform integer in [0, n), 1 <= n <= 2^32. */
  below(n: number): number;
  /** `length` characters drawn uniformly from `pool`. */
  password(pool: string, length: number): string;
  /** `count` words drawn uniformly from `words`, joined by `separator`. */
  passphrase(words: readonly string[], count: number, separator: string): string;
}

export function createReference(fill: Fill = (b) => void globalThis.crypto.getRandomValues(b)): Reference {
  const buffer = new Uint32Array(BATCH);
  let next = BATCH;

  function below(n: number): number {
    // Words >= limit would favour the low residues; they are redrawn.
    const limit = TWO_32 - (TWO_32 % n);
    for (;;) {
      if (next === BATCH) {
        fill(buffer);
        next = 0;
      }
      const w = buffer[next++]!;
      if (w < limit) return w % n;
    }
  }

  return {
    below,
    password(pool, length) {
      let out = '';
      for (let i = 0; i < length; i++) out += pool[below(pool.length)];
      return out;
    },
    passphrase(words, count, separator) {
      let out = words[below(words.length)]!;
      for (let i = 1; i < count; i++) out += separator + words[below(words.length)];
      return out;
    },
  };
}
