/**
 * Mode passphrase: words drawn uniformly and independently from the EFF large wordlist.
 *
 * The 4 hyphenated EFF words (drop-down, felt-tip, t-shirt, yo-yo) are left out whatever the
 * separator, so the list is one fixed 7,772 words and the words' bits never depend on the
 * separator; with "hyphen" they would read as two words.
 *
 * Separators are fixed (hyphen, underscore, dot, space) or drawn: with `digit` or `symbol`
 * every gap gets its own uniform character of SEPARATOR_SETS, independent of the words and of
 * the other gaps (docs/decisions.md, Passphrases).
 * @module
 */
import { BoundedCache } from './bounded-cache.ts';
import { SEPARATOR_SETS } from './charsets.ts';
import { EFF_LARGE_WORDLIST } from '../generated/wordlist.generated.ts';
import { passphraseBits, strength, type Entropy } from './entropy.ts';
import type { RandomSource } from './random.ts';
import type { PassphraseOptions, Separator } from './validate.ts';

export const WORDLIST_NAME = 'EFF large wordlist';
export const WORDLIST: readonly string[] = Object.freeze(EFF_LARGE_WORDLIST.filter((w) => !w.includes('-')));
export const DROPPED_WORDS: readonly string[] = Object.freeze(EFF_LARGE_WORDLIST.filter((w) => w.includes('-')));

export type RandomSeparator = keyof typeof SEPARATOR_SETS;
export type FixedSeparator = Exclude<Separator, RandomSeparator>;

/** The fixed separators: the same character in every gap. */
export const SEPARATORS: Readonly<Record<FixedSeparator, string>> = Object.freeze({
  hyphen: '-',
  underscore: '_',
  dot: '.',
  space: ' ',
});

/** The drawn separators: each gap gets one uniform character of the set. */
export const RANDOM_SEPARATORS: Readonly<Record<RandomSeparator, string>> = SEPARATOR_SETS;

function isRandomSeparator(s: Separator): s is RandomSeparator {
  return Object.hasOwn(RANDOM_SEPARATORS, s);
}

/** The list with every word's first letter upper-cased, same order; made on first use. */
let capitalized: readonly string[] | null = null;
function wordsFor(capitalize: boolean): readonly string[] {
  if (!capitalize) return WORDLIST;
  return (capitalized ??= Object.freeze(WORDLIST.map((w) => w[0].toUpperCase() + w.slice(1))));
}

export interface PassphraseMetadata {
  readonly entropyMode: 'wordlist';
  readonly wordCount: number;
  readonly wordlistSize: number;
  readonly wordlist: string;
  readonly separator: Separator;
  readonly capitalize: boolean;
  readonly addNumber: boolean;
}

export interface PassphrasePlan {
  readonly options: PassphraseOptions;
  /** The list the words are drawn from (capitalised or not). */
  readonly words: readonly string[];
  /** The one separator of every gap, or null when each gap draws its own. */
  readonly fixed: string | null;
  /** The characters a drawn separator comes from ('' for a fixed separator). */
  readonly separatorSet: string;
  /** log2 of the number of equally likely passphrases, unrounded (the entropy floor's figure). */
  readonly bits: number;
  readonly entropy: Entropy;
  readonly metadata: PassphraseMetadata;
}

/**
 * Plans are cached by their options although planning is plain arithmetic: the server writes
 * a plan's entropy and metadata as JSON once per plan object (lib/http/response-json.ts), which
 * saves more than 2 us a request. A few hundred option sets exist; bounded anyway.
 */
const planCache = new BoundedCache<string, PassphrasePlan>(512);

export function cachedPlanPassphrase(o: PassphraseOptions): PassphrasePlan {
  return planCache.getOrMake(`${o.wordCount} ${o.separator} ${o.capitalize} ${o.addNumber}`, o, planPassphrase);
}

export function planPassphrase(o: PassphraseOptions): PassphrasePlan {
  const fixed = isRandomSeparator(o.separator) ? null : SEPARATORS[o.separator];
  const separatorSet = isRandomSeparator(o.separator) ? RANDOM_SEPARATORS[o.separator] : '';
  const bits = passphraseBits(WORDLIST.length, o.wordCount, o.addNumber, fixed === null ? separatorSet.length : 1);
  return Object.freeze({
    options: o,
    words: wordsFor(o.capitalize),
    fixed,
    separatorSet,
    bits,
    entropy: strength(bits),
    metadata: Object.freeze({
      entropyMode: 'wordlist',
      wordCount: o.wordCount,
      wordlistSize: WORDLIST.length,
      wordlist: WORDLIST_NAME,
      separator: o.separator,
      capitalize: o.capitalize,
      addNumber: o.addNumber,
    }),
  });
}

/**
 * `count` passphrases. Per passphrase, in this order: one draw below 7,772 per word; with a
 * drawn separator, one draw below the set's size per gap (the wordCount - 1 between words,
 * then with addNumber the one before the number); with addNumber, one draw below 100. Every
 * draw is uniform and independent of the others (random.ts), so each word, gap and number is
 * uniform whatever the others are.
 */
export function generatePassphrases(plan: PassphrasePlan, random: RandomSource, count: number): string[] {
  const { wordCount, addNumber } = plan.options;
  const { words, fixed, separatorSet } = plan;
  const gap = () => fixed ?? separatorSet[random.below(separatorSet.length)];
  const values: string[] = [];
  while (values.length < count) {
    const drawnWords: string[] = [];
    for (let k = 0; k < wordCount; k++) drawnWords.push(words[random.below(words.length)]);
    let value = drawnWords[0];
    for (let k = 1; k < wordCount; k++) value += gap() + drawnWords[k];
    if (addNumber) value += gap() + String(random.below(100)).padStart(2, '0');
    values.push(value);
  }
  return values;
}

/** One passphrase: generatePassphrases with count = 1. */
export function generatePassphrase(plan: PassphrasePlan, random: RandomSource): string {
  return generatePassphrases(plan, random, 1)[0];
}
