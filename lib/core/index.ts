/**
 * The generator core's one public face: every module outside lib/core imports the core from here
 * or from the site rules' own entry (lib/core/rules/index.ts); tests/spec/import-graph.test.ts
 * holds that. The core is generation only and browser-safe (no `node:` imports): the random
 * source, the exact engine and its plan path (engine.ts, sample.ts; docs/engine.md), passwords,
 * passphrases with their word lists and length bounds, and their entropy. Interpreting a request
 * (validation, named policies, the entropy floor, `count`, the plan store, `generate()`) is the
 * request layer above it (lib/request/); the service's own numbers and `describe()` are facts
 * about the service (lib/service/).
 * @module
 */
export { createRandom, defaultRandom, type FillRandom, type RandomSource } from './random.ts';
export {
  planPassword,
  generatePasswords,
  isPlan,
  passwordPlanKey,
  type PasswordPlan,
  type PasswordMetadata,
} from './password.ts';
export {
  planPassphrase,
  generatePassphrases,
  isPassphrasePlan,
  passphrasePlanKey,
  PASSPHRASE_PLAN_BYTES,
  WORDLIST,
  DROPPED_WORDS,
  SEPARATORS,
  RANDOM_SEPARATORS,
  type PassphrasePlan,
  type PassphraseMetadata,
} from './passphrase.ts';
export { STRENGTH_LEVELS, strength, passphraseBits, type Entropy, type StrengthLevel } from './entropy.ts';
export {
  CHARACTER_CLASSES,
  effectiveMinimum,
  AMBIGUOUS_CHARACTERS,
  SEPARATOR_SETS,
  GAP_CHARACTERS,
  IDEOGRAPHIC_SPACE,
  type CharacterClass,
  type ClassName,
} from './charsets.ts';
export { WORD_LISTS, type WordList, type WordListId } from './wordlists.ts';
export { REJECTION_ACCEPTANCE, type Sampler, type SpecPlan } from './sample.ts';
export type { ErrorBody } from './error-body.ts';
export { didYouMean, nearestNames } from './suggest.ts';
