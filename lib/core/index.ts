/**
 * The browser-safe generator core (no `node:` imports): what the server and the browser
 * bundle both import.
 * @module
 */
export {
  generate,
  type GenerateOutcome,
  type GenerateResponse,
  type GenerateSettings,
  type Credential,
} from './generate.ts';
export { describe, type DescribeSettings } from './describe.ts';
export { validateRequest, type ErrorBody, type PasswordOptions, type PassphraseOptions } from './validate.ts';
export { createRandom, defaultRandom, webCryptoFill, type FillRandom, type RandomSource } from './random.ts';
export { STRENGTH_LEVELS, strength, passwordBits, passphraseBits, countEachClassStrings } from './entropy.ts';
export { ENTROPY_FLOOR_META, MAX_MIN_BITS, parseEntropyFloor } from './entropy-floor.ts';
export {
  CHARACTER_CLASSES,
  AMBIGUOUS_CHARACTERS,
  SEPARATOR_SETS,
  GAP_CHARACTERS,
  IDEOGRAPHIC_SPACE,
} from './charsets.ts';
export { WORDLIST, DROPPED_WORDS, SEPARATORS, RANDOM_SEPARATORS, WORDLIST_NAME } from './passphrase.ts';
export { WORD_LISTS, type WordList, type WordListId } from './wordlists.ts';
export { BODY_LIMIT_BYTES, DEFAULT_RATE_LIMIT_PER_MINUTE, MAX_RATE_LIMIT_PER_MINUTE } from './limits.ts';
