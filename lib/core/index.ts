/**
 * The browser-safe generator core (no `node:` imports): what the server and the browser
 * bundle both import. `generate()` serves one request of any mode: tier 1 (lib/core/tier1.ts:
 * the random source, passwords, passphrases, entropy) and the site-rules tier
 * (lib/core/rules/index.ts). The service's own numbers and `describe()` are not here: they are
 * facts about the service (lib/service/).
 * @module
 */
export {
  generate,
  plannedEntropy,
  POLICIES_META,
  type GenerateOutcome,
  type PolicyLookup,
  type StoredPolicy,
  type GenerateResponse,
  type GenerateSettings,
  type Credential,
} from './generate.ts';
export { validateRequest, type ErrorBody, type PasswordOptions, type PassphraseOptions } from './validate.ts';
export { ENTROPY_FLOOR_META, MAX_MIN_BITS, parseEntropyFloor } from './_entropy-floor.ts';
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
