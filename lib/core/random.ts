/**
 * Uniform random integers from a CSPRNG, without modulo bias.
 *
 * `below(n)` draws 32-bit words and rejects the top `2^32 mod n` values, so every residue
 * class keeps exactly floor(2^32 / n) preimages. Worked example, n = 62: 2^32 mod 62 = 4,
 * so words >= 4,294,967,292 (4 of 2^32, p = 9.3e-10) are redrawn and the rest map to
 * `word % 62` with equal weight. A plain `byte % 62` would favour the first 8 symbols by 5/4.
 *
 * Words come from `crypto.getRandomValues` in batches (one call per 4,096 words) because the
 * call dominates the cost of short passwords: Node 20 spends ~2-5 us per call whatever its
 * size and well under 1 ns per word (bench/: 512-word batches cost ~10 % of a 24-character
 * password, 4,096-word batches ~1 %). Consumed words are zeroed so the buffer never
 * holds an already-used secret-bearing value longer than one batch.
 * @module
 */

/** Fills the buffer with random 32-bit words. The default is the Web Crypto CSPRNG. */
export type FillRandom = (buffer: Uint32Array) => void;

export interface RandomSource {
  /** A uniform integer in [0, n), 1 <= n <= 2^32. */
  below(n: number): number;
  /**
   * `count` uniform integers in [0, n) written to out[0 .. count): exactly the words and the
   * results of `count` calls to below(n), in the same order, without a call per draw (the
   * generators' hot path). `count` must not exceed `out.length`.
   */
  belowMany(n: number, count: number, out: Uint32Array): void;
}

const TWO_32 = 2 ** 32;
const BATCH_WORDS = 4096; // 16 KiB, a quarter of getRandomValues' 64 KiB cap

export const webCryptoFill: FillRandom = (buffer) => {
  globalThis.crypto.getRandomValues(buffer);
};

export function createRandom(fill: FillRandom = webCryptoFill, batchWords: number = BATCH_WORDS): RandomSource {
  if (!Number.isInteger(batchWords) || batchWords < 1 || batchWords > 16384) {
    throw new RangeError('batchWords must be an integer between 1 and 16384');
  }
  const buffer = new Uint32Array(batchWords);
  let next = batchWords; // empty: the first draw fills
  // The limit of the last n: generators ask for the same n over and over, and 2^32 mod n is a
  // floating-point remainder, the dearest step of a draw.
  let lastN = NaN; // never equal to any n, so the first call (and any invalid n) goes through limitOf
  let lastLimit = 0;

  function word(): number {
    if (next === batchWords) {
      fill(buffer);
      next = 0;
    }
    const w = buffer[next];
    buffer[next++] = 0;
    return w;
  }

  return {
    below(n: number): number {
      const limit = limitOf(n);
      for (;;) {
        const w = word();
        if (w < limit) return w % n;
      }
    },
    belowMany(n: number, count: number, out: Uint32Array): void {
      if (n !== lastN) {
        lastLimit = limitOf(n);
        lastN = n;
      }
      const limit = lastLimit;
      // word() inlined: one bounds check per word instead of a call.
      for (let i = 0; i < count; ) {
        if (next === batchWords) {
          fill(buffer);
          next = 0;
        }
        const w = buffer[next];
        buffer[next++] = 0;
        if (w < limit) out[i++] = w % n;
      }
    },
  };
}

/** The largest multiple of n that fits in 2^32: words at or above it are redrawn. */
function limitOf(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > TWO_32) {
    throw new RangeError(`below(n): n must be an integer between 1 and 2^32, got ${n}`);
  }
  return TWO_32 - (TWO_32 % n);
}

/** The process-wide CSPRNG source used when no source is injected. */
export const defaultRandom: RandomSource = createRandom();
