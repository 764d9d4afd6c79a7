/**
 * Word sequences within a length: how many sequences of k words have between lo and hi
 * letters in all, counted exactly, and a uniform draw among exactly those. passphrase.ts turns
 * `options.minLength` and `options.maxLength` into such a range (docs/decisions.md,
 * Passphrases within a length); here a "letter" is one code point of a word.
 *
 * Counting. Let c(l) be the number of words of l letters. W(j, s), the number of sequences of
 * j words with s letters in all, is W(0, 0) = 1, W(0, s) = 0 for s > 0, and
 *   W(j, s) = sum over l of c(l) x W(j - 1, s - l),
 * since such a sequence is a first word of some length l followed by j - 1 words with s - l
 * letters. The table keeps the prefix sums A(j, s) = W(j, 0) + ... + W(j, s), so the number in
 * any range [lo, hi] is one subtraction (between()). BigInt: 7,772^8 is over 2^103.
 *
 * Drawing: unranking. Order the sequences of k words with lo to hi letters by the length of
 * their first word (ascending), then by that word (list order), then by the rest of the
 * sequence in the same order, recursively. For a first word w of length l, the sequences that
 * start with it are w followed by any sequence of k - 1 words with lo - l to hi - l letters:
 * R(l) = between(k - 1, lo - l, hi - l) of them, and the c(l) words of that length take
 * c(l) x R(l) consecutive ranks. These blocks, over every l, are exactly the N = between(k, lo,
 * hi) sequences (N = sum over l of c(l) x R(l), the recurrence above summed over s). So a rank
 * r below N falls in exactly one block l; within it, word floor(r' / R(l)) of that length
 * (r' = r minus the blocks before), and the rest of the sequence is rank r' mod R(l) among
 * the R(l) completions, found the same way. Each rank gives one sequence and each sequence has
 * one rank: a bijection between [0, N) and the sequences. A rank uniform on [0, N) (one
 * uniformBigIntBelow) therefore gives each fitting sequence probability 1 / N. No sequence
 * outside the range can come out, and none inside is left out: tests/core/passphrase-length.test.ts
 * enumerates every rank of small lists against every sequence.
 * @module
 */
import type { RandomSource } from './random.ts';
import { uniformBigIntBelow } from './random.ts';

/** The words of a list grouped by length, and the table A above. */
export interface WordLengths {
  /** Each length that occurs, ascending, with the indices of its words in list order. */
  readonly groups: readonly { readonly length: number; readonly words: readonly number[] }[];
  /** The shortest and longest word, in letters. */
  readonly shortest: number;
  readonly longest: number;
  /** atMost[j][s] = A(j, s), for j up to the most words a passphrase has, s up to j x longest. */
  readonly atMost: readonly (readonly bigint[])[];
}

/** The letters of a word: its code points, the unit every length of a passphrase is in. */
// eslint-disable-next-line @typescript-eslint/no-misused-spread -- code points are the unit here, by definition (docs/decisions.md)
export const lettersOf = (word: string): number => [...word].length;

/** Groups `words` by length and fills the table for sequences of up to `maxWords` words. */
export function wordLengths(words: readonly string[], maxWords: number): WordLengths {
  const byLength = new Map<number, number[]>();
  words.forEach((word, index) => {
    const l = lettersOf(word);
    const group = byLength.get(l);
    if (group === undefined) byLength.set(l, [index]);
    else group.push(index);
  });
  const groups = [...byLength.entries()]
    .sort(([a], [b]) => a - b)
    .map(([length, indices]) => Object.freeze({ length, words: Object.freeze(indices) }));
  const longest = groups[groups.length - 1].length;
  // W(j, s) row by row, each row kept as its prefix sums.
  let exact: bigint[] = [1n];
  const atMost: (readonly bigint[])[] = [];
  for (let j = 0; j <= maxWords; j++) {
    if (j > 0) {
      const next = new Array<bigint>(j * longest + 1).fill(0n);
      exact.forEach((ways, s) => {
        if (ways !== 0n) for (const g of groups) next[s + g.length] += BigInt(g.words.length) * ways;
      });
      exact = next;
    }
    let running = 0n;
    atMost.push(Object.freeze(exact.map((ways) => (running += ways))));
  }
  return Object.freeze({
    groups: Object.freeze(groups),
    shortest: groups[0].length,
    longest,
    atMost: Object.freeze(atMost),
  });
}

/** The number of sequences of j words with lo to hi letters in all (0 for an empty range). */
export function between(table: WordLengths, j: number, lo: number, hi: number): bigint {
  const row = table.atMost[j];
  const top = Math.min(hi, row.length - 1);
  const bottom = Math.max(lo, 0);
  if (bottom > top) return 0n;
  return row[top] - (bottom > 0 ? row[bottom - 1] : 0n);
}

/**
 * A uniform sequence of `wordCount` word indices with lo to hi letters in all, given `total`
 * = between(table, wordCount, lo, hi) > 0: the unranking of the module comment.
 */
export function drawWithin(
  table: WordLengths,
  wordCount: number,
  lo: number,
  hi: number,
  total: bigint,
  random: RandomSource,
): number[] {
  let rank = uniformBigIntBelow(total, random);
  const picked: number[] = [];
  for (let rest = wordCount - 1; rest >= 0; rest--) {
    const before = picked.length;
    for (const { length, words } of table.groups) {
      const completions = between(table, rest, lo - length, hi - length);
      const block = BigInt(words.length) * completions;
      if (rank < block) {
        picked.push(words[Number(rank / completions)]);
        rank %= completions;
        lo -= length;
        hi -= length;
        break;
      }
      rank -= block;
    }
    // A rank past every block: `total` was not this table's count. Never a short passphrase.
    if (picked.length === before) throw new RangeError('drawWithin: total is not the count of this table and range');
  }
  return picked;
}
