/**
 * The word lists of mode passphrase (`options.wordList`; wordlist/README.md gives their sources
 * and licences, docs/decisions.md, Passphrases, the reasons).
 *
 * Each list is a vendored file, pinned by its SHA-256 and turned into words at build time
 * (lib/generated/wordlist.generated.ts): in file order, composed to Unicode NFC, because what a
 * person types is NFC and the BIP-39 files are stored NFKD.
 *
 * A word that holds a character a separator can put in a gap (GAP_CHARACTERS) is left out,
 * whatever the separator: the EFF list's 4 hyphenated words, and no BIP-39 word
 * (tests/core/wordlist.test.ts). So a passphrase reads back into its words, gaps and number
 * one way only, which is what makes its entropy exact (lib/core/entropy.ts, passphraseBits).
 * @module
 */
import { VENDORED_WORDLISTS } from '../generated/wordlist.generated.ts';
import { GAP_CHARACTERS, IDEOGRAPHIC_SPACE } from './charsets.ts';
import type { PassphraseOptions } from '../generated/options.generated.ts';

export type WordListId = PassphraseOptions['wordList'];

export interface WordList {
  readonly id: WordListId;
  /** For people: "EFF large wordlist", "BIP-39 Japanese". */
  readonly name: string;
  readonly language: string;
  /** The vendored file, relative to the repository, and its SHA-256. */
  readonly file: string;
  readonly sha256: string;
  /** Words in the file. */
  readonly sourceSize: number;
  /** The words drawn from (NFC, file order) and those left out. */
  readonly words: readonly string[];
  readonly excludedWords: readonly string[];
  /** The words with `capitalize` applied, same order (the words themselves for a list without
   * letter case, where `capitalize` is refused). */
  readonly capitalizedWords: readonly string[];
  /** False when no word has a letter with an upper case (Chinese, Japanese, Korean):
   * `capitalize` would change nothing, so it is refused (passphrase.ts). */
  readonly letterCase: boolean;
  /** The character `separator: "space"` puts in each gap. */
  readonly space: string;
  readonly license: string;
  readonly source: string;
}

const BIP39_SOURCE =
  'BIP-39 (Marek Palatinus, Pavol Rusnak, Aaron Voisine, Sean Bowe), https://github.com/bitcoin/bips/tree/7fe0b034ec967b52a5a28276419117326df93263/bip-0039';

/** The languages of the BIP-39 lists, by the id's suffix. */
const BIP39_LANGUAGES: Readonly<Record<string, string>> = Object.freeze({
  english: 'English',
  japanese: 'Japanese',
  korean: 'Korean',
  spanish: 'Spanish',
  'chinese-simplified': 'Chinese (simplified)',
  'chinese-traditional': 'Chinese (traditional)',
  french: 'French',
  italian: 'Italian',
  czech: 'Czech',
  portuguese: 'Portuguese',
});

function holdsGapCharacter(word: string): boolean {
  for (const c of word) if (GAP_CHARACTERS.includes(c)) return true;
  return false;
}

function wordListOf(id: WordListId): WordList {
  const { file, sha256, words: all } = VENDORED_WORDLISTS[id];
  const words = Object.freeze(all.filter((w) => !holdsGapCharacter(w)));
  const eff = id === 'eff-large';
  const language = eff ? 'English' : BIP39_LANGUAGES[id.slice('bip39-'.length)];
  const letterCase = words.some((w) => w !== w.toUpperCase());
  return Object.freeze({
    id,
    name: eff ? 'EFF large wordlist' : `BIP-39 ${language}`,
    language,
    file,
    sha256,
    sourceSize: all.length,
    words,
    excludedWords: Object.freeze(all.filter(holdsGapCharacter)),
    capitalizedWords: letterCase ? Object.freeze(words.map(capitalized)) : words,
    letterCase,
    space: id === 'bip39-japanese' ? IDEOGRAPHIC_SPACE : ' ',
    license: eff ? 'CC BY 3.0 US' : 'MIT',
    source: eff ? 'EFF large wordlist by the Electronic Frontier Foundation, https://www.eff.org/dice' : BIP39_SOURCE,
  });
}

/** Every list, by id, in the order of the schema's enum. */
export const WORD_LISTS: Readonly<Record<WordListId, WordList>> = Object.freeze(
  Object.fromEntries(Object.keys(VENDORED_WORDLISTS).map((id) => [id, wordListOf(id as WordListId)])) as Record<
    WordListId,
    WordList
  >,
);

/** The first letter of a word upper-cased (the first code point; `capitalize`). */
export function capitalized(word: string): string {
  const first = String.fromCodePoint(word.codePointAt(0) ?? 0);
  return first.toUpperCase() + word.slice(first.length);
}

/** The list's words with `capitalize` applied or not, same order. */
export function wordsOf(list: WordList, capitalize: boolean): readonly string[] {
  return capitalize ? list.capitalizedWords : list.words;
}
