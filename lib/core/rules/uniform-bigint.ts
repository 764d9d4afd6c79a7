/**
 * A uniform BigInt in [0, n) from `RandomSource.below`, for totals far past 2^53 (a
 * 128-character password over 95 symbols has counts near 2^841).
 * @module
 */
import type { RandomSource } from '../random.ts';

const TWO_32 = 2 ** 32;

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
