/**
 * An independent count for the tests: strings of `length` over disjoint classes of the given
 * sizes that hold at least one character of every class, by inclusion-exclusion,
 *   |V| = sum over subsets S of the classes of (-1)^|S| (N - sum of |c| for c in S)^L,
 * a formula that shares nothing with the engine's tables (lib/core/engine.ts).
 */
export function countEachClassStrings(classSizes: readonly number[], length: number): bigint {
  const total = classSizes.reduce((a, b) => a + b, 0);
  let sum = 0n;
  for (let subset = 0; subset < 1 << classSizes.length; subset++) {
    let removed = 0;
    let parity = 0;
    classSizes.forEach((size, i) => {
      if ((subset >> i) & 1) {
        removed += size;
        parity ^= 1;
      }
    });
    const term = BigInt(total - removed) ** BigInt(length);
    sum += parity ? -term : term;
  }
  return sum;
}
