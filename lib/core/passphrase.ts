/**
 * Mode passphrase: uniform words of a list (wordlists.ts) joined by fixed or drawn separators, and
 * a two-digit number if asked (docs/decisions.md, Passphrases). Every gap is one character and the
 * number two, so a length bound is a bound on the words' letters (passphrase-length.ts counts and
 * draws the sequences within it). Output is NFC: NFC words, ASCII or U+3000 gaps, and no word
 * composes with a gap character (tests/core/wordlist.test.ts).
 * @module
 */
import { RANDOM_SEPARATORS, SEPARATORS } from './charsets.ts';
import { log2BigInt, passphraseBits, strength, type Entropy } from './entropy.ts';
import { between, drawWithin, wordLengths, type WordLengths } from './passphrase-length.ts';
import type { RandomSource } from './random.ts';
import { refuse, type ErrorBody } from './error-body.ts';
import { WORD_LISTS, wordsOf, type WordList, type WordListId } from './wordlists.ts';
import { requestSchema } from '../generated/schema.generated.ts';
import type { PassphraseOptions } from '../generated/options.generated.ts';

type Separator = PassphraseOptions['separator'];
type RandomSeparator = keyof typeof RANDOM_SEPARATORS;

/** The default list (eff-large): its sampled words and the 4 it leaves out. */
export const WORDLIST: readonly string[] = WORD_LISTS['eff-large'].words;
export const DROPPED_WORDS: readonly string[] = WORD_LISTS['eff-large'].excludedWords;

/** The most words a passphrase has (the schema's maximum of wordCount). */
const MAX_WORDS: number = requestSchema.$defs.PassphraseOptions.properties.wordCount.maximum;

/** The characters of a number (two digits) and its gap. */
const NUMBER_CHARACTERS = 3;

const isRandomSeparator = (s: Separator): s is RandomSeparator => Object.hasOwn(RANDOM_SEPARATORS, s);

export interface PassphraseMetadata {
  readonly entropyMode: 'wordlist';
  readonly wordCount: number;
  readonly wordlistSize: number;
  readonly wordlist: string;
  readonly wordlistId: WordListId;
  readonly wordlistSha256: string;
  readonly separator: Separator;
  readonly capitalize: boolean;
  readonly addNumber: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
}

/** A length bound as a range of letters, with the number of word sequences inside it. */
export type LetterRange = Readonly<{ table: WordLengths; lo: number; hi: number; sequences: bigint }>;

export interface PassphrasePlan {
  readonly options: PassphraseOptions;
  /** The words drawn from (capitalised or not). */
  readonly words: readonly string[];
  /** The one separator of every gap, or null when each gap draws its own. */
  readonly fixed: string | null;
  /** The characters a drawn separator comes from ('' for a fixed separator). */
  readonly separatorSet: string;
  /** With minLength or maxLength: the letters the words may have in all; null without. */
  readonly letters: LetterRange | null;
  /** log2 of the number of equally likely passphrases, unrounded (the entropy floor's figure). */
  readonly bits: number;
  readonly entropy: Entropy;
  readonly metadata: PassphraseMetadata;
}

export function isPassphrasePlan(plan: PassphrasePlan | ErrorBody): plan is PassphrasePlan {
  return 'bits' in plan;
}

/** The word-length table of each list, made as the module loads (capitalize keeps the lengths). */
const TABLES = Object.freeze(
  Object.fromEntries(Object.values(WORD_LISTS).map((list) => [list.id, wordLengths(list.words, MAX_WORDS)])),
) as Readonly<Record<WordListId, WordLengths>>;

/** `19 to 75 characters`, or `7 characters` when the options make one length only. */
const lengthsText = (shortest: number, longest: number): string =>
  shortest === longest ? `${shortest} characters` : `${shortest} to ${longest} characters`;

/** The letters the words may have within the bounds, or the 400 naming the bound that excludes
 * every passphrase and the lengths these options make. */
export function letterRange(o: PassphraseOptions, table: WordLengths): LetterRange | ErrorBody {
  const fixedPart = o.wordCount - 1 + (o.addNumber ? NUMBER_CHARACTERS : 0);
  const lo = (o.minLength ?? 0) - fixedPart;
  const hi = (o.maxLength ?? Infinity) - fixedPart;
  const sequences = between(table, o.wordCount, lo, hi);
  if (sequences > 0n) return { table, lo, hi, sequences };
  const shortest = o.wordCount * table.shortest + fixedPart;
  const longest = o.wordCount * table.longest + fixedPart;
  const made = `these options make ${lengthsText(shortest, longest)}`;
  if (o.maxLength !== undefined && o.maxLength < shortest) {
    return refuse(`options.maxLength ${o.maxLength} is below the shortest passphrase: ${made}`, 'options.maxLength');
  }
  if (o.minLength !== undefined && o.minLength > longest) {
    return refuse(`options.minLength ${o.minLength} is above the longest passphrase: ${made}`, 'options.minLength');
  }
  // Both bounds within [shortest, longest] and a gap between them (no list shipped has one).
  return refuse(
    `options.minLength: no passphrase of these options has ${lengthsText(o.minLength ?? 0, o.maxLength ?? 0)}; ${made}, not every length between`,
    'options.minLength',
  );
}

/** What a plan's count is: the words (bounded or not), the drawn gaps, the number. */
function bitsOf(o: PassphraseOptions, list: WordList, letters: LetterRange | null, drawnFrom: number): number {
  if (letters === null) return passphraseBits(list.words.length, o.wordCount, o.addNumber, drawnFrom);
  const gaps = BigInt(o.wordCount - 1 + (o.addNumber ? 1 : 0));
  return log2BigInt(letters.sequences * BigInt(drawnFrom) ** gaps * (o.addNumber ? 100n : 1n));
}

/** The plan for these options, or the 400: capitalize without letter case, minLength above
 * maxLength, no passphrase within the bounds, in that order (docs/api.md, Options). */
export function planPassphrase(o: PassphraseOptions): PassphrasePlan | ErrorBody {
  const list = WORD_LISTS[o.wordList];
  if (o.capitalize && !list.letterCase) {
    return refuse(`options.capitalize: the words of ${o.wordList} have no letter case`, 'options.capitalize');
  }
  if (o.minLength !== undefined && o.maxLength !== undefined && o.minLength > o.maxLength) {
    return refuse(`options.minLength ${o.minLength} is above options.maxLength ${o.maxLength}`, 'options.minLength');
  }
  let letters: LetterRange | null = null;
  if (o.minLength !== undefined || o.maxLength !== undefined) {
    const range = letterRange(o, TABLES[list.id]);
    if (!('sequences' in range)) return range;
    letters = range;
  }
  const sep = o.separator;
  const fixed = isRandomSeparator(sep) ? null : sep === 'space' ? list.space : SEPARATORS[sep];
  const separatorSet = isRandomSeparator(sep) ? RANDOM_SEPARATORS[sep] : '';
  const bits = bitsOf(o, list, letters, fixed === null ? separatorSet.length : 1);
  const bounds = {
    ...(o.minLength === undefined ? {} : { minLength: o.minLength }),
    ...(o.maxLength === undefined ? {} : { maxLength: o.maxLength }),
  };
  return Object.freeze({
    options: o,
    words: wordsOf(list, o.capitalize),
    fixed,
    separatorSet,
    letters,
    bits,
    entropy: strength(bits),
    metadata: Object.freeze({
      entropyMode: 'wordlist',
      wordCount: o.wordCount,
      wordlistSize: list.words.length,
      wordlist: list.name,
      wordlistId: list.id,
      wordlistSha256: list.sha256,
      separator: o.separator,
      capitalize: o.capitalize,
      addNumber: o.addNumber,
      ...bounds,
    }),
  });
}

/** `count` passphrases, each drawn in this order: the words (one draw below the list's size each,
 * or one uniform rank within a bound), one draw per drawn gap, then the number below 100. Every
 * draw is uniform and independent (random.ts), so each part is uniform whatever the others are. */
export function generatePassphrases(plan: PassphrasePlan, random: RandomSource, count: number): string[] {
  const { wordCount, addNumber } = plan.options;
  const { words, fixed, separatorSet, letters } = plan;
  const gap = () => fixed ?? separatorSet[random.below(separatorSet.length)];
  const values: string[] = [];
  while (values.length < count) {
    const drawnWords: string[] = [];
    if (letters === null) {
      for (let k = 0; k < wordCount; k++) drawnWords.push(words[random.below(words.length)]);
    } else {
      for (const i of drawWithin(letters.table, wordCount, letters.lo, letters.hi, letters.sequences, random))
        drawnWords.push(words[i]);
    }
    let value = drawnWords[0];
    for (let k = 1; k < wordCount; k++) value += gap() + drawnWords[k];
    if (addNumber) value += gap() + String(random.below(100)).padStart(2, '0');
    values.push(value);
  }
  return values;
}
