/**
 * The numbers the service runs with, read from their sources: the request schema file (the
 * one the validator is compiled from) for the option bounds and defaults, and lib/core's
 * constants for the rest. Tests state expectations with these rather than with literals, so a
 * figure exists once; tests/spec/contract-numbers.test.ts compares this object with the
 * contract's pinned values (tests/helpers/contract-numbers.ts).
 * @module
 */
import { readFileSync } from 'node:fs';
import { DROPPED_WORDS, WORDLIST } from '../../lib/core/index.ts';
import { BODY_LIMIT_BYTES, DEFAULT_RATE_LIMIT_PER_MINUTE } from '../../lib/service/limits.ts';

export interface Bounds {
  minimum: number;
  maximum: number;
  default: number;
}

interface RequestSchemaFile {
  properties: { count: Bounds };
  $defs: {
    PasswordOptions: { properties: { length: Bounds } & Record<string, object> };
    PassphraseOptions: { properties: { wordCount: Bounds } };
  };
}

const schema = JSON.parse(
  readFileSync(new URL('../../spec/generate-request.schema.json', import.meta.url), 'utf8'),
) as RequestSchemaFile;

const bounds = ({ minimum, maximum, default: fallback }: Bounds): Bounds => ({ minimum, maximum, default: fallback });

export const LIMITS = Object.freeze({
  bodyBytes: BODY_LIMIT_BYTES,
  count: bounds(schema.properties.count),
  length: bounds(schema.$defs.PasswordOptions.properties.length),
  wordCount: bounds(schema.$defs.PassphraseOptions.properties.wordCount),
  rateLimitPerMinute: DEFAULT_RATE_LIMIT_PER_MINUTE,
  wordlist: { size: WORDLIST.length, sourceSize: WORDLIST.length + DROPPED_WORDS.length },
});

/** The options of mode password that carry a schema default, in the schema's order: the seven
 * basic ones (length, the four classes, avoidAmbiguous, excludedCharacters). */
export const PASSWORD_BASIC_OPTIONS: readonly string[] = Object.freeze(
  Object.entries(schema.$defs.PasswordOptions.properties)
    .filter(([, option]) => 'default' in option)
    .map(([name]) => name),
);

/** `8 to 128`: a range as the descriptions and the page write it. */
export const span = (b: Bounds): string => `${b.minimum} to ${b.maximum}`;
