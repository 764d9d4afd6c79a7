/**
 * The live description served at `GET /generate` and returned by `ServiceAPI.describe()`.
 * Every option, type, default, bound and enum is read from the request schema; the rest from
 * the same constants the generator and the server use, so none of it can drift.
 * @module
 */
import { requestSchema } from '../generated/schema.generated.ts';
import { AMBIGUOUS_CHARACTERS, CHARACTER_CLASSES } from './charsets.ts';
import { STRENGTH_LEVELS } from './entropy.ts';
import { BODY_LIMIT_BYTES, DEFAULT_RATE_LIMIT_PER_MINUTE } from './limits.ts';
import { DROPPED_WORDS, SEPARATORS, WORDLIST, WORDLIST_NAME } from './passphrase.ts';

export interface DescribeSettings {
  /** Requests per minute per client (the server's configured RATE_LIMIT_PER_MINUTE). */
  rateLimitPerMinute?: number;
}

type Json = { [key: string]: unknown };

const FIELD_KEYS = ['type', 'default', 'minimum', 'maximum', 'maxLength', 'enum', 'description'] as const;

function fieldOf(schema: Json): Json {
  const out: Json = {};
  // Copies, so a caller that edits the description cannot edit the schema the validator reads.
  for (const key of FIELD_KEYS) if (schema[key] !== undefined) out[key] = structuredCloneJson(schema[key]);
  return out;
}

function fieldsOf(properties: Record<string, Json>): Json {
  const out: Json = {};
  for (const [name, schema] of Object.entries(properties)) out[name] = fieldOf(schema);
  return out;
}

function structuredCloneJson<T>(value: T): T {
  return typeof value === 'object' && value !== null ? (JSON.parse(JSON.stringify(value)) as T) : value;
}

export function describe(settings: DescribeSettings = {}): Json {
  const perMinute = settings.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  const { properties, $defs } = requestSchema;
  return {
    service: 'credential-generator',
    endpoint: { method: 'POST', path: '/generate', auth: 'X-Api-Key header', contentType: 'application/json' },
    request: {
      mode: { ...fieldOf(properties.mode), required: true },
      count: fieldOf(properties.count),
      options: fieldOf(properties.options),
    },
    modes: {
      password: {
        description: $defs.PasswordOptions.description,
        options: fieldsOf($defs.PasswordOptions.properties),
        characterClasses: CHARACTER_CLASSES.map((c) => ({
          name: c.name,
          option: c.option,
          characters: c.chars,
          size: c.chars.length,
        })),
        ambiguousCharacters: AMBIGUOUS_CHARACTERS,
        rules: [
          'every enabled class appears at least once (whole-password redraw, uniform over the valid set)',
          'no class enabled, an enabled class emptied by exclusions, or a pool under 2 characters is a 400',
        ],
        entropy:
          'bits = log2 |V|, V = strings of the length over the pool holding >= 1 of each enabled class (inclusion-exclusion, exact)',
      },
      passphrase: {
        description: $defs.PassphraseOptions.description,
        options: fieldsOf($defs.PassphraseOptions.properties),
        separators: { ...SEPARATORS },
        wordlist: {
          name: WORDLIST_NAME,
          size: WORDLIST.length,
          sourceSize: WORDLIST.length + DROPPED_WORDS.length,
          excludedWords: [...DROPPED_WORDS],
          bitsPerWord: Math.round(Math.log2(WORDLIST.length) * 1000) / 1000,
          credit: 'EFF large wordlist by the Electronic Frontier Foundation, https://www.eff.org/dice',
          license: 'CC BY 3.0 US',
        },
        entropy: 'bits = wordCount x log2(7772), + log2(100) = 6.644 with addNumber; capitalize and separator add 0',
      },
    },
    entropy: {
      method:
        'log2 of the number of equally likely outputs for the options (exact for this generator), rounded to 2 decimals; label from the unrounded bits',
      labels: STRENGTH_LEVELS.map((s) => ({ ...s })),
    },
    limits: {
      count: { minimum: properties.count.minimum, maximum: properties.count.maximum },
      bodyBytes: BODY_LIMIT_BYTES,
      rateLimit: {
        requestsPerMinute: perMinute,
        algorithm: `token bucket per client IP: burst of ${perMinute}, refilled continuously at ${perMinute} per 60 s; a batch uses one slot`,
      },
    },
  };
}
