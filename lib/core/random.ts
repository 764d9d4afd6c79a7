/**
 * Uniform random integers from a CSPRNG, without modulo bias.
 *
 * `below(n)` draws 32-bit words and rejects the top `2^32 mod n` values, so every residue
 * class keeps exactly floor(2^32 / n) preimages. Worked example, n = 62: 2^32 mod 62 = 4,
 * so words >= 4,294,967,292 (4 of 2^32, p = 9.3e-10) are redrawn and the rest map to
 * `word % 62` with equal weight. A plain `byte % 62` would favour the first 8 symbols by 5/4.
 *
 * `belowMany(n, count, out)`, the generators' hot path, does the same with the low 31 bits of
 * each word: v = word & 0x7fffffff is uniform over [0, 2^31), values at or above
 * floor(2^31 / n) * n are redrawn, and v % n keeps floor(2^31 / n) preimages per residue.
 * Why 31 bits: V8 compiles `uint32 % n` (a word above 2^31 is no int32) to an x87 `fprem`
 * loop, and `int31 % n` to one integer divide; the 31-bit loop makes 128-character passwords
 * 2.2x faster. The bit dropped costs nothing in acceptance where it matters: n = 62^4 accepts
 * 145 * 62^4 / 2^31 = 99.77 % of draws, n = 85^4 41 * 85^4 / 2^31 = 99.66 %, the same as with
 * 32 bits (290 and 82 multiples below 2^32); n = 7,772 rejects 2,328 of 2^31 values.
 *
 * Words come from `getRandomValues` in batches of 64 KiB, its largest request, because the
 * call dominates the cost of short credentials: Node 20 spends ~1.8 us per call whatever its
 * size and ~0.17 ns per byte (a 64 KiB fill takes ~11 us, so one call serves ~2,700 default
 * passwords). Each word is zeroed as it is consumed, so the buffer holds no used secret-bearing
 * value; see `generatePasswords` for what wiping does and does not achieve.
 * @module
 */

/** Fills the buffer with random 32-bit words. The default is the Web Crypto CSPRNG. */
export type FillRandom = (buffer: Uint32Array) => void;

export interface RandomSource {
  /** A uniform integer in [0, n), 1 <= n <= 2^32, from 32-bit words. */
  below(n: number): number;
  /**
   * `count` uniform integers in [0, n), 1 <= n <= 2^31, written to out[0 .. count), each from
   * the low 31 bits of the next word (redrawn at or above floor(2^31 / n) * n), in order.
   * `count` must not exceed `out.length`.
   */
  belowMany(n: number, count: number, out: Uint32Array): void;
  /**
   * `count` uniform draws x below m^2 (m^2 <= 2^31): the same words and the same draws as
   * belowMany(m * m, count, ...). Each x is split into its base-m digits x / m and x mod m and
   * stored as one 32-bit word at out[at + i]: the low 16 bits of table[x / m], then those of
   * table[x mod m], in memory order. Returns the OR of every table entry read, so a caller can
   * keep flags above bit 16. `table` must hold at least m entries. The password generator's hot
   * path (two characters per table entry, four per draw, one store), fused with the draws
   * because a second pass over them cost 12 % to 15 % of a batch.
   */
  pairsBelow(m: number, table: Uint32Array, count: number, out: Uint32Array, at: number): number;
}

/** The machine's byte order decides which half of a 32-bit word comes first in memory. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

const TWO_32 = 2 ** 32;
const TWO_31 = 2 ** 31;
const BATCH_WORDS = 16_384; // 64 KiB, getRandomValues' largest request

export const webCryptoFill: FillRandom = (buffer) => {
  globalThis.crypto.getRandomValues(buffer);
};

export function createRandom(fill: FillRandom = webCryptoFill, batchWords: number = BATCH_WORDS): RandomSource {
  if (!Number.isInteger(batchWords) || batchWords < 1 || batchWords > BATCH_WORDS) {
    throw new RangeError(`batchWords must be an integer between 1 and ${BATCH_WORDS}`);
  }
  return new BatchedRandom(fill, batchWords);
}

/** Where an entry's 16 bits go in a 32-bit word in pairsBelow, by byte order. */
/* c8 ignore next -- the test machines are little-endian */
const FIRST_SHIFT = LITTLE_ENDIAN ? 0 : 16;
const SECOND_SHIFT = 16 - FIRST_SHIFT;

/**
 * One batch of words and a cursor. Every method copies what its loop needs into locals (V8
 * otherwise reloads a field or closure variable, with its checks, on every use: 18 % of the
 * instructions of a 120-draw pairsBelow), and its inner loop makes no call, so the loop's state
 * stays in registers; the inner loop stops at the end of the batch or once every value could
 * have been drawn.
 */
class BatchedRandom implements RandomSource {
  readonly #fill: FillRandom;
  readonly #words: Uint32Array;
  readonly #size: number;
  #next: number;
  // The bound of the last n: generators ask for the same n call after call.
  #lastN = NaN; // equal to no n, so the first call (and any invalid n) goes through limit31
  #lastLimit = 0;

  constructor(fill: FillRandom, size: number) {
    this.#fill = fill;
    this.#words = new Uint32Array(size);
    this.#size = size;
    this.#next = size; // empty: the first draw fills
  }

  below(n: number): number {
    const limit = limit32(n);
    const words = this.#words;
    for (;;) {
      if (this.#next === this.#size) this.#refill();
      const k = this.#next++;
      const w = words[k];
      words[k] = 0;
      if (w < limit) return w % n;
    }
  }

  belowMany(n: number, count: number, out: Uint32Array): void {
    const limit = this.#limitOf(n);
    const words = this.#words;
    const size = this.#size;
    for (let i = 0; i < count;) {
      if (this.#next === size) this.#refill();
      let k = this.#next;
      let end = k + count - i;
      if (end > size) end = size;
      for (; k < end; k++) {
        const v = words[k] & 0x7fffffff;
        words[k] = 0;
        if (v < limit) out[i++] = v % n;
      }
      this.#next = k;
    }
  }

  pairsBelow(m: number, table: Uint32Array, count: number, out: Uint32Array, at: number): number {
    const n = m * m;
    const limit = this.#limitOf(n);
    if (!Number.isInteger(m) || m < 1 || table.length < m) {
      throw new RangeError(
        `pairsBelow: m must be a positive integer no larger than the table (${table.length} entries), got ${m}`,
      );
    }
    const words = this.#words;
    const size = this.#size;
    const firstShift = FIRST_SHIFT;
    const secondShift = SECOND_SHIFT;
    const base = at | 0;
    let flags = 0;
    for (let i = 0; i < count;) {
      if (this.#next === size) this.#refill();
      let k = this.#next;
      let end = k + count - i;
      if (end > size) end = size;
      for (; k < end; k++) {
        const v = words[k] & 0x7fffffff;
        words[k] = 0;
        if (v < limit) {
          const x = v % n;
          const high = (x / m) | 0;
          const first = table[high];
          const second = table[x - high * m];
          out[base + i++] = ((first & 0xffff) << firstShift) | ((second & 0xffff) << secondShift);
          flags |= first | second;
        }
      }
      this.#next = k;
    }
    return flags;
  }

  #limitOf(n: number): number {
    if (n !== this.#lastN) {
      this.#lastLimit = limit31(n);
      this.#lastN = n;
    }
    return this.#lastLimit;
  }

  #refill(): void {
    this.#fill(this.#words);
    this.#next = 0;
  }
}

/** The largest multiple of n that fits in 2^32: words at or above it are redrawn. */
function limit32(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > TWO_32) {
    throw new RangeError(`below(n): n must be an integer between 1 and 2^32, got ${n}`);
  }
  return TWO_32 - (TWO_32 % n);
}

/**
 * The largest multiple of n that fits in 2^31. The floating-point quotient is exact enough:
 * 2^31 / n is either an integer (exact) or at least 1/n below the next one, far more than its
 * rounding error (2^31 / n * 2^-53), so the floor is the integer quotient.
 */
function limit31(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > TWO_31) {
    throw new RangeError(`belowMany(n): n must be an integer between 1 and 2^31, got ${n}`);
  }
  return Math.floor(TWO_31 / n) * n;
}

/** The process-wide CSPRNG source used when no source is injected. */
export const defaultRandom: RandomSource = createRandom();
