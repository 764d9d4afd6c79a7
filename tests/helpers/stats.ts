/**
 * Chi-square p-values for the statistical tests. Upper regularised incomplete gamma Q(a, x)
 * by series / continued fraction (Numerical Recipes 6.2), accurate far beyond the 1e-6 level
 * the tests use.
 */
function logGamma(z: number): number {
  // Lanczos approximation, g = 7, n = 9.
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - logGamma(1 - z);
  z -= 1;
  let x = c[0];
  for (let i = 1; i < 9; i++) x += c[i] / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(x);
}

function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const lnPre = -x + a * Math.log(x) - logGamma(a);
  if (x < a + 1) {
    let sum = 1 / a;
    let term = sum;
    for (let n = 1; n < 100000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-15) break;
    }
    return 1 - sum * Math.exp(lnPre);
  }
  let b = x + 1 - a;
  let c = 1e300;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 100000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < 1e-300) d = 1e-300;
    c = b + an / c;
    if (Math.abs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return Math.exp(lnPre) * h;
}

/** P(X >= statistic) for X ~ chi-square with df degrees of freedom. */
export function chiSquarePValue(statistic: number, df: number): number {
  return gammaQ(df / 2, statistic / 2);
}

/**
 * Pearson's chi-square of observed counts against expected probabilities (which must sum to
 * 1). Bins with an expected count under 5 are pooled into one so the approximation holds.
 */
export function chiSquareTest(
  observed: readonly number[],
  probabilities: readonly number[],
): { statistic: number; df: number; p: number } {
  const total = observed.reduce((a, b) => a + b, 0);
  let statistic = 0;
  let bins = 0;
  let pooledObserved = 0;
  let pooledExpected = 0;
  for (let i = 0; i < observed.length; i++) {
    const expected = probabilities[i] * total;
    if (expected < 5) {
      pooledObserved += observed[i];
      pooledExpected += expected;
      continue;
    }
    statistic += (observed[i] - expected) ** 2 / expected;
    bins++;
  }
  // A count in a bin that cannot occur (expected 0) must weigh, not vanish.
  if (pooledExpected > 0 || pooledObserved > 0) {
    statistic += (pooledObserved - pooledExpected) ** 2 / Math.max(pooledExpected, 1e-12);
    bins++;
  }
  const df = bins - 1;
  return { statistic, df, p: chiSquarePValue(statistic, df) };
}
