/**
 * The generator core's one public face, with the tiers' own (tests/spec/import-graph.test.ts): generation
 * only, browser-safe. Interpreting a request is lib/request/'s; facts about the service lib/service/'s.
 * @module
 */
export { defaultRandom, type RandomSource } from './random.ts';
export { planPassword, generatePasswords, isPlan, type PasswordPlan, type PasswordMetadata } from './password.ts';
export {
  planPassphrase,
  generatePassphrases,
  isPassphrasePlan,
  WORDLIST,
  DROPPED_WORDS,
  type PassphrasePlan,
  type PassphraseMetadata,
} from './passphrase.ts';
export { STRENGTH_LEVELS, strength, passphraseBits, type Entropy } from './entropy.ts';
export {
  CHARACTER_CLASSES,
  effectiveMinimum,
  AMBIGUOUS_CHARACTERS,
  SEPARATORS,
  RANDOM_SEPARATORS,
  type CharacterClass,
} from './charsets.ts';
export { WORD_LISTS } from './wordlists.ts';
export { REJECTION_ACCEPTANCE, type Sampler, type SpecPlan } from './sample.ts';
export type { ErrorBody } from './error-body.ts';
export { didYouMean, nearestNames } from './suggest.ts';
