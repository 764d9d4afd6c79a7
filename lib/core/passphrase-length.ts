/**
 * Word sequences within a length: the exact number of sequences of k words with lo to hi letters
 * (code points) in all, W(j, s) by the first word's length, kept as prefix sums A(j, s); and a
 * uniform draw among exactly those, a uniform rank unranked block by block, a bijection from
 * [0, N) onto them. The derivation: docs/engine.md, Passphrases within a length.
 * @module
 */
import { uniformBigIntBelow, type RandomSource } from './random.ts';

/** The words of a list grouped by length, and the table A. */
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

/** A uniform sequence of `wordCount` word indices with lo to hi letters, given `total` = between(table,
 * wordCount, lo, hi) > 0: the unranking (docs/engine.md, Passphrases within a length). */
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
