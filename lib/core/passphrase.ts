/**
 * Mode passphrase: words drawn uniformly and independently from the EFF large wordlist.
 *
 * The 4 hyphenated EFF words (drop-down, felt-tip, t-shirt, yo-yo) are left out whatever the
 * separator, so the list is one fixed 7,772 words and `bits` never depends on the separator;
 * with "hyphen" they would read as two words (DECISIONS.md, Passphrases).
 * @module
 */
import { EFF_LARGE_WORDLIST } from '../../wordlist/eff-large.generated.ts';
import { passphraseBits, strength, type Entropy } from './entropy.ts';
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

const CAPITALIZED: readonly string[] = Object.freeze(WORDLIST.map((w) => w[0].toUpperCase() + w.slice(1)));

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
}

export function planPassphrase(o: PassphraseOptions): PassphrasePlan {
  return Object.freeze({
    options: Object.freeze({ ...o }),
    entropy: strength(passphraseBits(WORDLIST.length, o.wordCount, o.addNumber)),
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

export function generatePassphrase(plan: PassphrasePlan, random: RandomSource): string {
  const { wordCount, separator, capitalize, addNumber } = plan.options;
  const words = capitalize ? CAPITALIZED : WORDLIST;
  const sep = SEPARATORS[separator];
  let out = words[random.below(words.length)];
  for (let i = 1; i < wordCount; i++) out += sep + words[random.below(words.length)];
  if (addNumber) {
    const n = random.below(100);
    out += sep + (n < 10 ? '0' : '') + n;
  }
  return out;
}
