/**
 * Mode passphrase: words drawn uniformly from a word list (wordlists.ts), joined by separators,
 * optionally followed by a two-digit number.
 *
 * Separators are fixed (hyphen, underscore, dot, space) or drawn: with `digit` or `symbol`
 * every gap gets its own uniform character of SEPARATOR_SETS, independent of the words and of
 * the other gaps (docs/decisions.md, Passphrases).
 *
 * Lengths. Every separator is one character and the number two, so a passphrase is its words'
 * letters plus a fixed part: one character per gap between words, and three more with the
 * number. A bound on its length (`minLength`, `maxLength`) is therefore a bound on the letters
 * of its words alone, and passphrase-length.ts counts and draws the word sequences within it;
 * the gaps and the number are drawn as without a bound. Without a bound the words are drawn
 * one by one, each uniform and independent.
 *
 * Output is NFC: the words are NFC (composed at build time), the separators and digits are
 * ASCII or U+3000, and tests/core/wordlist.test.ts shows that no word composes with a gap
 * character on either side, so joining them composes nothing further.
 * @module
 */
import { FIXED_SEPARATORS, SEPARATOR_SETS } from './charsets.ts';
import { log2BigInt, passphraseBits, strength, type Entropy } from './entropy.ts';
import { between, drawWithin, wordLengths, type WordLengths } from './passphrase-length.ts';
import type { RandomSource } from './random.ts';
import type { ErrorBody } from './error-body.ts';
import { WORD_LISTS, wordsOf, type WordList, type WordListId } from './wordlists.ts';
import { requestSchema } from '../generated/schema.generated.ts';
import type { PassphraseOptions } from '../generated/options.generated.ts';

export type Separator = PassphraseOptions['separator'];
export type RandomSeparator = keyof typeof SEPARATOR_SETS;
export type FixedSeparator = Exclude<Separator, RandomSeparator>;

/** The fixed separators: the same character in every gap (`space` is U+3000 for bip39-japanese). */
export const SEPARATORS: Readonly<Record<FixedSeparator, string>> = FIXED_SEPARATORS;

/** The drawn separators: each gap gets one uniform character of the set. */
export const RANDOM_SEPARATORS: Readonly<Record<RandomSeparator, string>> = SEPARATOR_SETS;

/** The default list (eff-large): its sampled words and the 4 it leaves out. */
export const WORDLIST: readonly string[] = WORD_LISTS['eff-large'].words;
export const DROPPED_WORDS: readonly string[] = WORD_LISTS['eff-large'].excludedWords;

/** The most words a passphrase has (the schema's maximum of wordCount). */
const MAX_WORDS: number = requestSchema.$defs.PassphraseOptions.properties.wordCount.maximum;

/** The characters of a number (two digits) and its gap. */
const NUMBER_CHARACTERS = 3;

function isRandomSeparator(s: Separator): s is RandomSeparator {
  return Object.hasOwn(RANDOM_SEPARATORS, s);
}

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
export interface LetterRange {
  readonly table: WordLengths;
  readonly lo: number;
  readonly hi: number;
  readonly sequences: bigint;
}

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

/**
 * The plan store's key for an option set: every option, generated from the schema
 * (spec/build.ts), so no option can be missing from it. The server keeps plans by it
 * (lib/request/plan-store.ts): it writes a plan's entropy and metadata as JSON once per plan
 * object
 * (lib/http/response-json.ts; docs/benchmark.md, The core and the 3 % rule), and a bounded
 * plan's count is BigInt work. Refusals are kept too.
 */
export { passphraseOptionsKey as passphrasePlanKey } from '../generated/options.generated.ts';

/** A plan's bytes, at most: its options, letter range, metadata and key, with room to spare
 * (the word array is the list's own, shared by every plan of that list, wordlists.ts). */
export const PASSPHRASE_PLAN_BYTES = 2048;

export function isPassphrasePlan(plan: PassphrasePlan | ErrorBody): plan is PassphrasePlan {
  return 'bits' in plan;
}

const refuse = (error: string, field: string): ErrorBody => ({ error, status: 400, field });

/** The word-length table of each list, made as the module loads (lengths do not change with
 * capitalize). */
const TABLES: Readonly<Record<WordListId, WordLengths>> = Object.freeze(
  Object.fromEntries(Object.values(WORD_LISTS).map((list) => [list.id, wordLengths(list.words, MAX_WORDS)])) as Record<
    WordListId,
    WordLengths
  >,
);

/** `19 to 75 characters`, or `7 characters` when the options make one length only. */
const lengthsText = (shortest: number, longest: number): string =>
  shortest === longest ? `${shortest} characters` : `${shortest} to ${longest} characters`;

/**
 * The letters the words may have for these bounds, given the list's word lengths, or the 400
 * when no passphrase fits: the bound that excludes them all, and the lengths these options make.
 */
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
  // Both bounds inside [shortest, longest], and a gap in the lengths between them: not so with
  // the lists shipped (their word lengths have no gaps), but a list could have one.
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

/**
 * The plan for these options, or the 400 of options nothing can be made for, checked in this
 * order: capitalize on a list without letter case, minLength above maxLength, no passphrase
 * within the bounds (docs/api.md, Options).
 */
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

/**
 * `count` passphrases. Per passphrase, in this order: the words, either one draw below the
 * list's size per word or, within a length bound, one uniform rank among the fitting word
 * sequences (passphrase-length.ts); with a drawn separator, one draw below the set's size per
 * gap (the wordCount - 1 between words, then with addNumber the one before the number); with
 * addNumber, one draw below 100. Every draw is uniform and independent of the others
 * (random.ts), so the words, each gap and the number are uniform whatever the others are.
 */
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
