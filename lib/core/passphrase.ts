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
import { passphraseBits, planJson, strength, type Entropy, type PlanJson } from './entropy.ts';
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

/**
 * The lists the generator reads, built on first use per separator and capitalisation (start-up
 * pays for none, and most servers use one or two of the 8): each word with its separator
 * appended, so a passphrase is one concatenation per word, and the bare words for the last
 * one. Plain arrays, whose element loads V8 inlines; private to this module, so nothing can
 * change them.
 */
interface WordLists {
  readonly joined: string[];
  readonly last: string[];
  /** separator + "00" .. separator + "99". */
  readonly numbers: string[];
}
const wordLists = new Map<string, WordLists>();

function wordListsFor(separator: string, capitalize: boolean): WordLists {
  const key = `${capitalize ? 'C' : 'c'}${separator}`;
  let lists = wordLists.get(key);
  if (lists === undefined) {
    const last = capitalize ? WORDLIST.map((w) => w[0].toUpperCase() + w.slice(1)) : [...WORDLIST];
    lists = Object.freeze({
      joined: last.map((w) => w + separator),
      last,
      numbers: Array.from({ length: 100 }, (_, i) => separator + String(i).padStart(2, '0')),
    });
    wordLists.set(key, lists);
  }
  return lists;
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
  /** With a fixed separator, the words with it appended; with a drawn one, the bare words
   * (the separator is drawn per gap) and "00".."99". */
  readonly words: WordLists;
  /** The characters a drawn separator is chosen from, or null for a fixed separator. */
  readonly separatorSet: string | null;
  /** log2 of the number of equally likely passphrases, unrounded (the entropy floor's figure). */
  readonly bits: number;
  readonly entropy: Entropy;
  readonly metadata: PassphraseMetadata;
  /** entropy and metadata as JSON, for generateJson. */
  readonly json: PlanJson;
}

/** Every character a passphrase can hold but the separator (capitalising adds only letters),
 * for the JSON-safety check; joined on first plan, not at start-up. */
let wordAlphabet: string | null = null;

/** Every option set has its plan cached (6 separators x 2 x 2 x valid word counts, a few
 * hundred at most; the cache is bounded anyway), so a request allocates none of it. */
const PLAN_CACHE_LIMIT = 512;
const planCache = new BoundedCache<number, PassphrasePlan>(PLAN_CACHE_LIMIT);
const SEPARATOR_INDEX: Readonly<Record<Separator, number>> = Object.freeze({
  hyphen: 0,
  underscore: 1,
  dot: 2,
  space: 3,
  digit: 4,
  symbol: 5,
});

export function cachedPlanPassphrase(o: PassphraseOptions): PassphrasePlan {
  const key = o.wordCount * 32 + SEPARATOR_INDEX[o.separator] * 4 + (o.capitalize ? 2 : 0) + (o.addNumber ? 1 : 0);
  return planCache.getOrMake(key, o, planPassphrase);
}

export function planPassphrase(o: PassphraseOptions): PassphrasePlan {
  const separatorSet = isRandomSeparator(o.separator) ? RANDOM_SEPARATORS[o.separator] : null;
  const fixed = isRandomSeparator(o.separator) ? '' : SEPARATORS[o.separator];
  const bits = passphraseBits(WORDLIST.length, o.wordCount, o.addNumber, separatorSet?.length ?? 1);
  const entropy = strength(bits);
  const metadata: PassphraseMetadata = Object.freeze({
    entropyMode: 'wordlist',
    wordCount: o.wordCount,
    wordlistSize: WORDLIST.length,
    wordlist: WORDLIST_NAME,
    separator: o.separator,
    capitalize: o.capitalize,
    addNumber: o.addNumber,
  });
  return Object.freeze({
    options: Object.freeze({ ...o }),
    words: wordListsFor(fixed, o.capitalize),
    separatorSet,
    bits,
    entropy,
    metadata,
    json: planJson(
      entropy,
      metadata,
      (wordAlphabet ??= `${WORDLIST.join('')}ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789`) + fixed + (separatorSet ?? ''),
    ),
  });
}

let drawn = new Uint32Array(64);
const drawnNumber = new Uint32Array(1);
/** One passphrase's drawn separators (grown on demand, like `drawn`). */
let drawnGaps = new Uint32Array(8);

/**
 * `count` passphrases: per passphrase, one draw below 7,772 per word (random.ts), then with
 * addNumber one below 100. Without addNumber the batch's words are one belowMany call, the
 * same draws in the same order as one call per passphrase. The draws are zeroed afterwards
 * (the returned strings stay in the heap until garbage collection, see password.ts).
 */
export function generatePassphrases(plan: PassphrasePlan, random: RandomSource, count: number): string[] {
  if (plan.separatorSet !== null) return generateWithDrawnSeparators(plan, plan.separatorSet, random, count);
  const { wordCount, addNumber } = plan.options;
  const { joined, last, numbers } = plan.words;
  const drawnWords = addNumber ? wordCount : wordCount * count;
  if (drawn.length < drawnWords) drawn = new Uint32Array(drawnWords);
  const d = drawn;
  if (!addNumber) random.belowMany(WORDLIST.length, drawnWords, d);
  const values = new Array<string>(count);
  for (let c = 0; c < count; c++) {
    let at = c * wordCount;
    if (addNumber) {
      random.belowMany(WORDLIST.length, wordCount, d);
      at = 0;
    }
    let value = '';
    for (let k = 0; k < wordCount - 1; k++) value += joined[d[at + k]];
    value += last[d[at + wordCount - 1]];
    if (addNumber) {
      random.belowMany(100, 1, drawnNumber);
      value += numbers[drawnNumber[0]];
    }
    values[c] = value;
  }
  for (let i = 0; i < drawnWords; i++) d[i] = 0; // a loop: cheaper than a fill() call for a few slots
  drawnNumber[0] = 0;
  return values;
}

/**
 * `count` passphrases whose gaps each get their own separator drawn from `set`: per
 * passphrase, one draw below 7,772 per word, then one draw below |set| per gap (the
 * wordCount - 1 between words, then with addNumber the one before it), then with addNumber one
 * below 100. Every draw is uniform and independent of the others (random.ts), so each gap is
 * uniform over the set whatever the words and the other gaps are.
 */
function generateWithDrawnSeparators(plan: PassphrasePlan, set: string, random: RandomSource, count: number): string[] {
  const { wordCount, addNumber } = plan.options;
  const { last, numbers } = plan.words;
  const gaps = wordCount - 1 + (addNumber ? 1 : 0);
  // The scratch starts at 64 words and 8 gaps, more than the schema allows (8 words, 7 gaps
  // and the one before the number); grown here so a larger wordCount never writes past it.
  /* c8 ignore next 2 */
  if (drawn.length < wordCount) drawn = new Uint32Array(wordCount);
  if (drawnGaps.length < gaps) drawnGaps = new Uint32Array(gaps);
  const d = drawn;
  const g = drawnGaps;
  const values = new Array<string>(count);
  for (let c = 0; c < count; c++) {
    random.belowMany(WORDLIST.length, wordCount, d);
    random.belowMany(set.length, gaps, g);
    let value = last[d[0]];
    for (let k = 1; k < wordCount; k++) value += set[g[k - 1]] + last[d[k]];
    if (addNumber) {
      random.belowMany(100, 1, drawnNumber);
      value += set[g[wordCount - 1]] + numbers[drawnNumber[0]];
    }
    values[c] = value;
  }
  d.fill(0, 0, wordCount);
  g.fill(0);
  drawnNumber[0] = 0;
  return values;
}

/** One passphrase: generatePassphrases with count = 1. */
export function generatePassphrase(plan: PassphrasePlan, random: RandomSource): string {
  return generatePassphrases(plan, random, 1)[0];
}
