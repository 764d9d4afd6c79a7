/**
 * Tier 1 of the generator core, the part a reviewer reads in one sitting: the random source,
 * passwords (every enabled class at least once), passphrases (word lists, length bounds) and
 * their exact entropy. Site rules (`passwordRules`) are a tier of their own, behind
 * lib/core/rules/index.ts. Both are generation only: `generate()` in the request layer
 * (lib/request/index.ts) interprets a request and serves it with either.
 * Modules named with a leading `_` are internal: nothing outside their folder imports them
 * (tests/spec/import-graph.test.ts holds that, and that tier 1 reaches into no site-rules module
 * but the shared big-number draw).
 * @module
 */
export { createRandom, defaultRandom, webCryptoFill, type FillRandom, type RandomSource } from './random.ts';
export { planPassword, generatePasswords, isPlan, type PasswordPlan, type PasswordMetadata } from './password.ts';
export {
  planPassphrase,
  generatePassphrases,
  generatePassphrase,
  isPassphrasePlan,
  WORDLIST,
  DROPPED_WORDS,
  SEPARATORS,
  RANDOM_SEPARATORS,
  WORDLIST_NAME,
  type PassphrasePlan,
  type PassphraseMetadata,
} from './passphrase.ts';
export { STRENGTH_LEVELS, strength, log2BigInt, passphraseBits, type Entropy, type StrengthLevel } from './entropy.ts';
export {
  CHARACTER_CLASSES,
  AMBIGUOUS_CHARACTERS,
  SEPARATOR_SETS,
  GAP_CHARACTERS,
  IDEOGRAPHIC_SPACE,
} from './charsets.ts';
export { WORD_LISTS, type WordList, type WordListId } from './wordlists.ts';
