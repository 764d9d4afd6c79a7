/**
 * The request layer: what interprets a generate request on top of the generator core. It checks
 * the JSON against the schema and the rules between option values (validate.ts), resolves a
 * named policy, applies the entropy floor (`minBits` and the service's), keeps plans in the
 * caller's store, and draws `count` values: `generate()`, the one entry point the server and the
 * browser's `window.ServiceAPI` share. It is not in lib/core because the core is generation
 * only (tier 1 and the site-rules tier, lib/core/index.ts); it is browser-safe like the core.
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
export {
  PLAIN_NAME,
  validateRequest,
  type ErrorBody,
  type PasswordOptions,
  type PassphraseOptions,
} from './validate.ts';
export { ENTROPY_FLOOR_META, MAX_MIN_BITS, parseEntropyFloor } from './_entropy-floor.ts';
