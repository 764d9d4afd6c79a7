/**
 * The browser-safe generator core (no `node:` imports): generation only. Tier 1
 * (lib/core/tier1.ts: the random source, passwords, passphrases, entropy) and the site-rules
 * tier (lib/core/rules/index.ts) make plans and draw values from them. Interpreting a request
 * (validation, named policies, the entropy floor, `count`, the plan store, `generate()`) is the
 * request layer above it (lib/request/), which the server and the browser bundle share. The
 * service's own numbers and `describe()` are not here either: they are facts about the service
 * (lib/service/).
 * @module
 */
export {
  createRandom,
  defaultRandom,
  webCryptoFill,
  type FillRandom,
  type RandomSource,
  STRENGTH_LEVELS,
  strength,
  passphraseBits,
  CHARACTER_CLASSES,
  AMBIGUOUS_CHARACTERS,
  SEPARATOR_SETS,
  GAP_CHARACTERS,
  IDEOGRAPHIC_SPACE,
  WORDLIST,
  DROPPED_WORDS,
  SEPARATORS,
  RANDOM_SEPARATORS,
  WORDLIST_NAME,
  WORD_LISTS,
  type WordList,
  type WordListId,
} from './tier1.ts';
