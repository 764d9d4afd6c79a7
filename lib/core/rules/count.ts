/**
 * Exact counts of the passwords a normalised rule allows, in BigInt.
 *
 * Notation: A is the allowed set, R_1..R_k the required sets, L the length, m the longest run
 * of one repeated character allowed (L when the rule sets no max-consecutive: a run can never
 * be longer than the password). Every allowed character has a signature, the set of i with
 * the character in R_i; characters with the same signature form an atom, and everything below
 * depends on a character only through its atom.
 *
 * Counting (inclusion-exclusion over the required sets a password misses):
 *   |V| = sum over S of (-1)^|S| f(n_S, L),  n_S = |A minus the union of R_i, i in S|,
 * where f(n, L) is the number of length-L strings over n symbols with no run longer than m:
 * "misses every R_i of S" only shrinks the alphabet, and the run limit is blind to which
 * symbols are used. With e(n, s) = strings of length s over n symbols that start with a given
 * symbol and have no run longer than m (so f(n, s) = n e(n, s) for s >= 1),
 *   e(n, s) = [s <= m] + (n - 1) * sum over l = 1..min(m, s - 1) of e(n, s - l)
 * (the first run has length l: either it is the whole string, or a different symbol starts the
 * rest), computed with running sums in O(L) BigInt additions per n. Without a run limit this
 * is n^(s-1), so one formula serves both cases.
 *
 * Only the values of n_S matter, never S itself: there are at most 96 of them (0..95), so the
 * 2^k subsets collapse to at most 96 signed coefficients.
 *
 * With a max-sequential limit the count of an alphabet depends on which characters it holds,
 * not only on how many: countWithSequences does the same inclusion-exclusion by alphabet shape.
 * @module
 */

import { sequenceShape, type SequenceCounter, type SequenceShape } from './sequences.ts';

/** The most required sets (after normalisation) a rule may have: 2^8 = 256 subsets keep the
 * counting and the exact sampler's tables small, and the corpus of 434 real rules needs 5.
 * It also guarantees that the required sets fit in any length the service allows (>= 8): one
 * character of each set is always possible. */
export const MAX_REQUIRED_SETS = 8;

/** Allowed characters grouped by signature (bit i set when the character is in R_i). */
export interface Atom {
  readonly signature: number;
  /** UTF-16 codes of the atom's characters, in code order. */
  readonly codes: readonly number[];
}

/** signatures[j]: bit i set when allowed[j] is in required[i]. */
export function signaturesOf(allowed: string, required: readonly string[]): Uint8Array {
  if (required.length > MAX_REQUIRED_SETS)
    throw new RangeError(`signaturesOf: at most ${MAX_REQUIRED_SETS} required sets`);
  const byCode = new Uint8Array(128);
  for (let i = 0; i < required.length; i++)
    for (let j = 0; j < required[i].length; j++) byCode[required[i].charCodeAt(j) & 127] |= 1 << i;
  return Uint8Array.from(allowed, (c) => byCode[c.charCodeAt(0) & 127]);
}

export function atomsOf(allowed: string, required: readonly string[]): Atom[] {
  const signatures = signaturesOf(allowed, required);
  const bySignature = new Map<number, number[]>();
  for (let j = 0; j < allowed.length; j++) {
    const codes = bySignature.get(signatures[j]);
    if (codes === undefined) bySignature.set(signatures[j], [allowed.charCodeAt(j)]);
    else codes.push(allowed.charCodeAt(j));
  }
  return [...bySignature].map(([signature, codes]) => ({ signature, codes })).sort((a, b) => a.signature - b.signature);
}

/** n_S for every subset S of the k required sets (index = bit mask of S). */
export function outsideCounts(atoms: readonly Atom[], k: number): Int32Array {
  const n = new Int32Array(1 << k);
  for (let s = 0; s < 1 << k; s++) for (const a of atoms) if ((a.signature & s) === 0) n[s] += a.codes.length;
  return n;
}

/** e(n, s) for s = 0..length (e(n, 0) = 0 is a placeholder), runs of at most maxRun. */
export function runLimitedStarts(n: number, maxRun: number, length: number): bigint[] {
  const e: bigint[] = [0n];
  const prefix: bigint[] = [0n]; // prefix[s] = e(n, 1) + ... + e(n, s)
  const others = BigInt(n - 1);
  for (let s = 1; s <= length; s++) {
    const window = Math.min(maxRun, s - 1);
    const value = (s <= maxRun ? 1n : 0n) + others * (prefix[s - 1] - prefix[s - 1 - window]);
    e.push(value);
    prefix.push(prefix[s - 1] + value);
  }
  return e;
}

/** f(n, length): strings of `length` over n symbols with no run longer than maxRun. */
export function runLimitedCount(n: number, maxRun: number, length: number): bigint {
  if (length === 0) return 1n;
  if (maxRun >= length) return BigInt(n) ** BigInt(length); // no run limit: one power, not L steps
  return BigInt(n) * runLimitedStarts(n, maxRun, length)[length];
}

/**
 * The exact number of passwords of `length` over the atoms' characters that hold a character
 * of each of the k required sets and have no run longer than maxRun.
 */
export function countRulePasswords(atoms: readonly Atom[], k: number, maxRun: number, length: number): bigint {
  const outside = outsideCounts(atoms, k);
  const coefficient = new Map<number, bigint>();
  for (let s = 0; s < 1 << k; s++) {
    const sign = popcount(s) & 1 ? -1n : 1n;
    coefficient.set(outside[s], (coefficient.get(outside[s]) ?? 0n) + sign);
  }
  let total = 0n;
  for (const [n, c] of coefficient) if (c !== 0n && n > 0) total += c * runLimitedCount(n, maxRun, length);
  return total;
}

/** The inclusion-exclusion terms of a count under max-sequential: signed coefficients by
 * alphabet size (alphabets the limit cannot bind) and by sequence shape (sequences.ts). */
export interface SequenceTerms {
  readonly bySize: ReadonlyMap<number, bigint>;
  readonly byShape: ReadonlyMap<string, { readonly shape: SequenceShape; readonly coefficient: bigint }>;
}

/**
 * The terms of the count under a max-sequential limit as well: inclusion-exclusion over the
 * required sets again, each restricted alphabet (the allowed codes, ascending, whose signature
 * misses S) reduced to its sequence shape (sequences.ts) and counted once per distinct shape;
 * an alphabet the limit cannot bind is counted by its size as above. The terms collapse to at
 * most 2^k signed coefficients, fewer when alphabets share a shape. Finding them takes no
 * BigInt work beyond the signs, so the plan prices a count (plan.ts, countPlan) before making
 * it; null as soon as there are more than `maxShapes` distinct shapes, each of which would cost
 * a series, so a rule far over the budget is refused without finding all 2^k of them.
 */
export function sequenceTerms(
  codes: Uint16Array,
  signatures: Uint8Array,
  k: number,
  maxSequence: number,
  maxShapes = Infinity,
): SequenceTerms | null {
  const bySize = new Map<number, bigint>();
  const byShape = new Map<string, { shape: SequenceShape; coefficient: bigint }>();
  for (let s = 0; s < 1 << k; s++) {
    const sign = popcount(s) & 1 ? -1n : 1n;
    const alphabet = codes.filter((_, j) => (signatures[j] & s) === 0);
    const shape = sequenceShape(alphabet, maxSequence);
    if (shape === null) bySize.set(alphabet.length, (bySize.get(alphabet.length) ?? 0n) + sign);
    else {
      const entry = byShape.get(shape.key);
      if (entry !== undefined) entry.coefficient += sign;
      else if (byShape.size >= maxShapes) return null;
      else byShape.set(shape.key, { shape, coefficient: sign });
    }
  }
  return { bySize, byShape };
}

/** The count under max-repeating, max-sequential and the required sets: the sum of the terms. */
export function countWithSequences(terms: SequenceTerms, counter: SequenceCounter): bigint {
  let total = 0n;
  for (const [n, c] of terms.bySize)
    if (c !== 0n && n > 0) total += c * runLimitedCount(n, counter.maxRun, counter.length);
  for (const { shape, coefficient } of terms.byShape.values())
    if (coefficient !== 0n) total += coefficient * counter.count(shape);
  return total;
}

export function popcount(x: number): number {
  let c = 0;
  for (let v = x; v !== 0; v &= v - 1) c++;
  return c;
}

/**
 * The exact sampler's table: completions[t][U] for t = 0..length-1 and every set U of
 * required sets still unhit, summed over t (prefix[t][U] = sum over s <= t of G(s, U)).
 *
 * G(t, U) counts the ways to finish a password when a run has just ended with some character
 * c and t characters remain: strings w of length t with w[0] != c (t >= 1), no run longer
 * than m, hitting every R_i, i in U. The last character c is in no R_i of U (those are unhit),
 * so it survives every exclusion below and G does not depend on which c it was:
 *   G(t, U) = sum over S subset of U of (-1)^|S| H(n_S, t),
 *   H(n, 0) = 1,  H(n, t) = (n - 1) e(n, t)   (first symbol != c, then any valid string).
 * The sum over subsets of U is computed for all U at once by the subset-sum (zeta)
 * transform: k 2^(k-1) additions per t instead of 3^k.
 */
export function completionPrefixTable(atoms: readonly Atom[], k: number, maxRun: number, length: number): bigint[][] {
  const outside = outsideCounts(atoms, k);
  const starts = new Map<number, bigint[]>();
  for (const n of outside) if (n > 0 && !starts.has(n)) starts.set(n, runLimitedStarts(n, maxRun, length));
  const size = 1 << k;
  const prefix: bigint[][] = [];
  const h: bigint[] = new Array<bigint>(size);
  for (let t = 0; t < length; t++) {
    for (let s = 0; s < size; s++) {
      const n = outside[s];
      const value = t === 0 ? 1n : n > 0 ? BigInt(n - 1) * (starts.get(n)?.[t] ?? 0n) : 0n; // every n > 0 has its row
      h[s] = popcount(s) & 1 ? -value : value;
    }
    for (let bit = 1; bit < size; bit <<= 1) for (let u = 0; u < size; u++) if (u & bit) h[u] += h[u ^ bit];
    prefix.push(t === 0 ? h.slice() : h.map((g, u) => g + prefix[t - 1][u]));
  }
  return prefix;
}
