/**
 * Mode passphrase: words drawn uniformly and independently from the EFF large wordlist.
 *
 * The 4 hyphenated EFF words (drop-down, felt-tip, t-shirt, yo-yo) are left out whatever the
 * separator, so the list is one fixed 7,772 words and `bits` never depends on the separator;
 * with "hyphen" they would read as two words (DECISIONS.md, Passphrases).
 * @module
 */
import { BoundedCache } from './bounded-cache.ts';
import { EFF_LARGE_WORDLIST } from '../../wordlist/eff-large.generated.ts';
import { passphraseBits, planJson, strength, type Entropy, type PlanJson } from './entropy.ts';
import type { RandomSource } from './random.ts';
import type { PassphraseOptions, Separator } from './validate.ts';

export const WORDLIST_NAME = 'EFF large wordlist';
export const WORDLIST: readonly string[] = Object.freeze(EFF_LARGE_WORDLIST.filter((w) => !w.includes('-')));
export const DROPPED_WORDS: readonly string[] = Object.freeze(EFF_LARGE_WORDLIST.filter((w) => w.includes('-')));

export const SEPARATORS: Readonly<Record<Separator, string>> = Object.freeze({
  hyphen: '-',
  underscore: '_',
  dot: '.',
  space: ' ',
});

/** The lists the generator reads: plain (not frozen) arrays, whose element loads V8 inlines;
 * private to this module, so nothing can change them. */
const PLAIN: string[] = [...WORDLIST];
/** Built on first use: start-up does not pay for a list most servers never need. */
let capitalized: string[] | null = null;

function capitalizedWords(): string[] {
  capitalized ??= WORDLIST.map((w) => w[0].toUpperCase() + w.slice(1));
  return capitalized;
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
  readonly entropy: Entropy;
  readonly metadata: PassphraseMetadata;
  /** entropy and metadata as JSON, for generateJson. */
  readonly json: PlanJson;
}

/** Every character a passphrase can hold but the separator (capitalising adds only letters),
 * for the JSON-safety check; joined on first plan, not at start-up. */
let wordAlphabet: string | null = null;

/** Every option set has its plan cached (4 separators x 2 x 2 x valid word counts, a few
 * hundred at most; the cache is bounded anyway), so a request allocates none of it. */
const PLAN_CACHE_LIMIT = 512;
const planCache = new BoundedCache<number, PassphrasePlan>(PLAN_CACHE_LIMIT);
const SEPARATOR_INDEX: Readonly<Record<Separator, number>> = Object.freeze({ hyphen: 0, underscore: 1, dot: 2, space: 3 });

export function cachedPlanPassphrase(o: PassphraseOptions): PassphrasePlan {
  const key = o.wordCount * 16 + SEPARATOR_INDEX[o.separator] * 4 + (o.capitalize ? 2 : 0) + (o.addNumber ? 1 : 0);
  return planCache.getOrMake(key, o, planPassphrase);
}

export function planPassphrase(o: PassphraseOptions): PassphrasePlan {
  const entropy = strength(passphraseBits(WORDLIST.length, o.wordCount, o.addNumber));
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
    entropy,
    metadata,
    json: planJson(entropy, metadata, (wordAlphabet ??= `${PLAIN.join('')}ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789`) + SEPARATORS[o.separator]),
  });
}

let drawn = new Uint32Array(0);

export function generatePassphrase(plan: PassphrasePlan, random: RandomSource): string {
  const { wordCount, separator, capitalize, addNumber } = plan.options;
  const words = capitalize ? capitalizedWords() : PLAIN;
  const sep = SEPARATORS[separator];
  const draws = Math.max(1, wordCount); // the first word is always drawn
  if (drawn.length < draws) drawn = new Uint32Array(draws);
  // The same draws in the same order as before: one per word, then the number.
  random.belowMany(words.length, draws, drawn);
  let out = words[drawn[0]];
  for (let i = 1; i < wordCount; i++) out += sep + words[drawn[i]];
  for (let i = 0; i < draws; i++) drawn[i] = 0; // a loop: cheaper than a fill() call for a few slots
  if (addNumber) {
    const n = random.below(100);
    out += sep + (n < 10 ? '0' : '') + n;
  }
  return out;
}
