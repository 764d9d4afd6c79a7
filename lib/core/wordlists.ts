/**
 * The word lists of mode passphrase (sources: wordlist/README.md; reasons: docs/decisions.md,
 * Passphrases): vendored files pinned by SHA-256, in file order and composed to NFC at build time
 * (lib/generated/wordlist.generated.ts). A word holding a gap character (GAP_CHARACTERS) is left
 * out, so a passphrase reads back one way only and its entropy is exact (entropy.ts).
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
  /** The words with `capitalize` applied, same order (the words themselves without letter case). */
  readonly capitalizedWords: readonly string[];
  /** False when no word has an upper case (Chinese, Japanese, Korean): `capitalize` is refused. */
  readonly letterCase: boolean;
  /** The character `separator: "space"` puts in each gap. */
  readonly space: string;
  readonly license: string;
  readonly source: string;
}

const BIP39_SOURCE =
  'BIP-39 (Marek Palatinus, Pavol Rusnak, Aaron Voisine, Sean Bowe), https://github.com/bitcoin/bips/tree/7fe0b034ec967b52a5a28276419117326df93263/bip-0039';

function holdsGapCharacter(word: string): boolean {
  for (const c of word) if (GAP_CHARACTERS.includes(c)) return true;
  return false;
}

function wordListOf(id: WordListId): WordList {
  const { file, sha256, words: all } = VENDORED_WORDLISTS[id];
  const words = Object.freeze(all.filter((w) => !holdsGapCharacter(w)));
  const eff = id === 'eff-large';
  // A BIP-39 list's language from its id: bip39-chinese-simplified is Chinese (simplified).
  const bip39 = id.slice('bip39-'.length).replace(/^./, (c) => c.toUpperCase());
  const language = eff ? 'English' : bip39.replace(/-(.*)/, ' ($1)');
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
