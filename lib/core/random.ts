/**
 * Uniform random integers from a CSPRNG, without modulo bias.
 *
 * `below(n)` takes the next 32-bit word and keeps its low k bits, where 2^k is the smallest
 * power of two that is at least n (k = bit length of n - 1). Every value v in [0, 2^k) is
 * then equally likely (each is the low bits of exactly 2^(32 - k) words). A v of n or more is
 * thrown away and the next word taken, so each accepted v in [0, n) has the same chance: the
 * draw is uniform over [0, n). No modulo is taken, so there is no modulo bias to argue away.
 * As 2^k < 2n, a word is kept with probability n / 2^k > 1/2: fewer than 2 words per draw on
 * average, and more than 40 with probability below 2^-40. Worked figures: n = 62 keeps 62 of
 * 64 (96.9 %), n = 85 keeps 85 of 128 (66.4 %), n = 7,772 keeps 7,772 of 8,192 (94.9 %).
 * (`byte % 62` would be biased: the first 8 symbols would come 5/4 as often as the others.)
 *
 * Words come from `getRandomValues` in batches of 64 KiB, its largest request: a call costs
 * about the same whatever its size, and a call per credential costs far more than the 3 % rule
 * allows (docs/benchmark.md, The core and the 3 % rule: the batch). Each word is zeroed as it
 * is taken, so the buffer holds no value that went into a credential.
 * @module
 */

/** Fills the buffer with random 32-bit words. The default is the Web Crypto CSPRNG. */
export type FillRandom = (buffer: Uint32Array) => void;

export interface RandomSource {
  /** A uniform integer in [0, n), for an integer n from 1 to 2^32. */
  below(n: number): number;
}

const TWO_32 = 2 ** 32;
const BATCH_WORDS = 16_384; // 64 KiB, getRandomValues' largest request

const webCryptoFill: FillRandom = (buffer) => {
  globalThis.crypto.getRandomValues(buffer);
};

/** A source reading `fill`'s words in batches of `batchWords` (tests pass small batches). */
export function createRandom(fill: FillRandom = webCryptoFill, batchWords: number = BATCH_WORDS): RandomSource {
  if (!Number.isInteger(batchWords) || batchWords < 1 || batchWords > BATCH_WORDS)
    throw new RangeError(`batchWords must be an integer between 1 and ${BATCH_WORDS}`);
  return new BatchedRandom(fill, new Uint32Array(batchWords));
}

/** One batch of words and a cursor. */
class BatchedRandom implements RandomSource {
  private readonly fill: FillRandom;
  private readonly words: Uint32Array;
  private next: number;

  constructor(fill: FillRandom, words: Uint32Array) {
    this.fill = fill;
    this.words = words;
    this.next = words.length; // empty: the first draw fills
  }

  below(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > TWO_32)
      throw new RangeError(`below(n): n must be an integer between 1 and 2^32, got ${n}`);
    // The low k bits: k ones, k = bit length of n - 1 (none for n = 1, all 32 for n = 2^32).
    const mask = n === 1 ? 0 : -1 >>> Math.clz32(n - 1);
    for (;;) {
      const v = (this.word() & mask) >>> 0;
      if (v < n) return v;
    }
  }

  /** The next word of the batch, zeroed in the buffer as it is taken; a new batch when used up. */
  private word(): number {
    if (this.next === this.words.length) {
      this.fill(this.words);
      this.next = 0;
    }
    const word = this.words[this.next];
    this.words[this.next++] = 0;
    return word;
  }
}

/** The process-wide CSPRNG source used when no source is injected. */
export const defaultRandom: RandomSource = createRandom();

/**
 * Rejection on whole bit strings. Let b be the bit length of n - 1 and w = ceil(b / 32). A
 * candidate is one draw below 2^(b - 32(w - 1)) (the top word) followed by w - 1 draws below
 * 2^32, so it is uniform over the 2^b integers of [0, 2^b). It is kept when below n, and every
 * kept value had the same chance, so the result is uniform over [0, n). As 2^(b-1) <= n - 1,
 * n > 2^(b-1) and a candidate is kept with probability n / 2^b > 1/2: fewer than 2 rounds on
 * average, and more than 40 rounds with probability below 2^-40.
 * Up to 2^32, one `below(n)` does it (it is itself unbiased).
 */
export function uniformBigIntBelow(n: bigint, random: RandomSource): bigint {
  if (n < 1n) throw new RangeError('uniformBigIntBelow: n must be at least 1');
  if (n <= BigInt(TWO_32)) return BigInt(random.below(Number(n)));
  const bits = (n - 1n).toString(2).length;
  const words = Math.ceil(bits / 32);
  const topRange = 2 ** (bits - 32 * (words - 1));
  for (;;) {
    let x = BigInt(random.below(topRange));
    for (let i = 1; i < words; i++) x = (x << 32n) | BigInt(random.below(TWO_32));
    if (x < n) return x;
  }
}
