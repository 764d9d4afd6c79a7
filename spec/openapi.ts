/**
 * The OpenAPI 3.1 document served at `GET /openapi.json`, built from the three schema files in
 * `spec/` (copied verbatim into `components.schemas`, so the document cannot drift from the
 * validator), the live description (`describe()`), the strength table and the limits. Every
 * figure its prose and examples state is computed from those same sources (see "Figures").
 * `spec/build.ts` writes it to `spec/openapi.json`; `--check` fails when the committed copy is
 * stale, and tests/spec/openapi.test.ts checks the copies deep-equal their sources.
 *
 * Scope note: 404 (unknown path) and 405 (known path, other method) are answered for paths and
 * methods that have no operation, so OpenAPI has nowhere exact to put them. 405 is listed on
 * every operation (as "another method on this path"), 404 on `/postman/{file}`, and both are
 * in `components.responses` and the info description.
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AMBIGUOUS_CHARACTERS,
  CHARACTER_CLASSES,
  DROPPED_WORDS,
  RANDOM_SEPARATORS,
  SEPARATORS,
  STRENGTH_LEVELS,
  WORDLIST,
  WORD_LISTS,
  passphraseBits,
  planPassword,
  strength,
  type PasswordPlan,
} from '../lib/core/index.ts';
import { generate, MAX_MIN_BITS } from '../lib/request/index.ts';
import { withPasswordOptionsDefaults } from '../lib/generated/options.generated.ts';
import { describe } from '../lib/service/describe.ts';
import { BODY_LIMIT_BYTES, DEFAULT_RATE_LIMIT_PER_MINUTE, MAX_RATE_LIMIT_PER_MINUTE } from '../lib/service/limits.ts';
import { POSTMAN_FILES } from '../lib/http/assets.ts';
import { ERRORS, badJsonBody, duplicateMemberBody, rateLimitedBody } from '../lib/http/errors.ts';
import { JSON_CSP, WWW_AUTHENTICATE, policyOf } from '../lib/http/headers.ts';

type Json = { [key: string]: unknown };

const SPEC_DIR = fileURLToPath(new URL('.', import.meta.url));

/** Schema file -> the name it gets in `components.schemas` (its `title`). */
export const SCHEMA_FILES = {
  GenerateRequest: 'generate-request.schema.json',
  GenerateResponse: 'generate-response.schema.json',
  ErrorBody: 'error.schema.json',
} as const;

function readSchema(file: string): Json {
  return JSON.parse(readFileSync(join(SPEC_DIR, file), 'utf8')) as Json;
}

/** Rewrites every `$ref` that starts with `from` to start with `to` (a deep copy). */
export function rewriteRefs<T>(value: T, from: string, to: string): T {
  if (Array.isArray(value)) return (value as unknown[]).map((v) => rewriteRefs(v, from, to)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] =
      k === '$ref' && typeof v === 'string' && v.startsWith(from)
        ? to + v.slice(from.length)
        : rewriteRefs(v, from, to);
  }
  return out as T;
}

export const DEFS_REF = '#/$defs/';
export const COMPONENTS_REF = '#/components/schemas/';

/**
 * The three schema files as `components.schemas`. Each file's `$defs` are hoisted to their own
 * components and its `#/$defs/X` refs rewritten to `#/components/schemas/X`; `$schema` and `$id`
 * are dropped (the document's `jsonSchemaDialect` is 2020-12). Why: with `$id` kept, a
 * `#/$defs/X` ref is correct JSON Schema but redocly and the Postman/Insomnia importers resolve
 * it against the document root and fail. Nothing else changes, so the copy is the file: the
 * tests undo exactly this and compare with the file.
 */
export function embeddedSchemas(): Json {
  const out: Json = {};
  const hoisted: Json = {};
  for (const [name, file] of Object.entries(SCHEMA_FILES)) {
    const { $schema: _schema, $id: _id, $defs, ...rest } = readSchema(file);
    out[name] = rewriteRefs(rest, DEFS_REF, COMPONENTS_REF);
    for (const [defName, def] of Object.entries(($defs ?? {}) as Json)) {
      if (defName in hoisted || defName in SCHEMA_FILES) throw new Error(`schema name clash: ${defName} (${file})`);
      hoisted[defName] = rewriteRefs(def, DEFS_REF, COMPONENTS_REF);
    }
  }
  return { ...out, ...hoisted };
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

// ---------------------------------------------------------------------------------------------
// Figures. Every number the document states is computed here from what the server runs with:
// the request schema file (the one embedded above), the word list, the character classes, the
// limits and the entropy functions, so the prose cannot state one bound while the validator
// enforces another. The contract's values themselves are pinned once, literally, in
// tests/helpers/contract-numbers.ts.

interface Bounds {
  minimum: number;
  maximum: number;
  default: number;
}
interface RequestSchemaFile {
  properties: { count: Bounds; minBits: Bounds };
  $defs: {
    PasswordOptions: {
      properties: Record<string, { default?: unknown }> & {
        length: Bounds;
        passwordRules: { maxLength: number };
        minNumbers: Omit<Bounds, 'default'>;
        minClasses: Omit<Bounds, 'default'>;
        maxRepeating: Omit<Bounds, 'default'>;
        firstCharacter: { minItems: number; maxItems: number };
      };
    };
    PassphraseOptions: { properties: { wordCount: Bounds; maxLength: Bounds } };
  };
}
const REQUEST_SCHEMA = readSchema(SCHEMA_FILES.GenerateRequest) as unknown as RequestSchemaFile;
const COUNT = REQUEST_SCHEMA.properties.count;
const MIN_BITS = REQUEST_SCHEMA.properties.minBits;
const RULES_MAX_LENGTH = REQUEST_SCHEMA.$defs.PasswordOptions.properties.passwordRules.maxLength;
const PASSWORD_OPTIONS = REQUEST_SCHEMA.$defs.PasswordOptions.properties;
const LENGTH = PASSWORD_OPTIONS.length;
const WORD_COUNT = REQUEST_SCHEMA.$defs.PassphraseOptions.properties.wordCount;
const PASSPHRASE_LENGTH = REQUEST_SCHEMA.$defs.PassphraseOptions.properties.maxLength;
const LISTS = Object.values(WORD_LISTS);
/** The sizes of the lists, each once: 7,772 (the EFF list) and 2,048 (every BIP-39 list). */
const LIST_SIZES = [...new Set(LISTS.map((l) => l.words.length))];

/** `minimum to maximum`, as the limits are written. */
const span = (b: Bounds): string => `${b.minimum} to ${b.maximum}`;
/** The same for a bound without a default (the password constraints have none). */
const span2 = (b: Omit<Bounds, 'default'>): string => `${b.minimum} to ${b.maximum}`;
/** The body limit in the unit people state it in (1 KB = 1,024 bytes). */
const BODY_LIMIT_KB = `${BODY_LIMIT_BYTES / 1024} KB`;
const WORDS = WORDLIST.length;
/** addNumber adds log2 of the number of suffixes; 2 to that power, rounded, is their count. */
const NUMBER_BITS = passphraseBits(WORDS, 0, true);
const NUMBER_SUFFIXES = Math.round(2 ** NUMBER_BITS);
/** The longest separator, the bound of `separators` values in the description schema. */
const SEPARATOR_MAX_LENGTH = Math.max(...Object.values(SEPARATORS).map((sep) => sep.length));
const LEVEL_NUMBERS = STRENGTH_LEVELS.map((s) => s.level);
const SECONDS_PER_MINUTE = 60;
/** Seconds, rounded up, for one request's slot to refill at the default rate: a bucket one
 * request below full reports this as its reset, an empty one as its Retry-After. */
const ONE_SLOT_SECONDS = Math.ceil(SECONDS_PER_MINUTE / DEFAULT_RATE_LIMIT_PER_MINUTE);
const fixed2 = (bits: number): string => strength(bits).bits.toFixed(2);

/** `abc...z` -> `a-z` for a class that is one run of characters; other classes by name. */
function classShown(c: (typeof CHARACTER_CLASSES)[number]): string {
  const run = [...c.chars].every((ch, i) => i === 0 || ch.charCodeAt(0) === c.chars.charCodeAt(i - 1) + 1);
  return run ? `${c.chars[0]}-${c.chars[c.chars.length - 1]}` : c.name;
}
/** The classes a request without options uses. */
const DEFAULT_CLASSES = CHARACTER_CLASSES.filter((c) => PASSWORD_OPTIONS[c.option]?.default === true);
/** `24 characters a-z A-Z 0-9`: the password a request without options gets. */
const DEFAULT_PASSWORD = `${LENGTH.default} characters ${DEFAULT_CLASSES.map(classShown).join(' ')}`;
const DEFAULT_PASSWORD_BITS = fixed2((planPassword(withPasswordOptionsDefaults(undefined)) as PasswordPlan).bits);

// ---------------------------------------------------------------------------------------------
// Examples. Values are realistic in shape and obviously fake in content; entropy and metadata
// are the generator's own for the example's options. Every example validates against its
// schema (redocly's no-invalid-media-type-examples and the tests check that).

/** The bits the generator gives for `input`. */
function acceptedBodyBits(input: object): number {
  return (acceptedBody(input).entropy as { bits: number }).bits;
}

/** The 200 body the generator gives for `input` (its values are never shown). */
function acceptedBody(input: object): { mode: string; count: number; entropy: Json; metadata: Json } {
  const outcome = generate(input);
  if (outcome.status !== 200)
    throw new Error(`example ${JSON.stringify(input)} is rejected: ${JSON.stringify(outcome.body)}`);
  return outcome.body as unknown as { mode: string; count: number; entropy: Json; metadata: Json };
}
/** A credential with a fake value and the generator's entropy and metadata for `input`. */
function exampleCredential(input: object, value: string): Json {
  const { entropy, metadata } = acceptedBody(input);
  return { value, entropy, metadata };
}

const PASSWORD_OPTIONS_EXAMPLE = {
  mode: 'password',
  options: { length: 32, includeSymbols: true, avoidAmbiguous: true, excludedCharacters: '{}' },
};
const PASSPHRASE_EXAMPLE = {
  mode: 'passphrase',
  options: { wordCount: WORD_COUNT.default, separator: 'hyphen', capitalize: true, addNumber: true },
};
/** A site's rules as a sign-up form might declare them, and the password request made to them. */
const SITE_RULES = 'minlength: 12; maxlength: 20; required: lower; required: upper; required: digit; allowed: [-_!]';
const RULES_EXAMPLE = { mode: 'password', options: { passwordRules: SITE_RULES } };
const DIGITS_EXAMPLE = { mode: 'passphrase', options: { wordCount: 5, separator: 'digit' } };
/** A Japanese passphrase for a field of at most 16 characters. */
const LIST_EXAMPLE = { mode: 'passphrase', options: { wordList: 'bip39-japanese', separator: 'space', maxLength: 16 } };
/** Password constraints (issue 30), as a database's password policy might ask for them. */
const CONSTRAINTS_EXAMPLE = {
  mode: 'password',
  options: {
    length: 16,
    includeSymbols: true,
    minNumbers: 2,
    minSymbols: 2,
    firstCharacter: ['lowercase', 'uppercase'],
    maxRepeating: 2,
  },
};
/** A floor the default passphrase (4 words) does not meet: its refusal is the minBits example. */
const MIN_BITS_EXAMPLE = { mode: 'passphrase', minBits: 64 };
const passwordCredential = exampleCredential({ mode: 'password' }, 'EXAMPLExonly7NOTxREAL2pw');
const rulesCredential = exampleCredential(RULES_EXAMPLE, 'EXAMPLE-only7NOTreal');
/** The hand vector of docs/password-rules.md, as the generator states it. */
const RULES_VECTOR_BITS = (
  acceptedBody({
    mode: 'password',
    options: { length: 16, passwordRules: 'required: upper; required: lower; required: digit; required: special' },
  }).entropy as { bits: number }
).bits.toFixed(2);
const digitsCredential = exampleCredential(DIGITS_EXAMPLE, 'crane4oyster0plaza7sprint2ledger');
const listCredential = exampleCredential(LIST_EXAMPLE, 'あさひ\u3000あおぞら\u3000あずき\u3000あそぶ');
const passphraseCredential = exampleCredential(PASSPHRASE_EXAMPLE, 'Crane-Oyster-Plaza-Sprint-07');
const batchValues = ['Crane-Oyster-Plaza-Sprint-07', 'Maple-Tunnel-Frost-Ledger-42', 'Pebble-Violin-Ember-Quota-13'];
const batchCredential = (value: string) => ({ ...passphraseCredential, value });

function responseOf(mode: string, results: Json[]): Json {
  const [first] = results;
  return { mode, count: results.length, value: first.value, entropy: first.entropy, metadata: first.metadata, results };
}

const errorExample = (summary: string, value: object) => ({ summary, value });
/** The exact 400 body the generator gives for this input (so the example cannot drift). */
const rejectionOf = (input: unknown): object => generate(input).body;

// ---------------------------------------------------------------------------------------------

function labelTable(): string {
  const rows = STRENGTH_LEVELS.map((s) => {
    const range =
      s.maxBits === null ? `>= ${s.minBits}` : s.minBits === 0 ? `< ${s.maxBits}` : `${s.minBits} to < ${s.maxBits}`;
    return `| ${s.level} | ${s.label} | ${range} |`;
  });
  return ['| level | label | bits (unrounded) |', '|---|---|---|', ...rows].join('\n');
}

/** The rate-limit headers' example: a client at the default rate, just after its first request. */
const AFTER_ONE_REQUEST = { remaining: DEFAULT_RATE_LIMIT_PER_MINUTE - 1, reset: ONE_SLOT_SECONDS };

function headerComponents(): Json {
  // `required: true` means "always present on the responses that list it"; the contract
  // tests check exactly that against the running server.
  const str = (description: string, examples: unknown[], extra: Json = {}) => ({
    description,
    required: true,
    schema: { type: 'string', maxLength: 512, examples, ...extra },
  });
  const int = (description: string, example: number, minimum = 0) => ({
    description,
    required: true,
    schema: { type: 'integer', minimum, maximum: MAX_RATE_LIMIT_PER_MINUTE, examples: [example] },
  });
  return {
    'X-RateLimit-Limit': int(
      `Bucket capacity: requests per minute per client (RATE_LIMIT_PER_MINUTE, default ${DEFAULT_RATE_LIMIT_PER_MINUTE}).`,
      DEFAULT_RATE_LIMIT_PER_MINUTE,
      1,
    ),
    'X-RateLimit-Remaining': int('Whole requests left in the bucket now.', AFTER_ONE_REQUEST.remaining),
    'X-RateLimit-Reset': int(
      'Seconds, rounded up, until the bucket is full again (0 when it is full).',
      AFTER_ONE_REQUEST.reset,
    ),
    'RateLimit-Policy': str(
      `IETF draft field (draft-ietf-httpapi-ratelimit-headers): the policy, \`q\` requests per \`w\` = ${SECONDS_PER_MINUTE} seconds, the same numbers as X-RateLimit-Limit.`,
      [policyOf(DEFAULT_RATE_LIMIT_PER_MINUTE)],
    ),
    RateLimit: str(
      'IETF draft field: `r` remaining and `t` seconds to full, the same numbers as X-RateLimit-Remaining and X-RateLimit-Reset.',
      [`"client";r=${AFTER_ONE_REQUEST.remaining};t=${AFTER_ONE_REQUEST.reset}`],
    ),
    'Retry-After': int('On 429 only: seconds, rounded up, until one request is allowed again.', ONE_SLOT_SECONDS, 1),
    'Cache-Control': str('Every response: nothing is cached by browsers or proxies.', ['no-store'], {
      const: 'no-store',
    }),
    'X-Content-Type-Options': str('Every response.', ['nosniff'], { const: 'nosniff' }),
    'Referrer-Policy': str('Every response.', ['no-referrer'], { const: 'no-referrer' }),
    'Cross-Origin-Resource-Policy': str('Every response.', ['same-origin'], { const: 'same-origin' }),
    'Content-Security-Policy': str(
      "Every response. JSON: `default-src 'none'; frame-ancestors 'none'`; the home page has its own strict policy (no inline script or style, `connect-src 'none'`).",
      [JSON_CSP],
    ),
    'WWW-Authenticate': str('On 401: the scheme to use (the X-Api-Key header).', [WWW_AUTHENTICATE]),
    Allow: str('On 405: the methods this path supports.', ['GET, HEAD']),
    'Content-Disposition': str('Postman files are offered as downloads under their own name.', [
      'attachment; filename="credential-generator.postman_collection.json"',
    ]),
    'X-Frame-Options': str('The home page may not be framed.', ['DENY'], { const: 'DENY' }),
    'X-Request-Id': str(
      "Every response: the id of the request's log line. Fresh (16 base64url characters, 96 random bits), or the one a trusted proxy sent (TRUST_PROXY_HOPS > 0; 1 to 128 characters of A-Z a-z 0-9 . _ -).",
      ['q2bXv8dJ0s1TzU3c'],
      { pattern: '^[A-Za-z0-9._-]{1,128}$' },
    ),
  };
}

const COMMON_HEADERS = [
  'Cache-Control',
  'X-Content-Type-Options',
  'Referrer-Policy',
  'Cross-Origin-Resource-Policy',
  'Content-Security-Policy',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'X-Request-Id',
] as const;

/** The headers of a response: the common set plus any extra names. */
function headers(...extra: string[]): Json {
  const out: Json = {};
  for (const name of [...COMMON_HEADERS, ...extra]) out[name] = ref('headers', name);
  return out;
}

function errorResponse(description: string, examples: Record<string, object>, ...extraHeaders: string[]): Json {
  return {
    description,
    headers: headers(...extraHeaders),
    content: { 'application/json': { schema: ref('schemas', 'ErrorBody'), examples } },
  };
}

function responseComponents(): Json {
  return {
    BadRequest: errorResponse(
      'The request is invalid: wrong or missing `Content-Type: application/json` or a charset other than UTF-8, malformed JSON (the reply gives the line and column of the first error), a member name given twice in one object, a value of the wrong type or out of range, an unknown field, an option of the other mode, a site rule that cannot be read or met, or options whose exact entropy is below the floor (`field` is `minBits`). One error at a time, the first found; `field` names it. Nothing is clamped or replaced by a default.',
      {
        badLength: errorExample(
          'Length out of range',
          rejectionOf({ mode: 'password', options: { length: LENGTH.minimum - 1 } }),
        ),
        badCount: errorExample('Batch too large', rejectionOf({ mode: 'password', count: COUNT.maximum + 1 })),
        contentType: errorExample('Wrong Content-Type', ERRORS.badContentType),
        charset: errorExample('A charset other than UTF-8', ERRORS.badCharset),
        wrongMode: errorExample(
          'Option of the other mode',
          rejectionOf({ mode: 'password', options: { wordCount: WORD_COUNT.default } }),
        ),
        belowMinBits: errorExample(
          'Options below the entropy floor (minBits, or the service floor limits.minEntropyBits)',
          rejectionOf(MIN_BITS_EXAMPLE),
        ),
        rulesSyntax: errorExample(
          'A site rule the parser refuses (the token and its position)',
          rejectionOf({ mode: 'password', options: { passwordRules: 'minlength: 12; required: lowercase' } }),
        ),
        noPassphraseFits: errorExample(
          'No passphrase of the options is short enough (the bound, and the lengths the options make)',
          rejectionOf({ mode: 'passphrase', options: { maxLength: 12 } }),
        ),
        capitalizeWithoutCase: errorExample(
          'capitalize with a list whose words have no letter case',
          rejectionOf({ mode: 'passphrase', options: { wordList: 'bip39-korean', capitalize: true } }),
        ),
        minimumsAboveLength: errorExample(
          'Class minimums that sum above length (the option named is the last minimum that pushes the sum over)',
          rejectionOf({
            mode: 'password',
            options: { length: 12, includeSymbols: true, minNumbers: 6, minSymbols: 6 },
          }),
        ),
        constraintClassLeftOut: errorExample(
          'A minimum for a class the request does not include (includeSymbols is false by default)',
          rejectionOf({ mode: 'password', options: { minSymbols: 2 } }),
        ),
        rulesCombined: errorExample(
          'passwordRules beside an option it replaces',
          rejectionOf({ mode: 'password', options: { passwordRules: SITE_RULES, includeSymbols: true } }),
        ),
        badJson: errorExample('Not JSON (where the first error is, never the text)', badJsonBody(1, 9)),
        duplicateMember: errorExample(
          'A member name given twice (`{"mode":"password","mode":"passphrase"}`): ambiguous, so refused',
          duplicateMemberBody('mode'),
        ),
      },
    ),
    Unauthorized: errorResponse(
      'The `X-Api-Key` header is missing, duplicated, malformed, unknown or revoked (all the same reply). Nothing is generated. A request with an `Authorization` header and no `X-Api-Key` gets the same reply with a hint to use `X-Api-Key` (it depends on which headers were sent, never on a key).',
      {
        missingKey: errorExample('No or wrong key', ERRORS.unauthorized),
        authorization: errorExample('A key sent as Authorization: Bearer', ERRORS.unauthorizedBearer),
      },
      'WWW-Authenticate',
    ),
    NotFound: errorResponse(
      'No such path (paths match exactly: `/generate/` is 404), or no such file under `/postman/`.',
      { notFound: errorExample('Unknown path', ERRORS.notFound) },
    ),
    MethodNotAllowed: errorResponse(
      'The path exists but not with this method. Any method a path does not list (e.g. PUT or DELETE) gets 405; `Allow` names the ones it supports (HEAD works wherever GET does).',
      { methodNotAllowed: errorExample('Wrong method', ERRORS.methodNotAllowed) },
      'Allow',
    ),
    PayloadTooLarge: errorResponse(
      `The body is larger than ${BODY_LIMIT_BYTES} bytes (${BODY_LIMIT_KB}). A declared Content-Length above it is refused before reading; a chunked body is cut at the first byte past the limit. The connection is closed after this reply.`,
      { tooLarge: errorExample(`Body over ${BODY_LIMIT_KB}`, ERRORS.tooLarge) },
    ),
    TooManyRequests: errorResponse(
      'The client (IP address) has used its requests for now: with a valid key, or without a key, or with keys that failed (each has its own bucket). Wait `Retry-After` seconds; the message gives the same figure. A 429 does not consume a slot.',
      { rateLimited: errorExample('Rate limit', rateLimitedBody(3)) },
      'Retry-After',
    ),
    ServiceUnavailable: errorResponse(
      'The server has no API key configured, so requests needing a key cannot be served. The operator must configure `API_KEYS_FILE` or `API_KEY`.',
      { noKeyConfigured: errorExample('No key configured', ERRORS.noKeyConfigured) },
    ),
  };
}

/** Schema of the `GET /generate` body (the output of `describe()`); the top level is pinned. */
function describeSchema(): Json {
  const level = {
    type: 'object',
    required: ['level', 'label', 'minBits', 'maxBits'],
    additionalProperties: false,
    properties: {
      level: { type: 'integer', minimum: Math.min(...LEVEL_NUMBERS), maximum: Math.max(...LEVEL_NUMBERS) },
      label: { type: 'string', enum: STRENGTH_LEVELS.map((s) => s.label) },
      minBits: { type: 'number', minimum: 0, description: 'Inclusive lower bound in bits.' },
      maxBits: {
        description: 'Exclusive upper bound in bits; null for the top level.',
        anyOf: [{ type: 'number', minimum: 0 }, { type: 'null' }],
      },
    },
  };
  const text = { type: 'string', maxLength: 1024 };
  // A field as describe() lists it: the keywords it copies from the request schema, those the
  // field has. Typed, so that a generated client reads `options.length.maximum` as a number.
  const field = {
    type: 'object',
    additionalProperties: false,
    properties: {
      type: { type: 'string', enum: ['integer', 'number', 'boolean', 'string', 'object', 'array'] },
      default: { description: 'The value the field takes when it is omitted.' },
      minimum: { type: 'number' },
      maximum: { type: 'number' },
      maxLength: { type: 'integer', minimum: 0 },
      enum: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 32 } },
      minItems: { description: 'A list: at least this many items.', type: 'integer', minimum: 0 },
      maxItems: { description: 'A list: at most this many items.', type: 'integer', minimum: 0 },
      uniqueItems: { description: 'A list: true when each item may appear once.', type: 'boolean' },
      items: {
        description: 'A list: what each item is.',
        type: 'object',
        additionalProperties: false,
        properties: {
          type: { type: 'string', enum: ['string'] },
          enum: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 32 } },
        },
      },
      description: text,
      required: { type: 'boolean', description: 'true on mode, the one field every request needs.' },
    },
  };
  const fields = {
    description: 'Option name -> its type, default, bounds, enum and description, read from the request schema.',
    type: 'object',
    additionalProperties: field,
  };
  const object = (properties: Json, extra: Json = {}) => ({
    type: 'object',
    required: Object.keys(properties),
    properties,
    ...extra,
  });
  const mode = (properties: Json) => object({ description: text, options: fields, ...properties, entropy: text });
  /** One entry of wordLists (every list is required, so a list dropped from describe() fails the contract). */
  const wordList = object({
    name: { type: 'string', maxLength: 64 },
    language: { type: 'string', maxLength: 64 },
    size: { type: 'integer', enum: LIST_SIZES },
    sourceSize: { type: 'integer', enum: [...new Set(LISTS.map((l) => l.sourceSize))] },
    excludedWords: {
      description: 'Words of the file left out: they hold a character a separator can put in a gap.',
      type: 'array',
      maxItems: Math.max(...LISTS.map((l) => l.excludedWords.length)),
      items: { type: 'string', maxLength: 16 },
    },
    bitsPerWord: { type: 'number', minimum: 0 },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    letterCase: {
      description: 'false: the words have no letter case, and capitalize is a 400.',
      type: 'boolean',
    },
    space: {
      description: 'The character separator space puts in each gap (U+3000 for Japanese).',
      type: 'string',
      maxLength: 1,
    },
    license: { type: 'string', maxLength: 64 },
    source: text,
  });
  return {
    title: 'GeneratorDescription',
    description:
      'Every option, default and limit this server supports, derived from the request schema and the server constants. The same object as `ServiceAPI.describe()` in the browser (whose rate limit is the default).',
    type: 'object',
    required: ['service', 'endpoint', 'request', 'policies', 'modes', 'entropy', 'limits'],
    additionalProperties: false,
    properties: {
      service: { type: 'string', const: 'credential-generator' },
      endpoint: object({
        method: { type: 'string', const: 'POST' },
        path: { type: 'string', const: '/generate' },
        auth: text,
        contentType: { type: 'string', const: 'application/json' },
      }),
      request: object({ mode: field, count: field, minBits: field, options: field, policy: field }),
      policies: {
        description:
          'The named policies of this server (POLICIES_FILE), in file order; empty without one. A request `{"mode": <its mode>, "policy": <its name>}` generates with the policy\'s stored options. Each with its exact entropy, computed when the file was loaded.',
        type: 'array',
        maxItems: 256,
        items: object(
          {
            name: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' },
            mode: { type: 'string', enum: ['password', 'passphrase'] },
            description: { anyOf: [{ type: 'string', maxLength: 200 }, { type: 'null' }] },
            entropy: ref('schemas', 'Entropy'),
          },
          { additionalProperties: false },
        ),
      },
      modes: object(
        {
          password: mode({
            characterClasses: {
              type: 'array',
              maxItems: CHARACTER_CLASSES.length,
              items: object({
                name: { type: 'string', maxLength: 32 },
                option: { type: 'string', maxLength: 32 },
                characters: { type: 'string', maxLength: 64 },
                size: { type: 'integer', minimum: 1, maximum: 64 },
              }),
            },
            ambiguousCharacters: { type: 'string', maxLength: 64 },
            rules: { type: 'array', maxItems: 16, items: text },
            passwordRules: object({
              syntax: text,
              identifiers: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 32 } },
              maxLength: { type: 'integer', const: RULES_MAX_LENGTH },
              maxRequiredSets: { type: 'integer', minimum: 1 },
              lengths: object({
                minimum: { type: 'integer', const: LENGTH.minimum },
                maximum: { type: 'integer', const: LENGTH.maximum },
                default: { type: 'integer', minimum: LENGTH.minimum, maximum: LENGTH.maximum },
              }),
              exclusiveWith: { type: 'array', maxItems: 32, items: { type: 'string', maxLength: 32 } },
              rules: { type: 'array', maxItems: 16, items: text },
              entropy: text,
            }),
          }),
          passphrase: mode({
            separators: { type: 'object', additionalProperties: { type: 'string', maxLength: SEPARATOR_MAX_LENGTH } },
            randomSeparators: {
              description: 'Separators drawn per gap: name -> the characters each gap is drawn from, uniformly.',
              type: 'object',
              additionalProperties: { type: 'string', maxLength: 64 },
            },
            wordlist: object(
              {
                name: { type: 'string', maxLength: 64 },
                size: { type: 'integer', const: WORDS },
                sourceSize: { type: 'integer', const: WORDS + DROPPED_WORDS.length },
                excludedWords: {
                  type: 'array',
                  maxItems: DROPPED_WORDS.length,
                  items: { type: 'string', maxLength: 16 },
                },
                bitsPerWord: { type: 'number', minimum: 0 },
                credit: text,
                license: { type: 'string', maxLength: 64 },
              },
              {
                description:
                  "The default list (eff-large), as GET /generate described it before wordLists; kept for existing clients. wordLists['eff-large'] says the same and more.",
                deprecated: true,
              },
            ),
            wordLists: {
              description:
                'Every list of options.wordList, by its id: where it comes from, its size and SHA-256, and what it allows.',
              ...object(Object.fromEntries(LISTS.map((l) => [l.id, wordList])), { additionalProperties: false }),
            },
            lengths: text,
          }),
        },
        { additionalProperties: false },
      ),
      entropy: object(
        {
          method: text,
          labels: { type: 'array', minItems: STRENGTH_LEVELS.length, maxItems: STRENGTH_LEVELS.length, items: level },
          floor: text,
        },
        { additionalProperties: false },
      ),
      limits: object(
        {
          count: object({
            minimum: { type: 'integer', const: COUNT.minimum },
            maximum: { type: 'integer', const: COUNT.maximum },
          }),
          bodyBytes: { type: 'integer', const: BODY_LIMIT_BYTES },
          minEntropyBits: {
            description: "The service's entropy floor in bits (MIN_ENTROPY_BITS; 0: none).",
            type: 'number',
            minimum: 0,
            maximum: MAX_MIN_BITS,
          },
          rateLimit: object(
            { requestsPerMinute: { type: 'integer', minimum: 1 }, algorithm: text },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
    },
  };
}

function healthSchema(): Json {
  return {
    title: 'Health',
    description:
      'Liveness. `status` is always "ok" when the process answers; `version` and `sha256` say what is running; further fields may be added.',
    type: 'object',
    required: ['status'],
    properties: {
      status: { type: 'string', const: 'ok' },
      version: { description: 'The package version.', type: 'string', maxLength: 64 },
      sha256: {
        description:
          'SHA-256 of the single file the process runs from, computed from the file itself at start (what the build wrote to credential-generator.mjs.sha256); null when run from the sources.',
        type: ['string', 'null'],
        pattern: '^[0-9a-f]{64}$',
      },
    },
  };
}

const READINESS_EXAMPLE = { status: 'ready', rateLimitStore: 'in-process' };

function readinessSchema(): Json {
  return {
    title: 'Readiness',
    description:
      'Whether the instance should get traffic, and where its rate-limit decisions are made. A probe answer, not an error body, also with 503.',
    type: 'object',
    required: ['status', 'rateLimitStore'],
    additionalProperties: false,
    properties: {
      status: {
        description:
          '`ready` (200); `draining` after SIGTERM or SIGINT, `no-key` while no key is configured (503 both).',
        enum: ['ready', 'draining', 'no-key'],
      },
      rateLimitStore: {
        description:
          '`in-process` (no Redis), `shared` (Redis answering) or `fallback` (Redis out: each instance limits on its own, and is still ready).',
        enum: ['in-process', 'shared', 'fallback'],
      },
      policies: {
        description:
          'Only with POLICIES_FILE: how many named policies are in use, and `stale` with the reason when the file as it is now was rejected (the last good set stays in use; the instance is still ready).',
        type: 'object',
        required: ['state', 'count'],
        additionalProperties: false,
        properties: {
          state: { enum: ['loaded', 'stale'] },
          count: { type: 'integer', minimum: 0 },
          reason: { type: 'string', maxLength: 2048 },
        },
      },
    },
  };
}

/** `wordCount x log2(7772)`, the passphrase formula as the descriptions write it. */
const WORDS_FORMULA = `wordCount x log2(${WORDS})`;
/** What addNumber adds, to 3 decimals (`6.644`), and with its origin (`+ log2(100) = 6.644`). */
const NUMBER_BITS_SHOWN = NUMBER_BITS.toFixed(3);
const NUMBER_TERM = `+ log2(${NUMBER_SUFFIXES}) = ${NUMBER_BITS_SHOWN}`;
/** `without its 4 hyphenated words`: the words left out of the EFF list, and why. */
const DROPPED = `without its ${DROPPED_WORDS.length} hyphenated words`;
/** The ten BIP-39 lists' ids, and their words' bits. */
const BIP39 = LISTS.filter((l) => l.id !== 'eff-large');
const BIP39_BITS = Math.log2(BIP39[0].words.length);
/** The passphrase that the length example asks for, and its figure. */
const LENGTH_EXAMPLE = { mode: 'passphrase', options: { wordList: 'bip39-english', wordCount: 6, maxLength: 30 } };

function infoDescription(): string {
  return [
    'Generates random passwords and passphrases with an exact entropy figure. Nothing generated is stored or logged, and every response is `Cache-Control: no-store`.',
    '',
    '## Limits',
    '',
    '| limit | value |',
    '|---|---|',
    `| requests per client IP | ${DEFAULT_RATE_LIMIT_PER_MINUTE} per minute (token bucket: burst of ${DEFAULT_RATE_LIMIT_PER_MINUTE}, refilled continuously; the operator may change it, \`GET /generate\` shows the live figure) |`,
    `| count (credentials per request) | ${span(COUNT)}; a batch uses one rate-limit slot |`,
    `| password length | ${span(LENGTH)} |`,
    `| passwordRules | at most ${RULES_MAX_LENGTH} characters; a given length must also lie inside the rule's minlength and maxlength |`,
    `| minLowercase, minUppercase, minNumbers, minSymbols | ${span2(PASSWORD_OPTIONS.minNumbers)} each, for included classes only; together at most length |`,
    `| minClasses | ${span2(PASSWORD_OPTIONS.minClasses)}, at most the number of included classes |`,
    `| firstCharacter, lastCharacter | ${PASSWORD_OPTIONS.firstCharacter.minItems} to ${PASSWORD_OPTIONS.firstCharacter.maxItems} distinct class names, each of an included class |`,
    `| maxRepeating, maxSequential | ${span2(PASSWORD_OPTIONS.maxRepeating)} |`,
    `| minBits (entropy floor) | ${span(MIN_BITS)} bits; the service's own floor (\`MIN_ENTROPY_BITS\`, \`limits.minEntropyBits\` of \`GET /generate\`) applies as well |`,
    `| passphrase wordCount | ${span(WORD_COUNT)} |`,
    `| passphrase minLength, maxLength | ${span(PASSPHRASE_LENGTH)} characters, minLength not above maxLength |`,
    `| request body | ${BODY_LIMIT_BYTES} bytes (${BODY_LIMIT_KB}); larger gives 413 |`,
    '',
    'Every `POST /generate` attempt uses one slot whatever its outcome, except one answered 429. Each client IP has three buckets of the same size: one for requests with a valid key, one for requests without a key (or to a server with none configured), and one for requests whose key fails; while the last is empty no key from that address is checked (429). So requests without a valid key never use up the slots of a keyed client at the same address. GET requests use none but carry the numbers of the keyed bucket. Every response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` and the IETF draft fields `RateLimit-Policy` and `RateLimit`, those of the bucket that decided the reply; 429 adds `Retry-After`.',
    '',
    '## Entropy',
    '',
    '`entropy.bits` is log2 of the number of equally likely outputs the generator can produce for the options (the attacker is assumed to know the options, not the draws), rounded to 2 decimals; the label comes from the unrounded figure.',
    '',
    `- Password: with enabled classes of sizes c1..ck after exclusions (pool N = sum ci) and length L, bits = log2 |V|, where V is every length-L string over the pool holding at least one character of each enabled class, counted exactly by inclusion-exclusion: |V| = sum over subsets S of the classes of (-1)^|S| (N - sum of sizes in S)^L. The generator redraws the whole password until the rule holds, so every string of V is equally likely. ${DEFAULT_PASSWORD}: ${DEFAULT_PASSWORD_BITS} bits.`,
    `- Password to a site's rules (\`options.passwordRules\`, the syntax of the HTML \`passwordrules\` attribute): uniform over exactly the strings the rule allows at the length, \`max-repeating\` and \`max-sequential\` included (\`max-consecutive\` sets both); bits = log2 of their exact number (inclusion-exclusion over the required sets, exact counts under both limits). Length 16 with one each of upper, lower, digit and special over the 95 printable characters: ${RULES_VECTOR_BITS} bits (the naive 16 x log2 95 = ${(16 * Math.log2(95)).toFixed(2)} over-counts). The rule's canonical text, the size of its alphabet and the length are in \`metadata\` (\`entropyMode: "uniform-rules"\`).`,
    '- Password constraints without a rules string: `minLowercase`, `minUppercase`, `minNumbers`, `minSymbols` (at least that many of an included class; omitted, 1 for an included class, 0 when `minClasses` is given), `minClasses` (k of the included classes), `firstCharacter` and `lastCharacter` (the first or last character from the union of the named classes), `maxRepeating` and `maxSequential` (the passwordrules limits). The password is uniform over exactly the strings of its length that meet all of them, bits = log2 of their exact number, and `metadata.constraints` holds what the count needs. Any of them with `passwordRules` is a 400; so is a combination nothing meets, naming the option at fault and why (docs/api.md, Password constraints, has worked figures).',
    `- Passphrase: bits = ${WORDS_FORMULA} (${Math.log2(WORDS).toFixed(3)} per word, EFF large wordlist ${DROPPED}), ${NUMBER_TERM} with \`addNumber\`; a fixed separator and capitalize add nothing. ${WORD_COUNT.default} words: ${fixed2(passphraseBits(WORDS, WORD_COUNT.default, false))} bits. Separators \`${Object.keys(RANDOM_SEPARATORS).join('` and `')}\` draw each gap on its own (${Object.entries(
      RANDOM_SEPARATORS,
    )
      .map(([name, set]) => `${name}: ${set.length} characters, + ${Math.log2(set.length).toFixed(3)} bits per gap`)
      .join(
        '; ',
      )}); the gaps are the wordCount - 1 between words and, with \`addNumber\`, the one before the number. ${WORD_COUNT.default} words with digits: ${fixed2(passphraseBits(WORDS, WORD_COUNT.default, false, RANDOM_SEPARATORS.digit.length))} bits. \`options.wordList\` picks one of the ${BIP39.length} BIP-39 lists instead (${BIP39[0].words.length.toLocaleString('en')} words, ${BIP39_BITS} bits each: ${BIP39.map((l) => `\`${l.id}\``).join(', ')}), each pinned by the SHA-256 \`metadata.wordlistSha256\` gives; output is Unicode NFC.`,
    `- Passphrase within a length (\`options.minLength\`, \`options.maxLength\`, in code points, separators and number included): uniform over exactly the passphrases that fit, and the words term is log2 of the exact number of word sequences whose letters fit (counted by word length, in BigInt). ${LENGTH_EXAMPLE.options.wordCount} words of \`${LENGTH_EXAMPLE.options.wordList}\` in at most ${LENGTH_EXAMPLE.options.maxLength} characters: ${fixed2(acceptedBodyBits(LENGTH_EXAMPLE))} bits (${fixed2(passphraseBits(BIP39[0].words.length, LENGTH_EXAMPLE.options.wordCount, false))} without the bound). No passphrase of the options within the bounds is a 400 naming the bound, with the lengths the options make.`,
    `- Entropy floor: a request whose exact (unrounded) bits are below the higher of its \`minBits\` and the service's floor is a 400 naming \`minBits\` with both figures, before anything is drawn.`,
    '',
    labelTable(),
    '',
    '## Errors',
    '',
    'Every error is a JSON body `{error, status, field?}` (`ErrorBody`). An unknown path is 404 and a known path with another method is 405 with `Allow`, on every path. HEAD works wherever GET does.',
    '',
    'Protocol-level failures use the same body and headers, close the connection and are not listed per operation: 400 (malformed HTTP, a missing or repeated `Host`, or a request asking for a protocol switch with `Upgrade` or `CONNECT`: `{"error":"protocol upgrade not supported","status":400}`), 408 (request or body too slow), 417 (an `Expect` other than `100-continue`), 431 (request headers over 8 KB or more than 64 header fields), 500 (an internal error; a fixed message, nothing internal).',
    '',
    '## Clients',
    '',
    'Generate a client from this document (`GET /openapi.json`). The request body `GenerateRequest` is a `oneOf` of one branch per `mode`, each fixing `mode` with `const` and naming its options object (`PasswordOptions` or `PassphraseOptions`), so a generated client types the options of each mode and refuses an option of the other. openapi-typescript: pass `--default-non-nullable false`, or every field with a `default` becomes required in the request type. Every error status has the `ErrorBody` schema.',
  ].join('\n');
}

function generateDescription(): string {
  return [
    'The live description of every option, default and limit, derived from the request schema: the same object the browser page gets from `ServiceAPI.describe()`. No key needed; it uses no rate-limit slot.',
    '',
    `- password: characters drawn uniformly from the pool of enabled classes (${CHARACTER_CLASSES.map((c) => `${classShown(c)} ${c.chars.length}`).join(', ')}), minus \`${AMBIGUOUS_CHARACTERS}\` with \`avoidAmbiguous\` and minus \`excludedCharacters\`; every enabled class appears at least once.`,
    `- password with \`passwordRules\`: uniform over exactly the strings a site's \`passwordrules\` allow (\`modes.password.passwordRules\` gives the syntax, limits and the options it replaces).`,
    `- passphrase: words drawn uniformly from the EFF large wordlist ${DROPPED} (${WORDS.toLocaleString('en')} words) or one of the BIP-39 lists (\`wordLists\`: sizes ${LIST_SIZES.map((n) => n.toLocaleString('en')).join(' and ')}, SHA-256, licence, letter case); the separator is fixed (\`separators\`) or drawn per gap (\`randomSeparators\`); \`minLength\` and \`maxLength\` bound the length (\`lengths\`).`,
    `- entropy: password bits = log2 |V| (exact count of valid strings, see the top of this document; close to length x log2(pool)); passphrase bits = ${WORDS_FORMULA} (log2 of the list's size per word), + ${NUMBER_BITS_SHOWN} with addNumber.`,
    "- `limits.minEntropyBits`: the service's entropy floor (`MIN_ENTROPY_BITS`); requests below it, or below their own `minBits`, are a 400 naming `minBits`.",
    '- Nothing generated is stored or logged.',
    `- Limits: count ${span(COUNT)}, password length ${span(LENGTH)}, wordCount ${span(WORD_COUNT)}, body ${BODY_LIMIT_BYTES} bytes, ${DEFAULT_RATE_LIMIT_PER_MINUTE} requests per minute per client by default (\`limits.rateLimit\` gives the live figure).`,
    '',
    labelTable(),
    '',
    '```sh',
    'curl -sS http://127.0.0.1:8080/generate',
    '//=> {"service":"credential-generator","endpoint":{"method":"POST","path":"/generate",...},...}',
    'http :8080/generate',
    '```',
  ].join('\n');
}

/** The curl and httpie examples: what they send; what they get is the generator's answer. */
const CURL_EXAMPLE = { mode: 'password', options: { length: LENGTH.default } };
const HTTPIE_EXAMPLE = { mode: 'passphrase', count: 5, options: { wordCount: 6 } };

/** `//=> {"mode":...,"count":...,"value":"<redacted>","entropy":{...},...}` for `input`. */
function shownAnswer(input: object): string {
  const { mode, count, entropy } = acceptedBody(input);
  return `//=> ${JSON.stringify({ mode, count, value: '<redacted>', entropy }).slice(0, -1)},...}`;
}

function postGenerateDescription(): string {
  return [
    `Generates \`count\` credentials (default ${COUNT.default}, at most ${COUNT.maximum}) in one request; a batch uses one rate-limit slot. \`value\`, \`entropy\` and \`metadata\` at the top level mirror \`results[0]\`. Only \`mode\` is required; omitted optional fields take their default, and an invalid value is a 400 naming the field (never clamped or defaulted).`,
    '',
    'Checks, in order: no key configured or no `X-Api-Key`: the no-key bucket (429), then 503 / 401 -> the failed-key bucket empty (429, the key is not checked) -> key (401, takes a failed-key slot) -> the keyed bucket (429) -> `Content-Type: application/json` (400) -> body size (413) -> JSON and schema (400) -> generate (200). A reply sent before the body has been read closes the connection.',
    '',
    'Keep the key out of code, files and shell history: read it from an environment variable.',
    '',
    '```sh',
    `curl -sS --fail-with-body --json '${JSON.stringify(CURL_EXAMPLE)}' \\`,
    '  -H "X-Api-Key: $CG_API_KEY" http://127.0.0.1:8080/generate',
    shownAnswer(CURL_EXAMPLE),
    '',
    `http POST :8080/generate X-Api-Key:$CG_API_KEY mode=${HTTPIE_EXAMPLE.mode} count:=${HTTPIE_EXAMPLE.count} options:='${JSON.stringify(HTTPIE_EXAMPLE.options)}'`,
    shownAnswer(HTTPIE_EXAMPLE),
    '```',
  ].join('\n');
}

/** The OpenAPI 3.1.0 document, as a plain object (key order is the output order). */
export function buildOpenApi(): Json {
  const version = (JSON.parse(readFileSync(join(SPEC_DIR, '..', 'package.json'), 'utf8')) as { version: string })
    .version;
  const schemas = embeddedSchemas();
  schemas.GeneratorDescription = describeSchema();
  schemas.Health = healthSchema();
  schemas.Readiness = readinessSchema();

  const methodNotAllowed = { '405': ref('responses', 'MethodNotAllowed') };
  const ok = (description: string, content: Json, ...extraHeaders: string[]) => ({
    description,
    headers: headers(...extraHeaders),
    content,
  });
  const postman = [...POSTMAN_FILES];

  return {
    openapi: '3.1.0',
    info: {
      title: 'Credential Generator API',
      version,
      summary: 'Random passwords and passphrases with an exact entropy figure; nothing is stored.',
      description: infoDescription(),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [
      {
        url: '{scheme}://{host}:{port}',
        description: 'Your deployment (default: a local server started with `npm start`).',
        variables: {
          scheme: {
            enum: ['http', 'https'],
            default: 'http',
            description: 'https when TLS_CERT_FILE and TLS_KEY_FILE are set.',
          },
          host: { default: '127.0.0.1', description: 'Host name or address (HOST).' },
          port: { default: '8080', description: 'Port (PORT).' },
        },
      },
    ],
    tags: [
      { name: 'Generation', description: 'Generate credentials and read the options and limits.' },
      { name: 'Service', description: 'Health, readiness and the home page.' },
      { name: 'Documentation', description: 'This document and the Postman collection and environment.' },
    ],
    paths: {
      '/generate': {
        get: {
          tags: ['Generation'],
          operationId: 'describeGenerator',
          summary: 'Describe every option, default and limit',
          description: generateDescription(),
          security: [],
          responses: {
            '200': ok('The live description.', {
              'application/json': {
                schema: ref('schemas', 'GeneratorDescription'),
                examples: { default: { summary: 'A server with the default settings', value: describe() } },
              },
            }),
            ...methodNotAllowed,
          },
        },
        post: {
          tags: ['Generation'],
          operationId: 'generateCredentials',
          summary: 'Generate passwords or passphrases',
          description: postGenerateDescription(),
          security: [{ ApiKey: [] }],
          requestBody: {
            required: true,
            description: `JSON, at most ${BODY_LIMIT_BYTES} bytes, with \`Content-Type: application/json\`.`,
            content: {
              'application/json': {
                schema: ref('schemas', 'GenerateRequest'),
                examples: {
                  password: { summary: `One password, defaults (${DEFAULT_PASSWORD})`, value: { mode: 'password' } },
                  passwordOptions: {
                    summary: `A ${PASSWORD_OPTIONS_EXAMPLE.options.length}-character password with symbols, no look-alikes`,
                    value: PASSWORD_OPTIONS_EXAMPLE,
                  },
                  passphrase: { summary: 'A capitalised passphrase with a number', value: PASSPHRASE_EXAMPLE },
                  batch: {
                    summary: `A batch of ${COUNT.maximum} passphrases (one rate-limit slot)`,
                    value: { mode: 'passphrase', count: COUNT.maximum },
                  },
                  passwordRules: {
                    summary: "A password to a site's passwordrules (its own default length: 24 moved into 12-20)",
                    value: RULES_EXAMPLE,
                  },
                  pattern: {
                    summary:
                      "A password to a system's own regular expression (HTML pattern semantics; its default length: 24 moved to the nearest it admits, 20)",
                    value: {
                      mode: 'password',
                      options: { pattern: '^(?=.*\\d)(?=.*[a-z])(?=.*[A-Z])[a-zA-Z0-9!#]{12,20}$' },
                    },
                  },
                  passwordConstraints: {
                    summary: `A ${CONSTRAINTS_EXAMPLE.options.length}-character password with at least ${CONSTRAINTS_EXAMPLE.options.minNumbers} digits and ${CONSTRAINTS_EXAMPLE.options.minSymbols} symbols, a letter first, no character more than ${CONSTRAINTS_EXAMPLE.options.maxRepeating} times in a row`,
                    value: CONSTRAINTS_EXAMPLE,
                  },
                  digitSeparators: {
                    summary: 'A passphrase with a random digit in each gap between words',
                    value: DIGITS_EXAMPLE,
                  },
                  wordListAndLength: {
                    summary: 'A Japanese passphrase (BIP-39 list) of at most 16 characters',
                    value: LIST_EXAMPLE,
                  },
                  minBits: {
                    summary: `A request that refuses anything under ${MIN_BITS_EXAMPLE.minBits} bits (here a 400: 4 words give less)`,
                    value: MIN_BITS_EXAMPLE,
                  },
                },
              },
            },
          },
          responses: {
            '200': ok('The generated credentials.', {
              'application/json': {
                schema: ref('schemas', 'GenerateResponse'),
                examples: {
                  password: {
                    summary: 'One password (fake value)',
                    value: responseOf('password', [passwordCredential]),
                  },
                  passphrase: {
                    summary: 'One passphrase (fake value)',
                    value: responseOf('passphrase', [passphraseCredential]),
                  },
                  batch: {
                    summary: `A batch of ${batchValues.length} passphrases (fake values)`,
                    value: responseOf('passphrase', batchValues.map(batchCredential)),
                  },
                  passwordRules: {
                    summary: "A password to a site's rules, with the rule as read (fake value)",
                    value: responseOf('password', [rulesCredential]),
                  },
                  digitSeparators: {
                    summary: 'A passphrase with drawn digit separators (fake value)',
                    value: responseOf('passphrase', [digitsCredential]),
                  },
                  wordListAndLength: {
                    summary:
                      'A Japanese passphrase of at most 16 characters, with the list and its SHA-256 (fake value)',
                    value: responseOf('passphrase', [listCredential]),
                  },
                },
              },
            }),
            '400': ref('responses', 'BadRequest'),
            '401': ref('responses', 'Unauthorized'),
            ...methodNotAllowed,
            '413': ref('responses', 'PayloadTooLarge'),
            '429': ref('responses', 'TooManyRequests'),
            '503': ref('responses', 'ServiceUnavailable'),
          },
        },
      },
      '/health': {
        get: {
          tags: ['Service'],
          operationId: 'getHealth',
          summary: 'Health check',
          description:
            'Liveness: answers 200 `{"status":"ok", ...}` with the version and the SHA-256 of the running file while the process serves requests. No key needed; uses no rate-limit slot.',
          security: [],
          responses: {
            '200': ok('The service is up.', {
              'application/json': {
                schema: ref('schemas', 'Health'),
                examples: {
                  ok: { summary: 'Up', value: { status: 'ok', version, sha256: 'e62aad6c'.repeat(8) } },
                },
              },
            }),
            ...methodNotAllowed,
          },
        },
      },
      '/ready': {
        get: {
          tags: ['Service'],
          operationId: 'getReadiness',
          summary: 'Readiness check',
          description:
            'Readiness: 200 while the instance accepts work; 503 while it drains after SIGTERM and while no key is configured. Names the rate-limit store; a Redis outage is not "not ready" (requests are still limited in-process). No key needed; uses no rate-limit slot.',
          security: [],
          responses: {
            '200': ok('Ready for traffic.', {
              'application/json': {
                schema: ref('schemas', 'Readiness'),
                examples: {
                  ready: { summary: 'Ready, in-process limits', value: READINESS_EXAMPLE },
                  fallback: {
                    summary: 'Ready while Redis is out',
                    value: { status: 'ready', rateLimitStore: 'fallback' },
                  },
                },
              },
            }),
            '503': ok('Not ready: draining, or no key configured.', {
              'application/json': {
                schema: ref('schemas', 'Readiness'),
                examples: {
                  draining: { summary: 'Draining after SIGTERM', value: { ...READINESS_EXAMPLE, status: 'draining' } },
                  noKey: { summary: 'No key configured', value: { ...READINESS_EXAMPLE, status: 'no-key' } },
                },
              },
            }),
            ...methodNotAllowed,
          },
        },
      },
      '/openapi.json': {
        get: {
          tags: ['Documentation'],
          operationId: 'getOpenApi',
          summary: 'This document',
          description:
            'The OpenAPI 3.1.0 document of the service (this file), generated from the JSON Schemas the server validates with. No key needed.',
          security: [],
          responses: {
            '200': ok('The OpenAPI document.', {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['openapi', 'info', 'paths'],
                  properties: {
                    openapi: { type: 'string', const: '3.1.0' },
                    info: { type: 'object' },
                    paths: { type: 'object' },
                  },
                },
              },
            }),
            ...methodNotAllowed,
          },
        },
      },
      '/': {
        get: {
          tags: ['Service'],
          operationId: 'getHomePage',
          summary: 'Home page',
          description:
            'The browser page: generates in the page itself with `window.ServiceAPI` (no key, no network request), links the Postman files and credits the word lists (EFF large wordlist, BIP-39). Strict Content-Security-Policy. Its scripts, styles and images are served at their own root paths with the same headers and are not listed here. 404 when the browser bundle (`dist/browser/`) has not been built.',
          security: [],
          responses: {
            '200': ok(
              'The HTML page.',
              { 'text/html': { schema: { type: 'string', maxLength: 1_000_000 } } },
              'X-Frame-Options',
            ),
            ...methodNotAllowed,
          },
        },
      },
      '/postman/{file}': {
        get: {
          tags: ['Documentation'],
          operationId: 'getPostmanFile',
          summary: 'Postman collection or environment',
          description:
            'The Postman v2.1 collection (one request per endpoint and mode, with tests) and its environment (`baseUrl`, and `apiKey` as an empty secret). Import both into Postman, Insomnia or Bruno, or run them with newman. No key needed.',
          security: [],
          parameters: [
            {
              name: 'file',
              in: 'path',
              required: true,
              description: 'File name.',
              schema: { type: 'string', enum: postman },
              examples: { collection: { value: postman.find((f) => f.endsWith('collection.json')) ?? postman[0] } },
            },
          ],
          responses: {
            '200': ok(
              'The file, as a download.',
              {
                'application/json': {
                  schema: {
                    description: 'A Postman v2.1 collection (`info`, `item`) or environment (`name`, `values`).',
                    oneOf: [
                      {
                        title: 'Postman collection v2.1',
                        type: 'object',
                        required: ['info', 'item'],
                        properties: { info: { type: 'object' }, item: { type: 'array' } },
                      },
                      {
                        title: 'Postman environment',
                        type: 'object',
                        required: ['name', 'values'],
                        properties: { name: { type: 'string', maxLength: 256 }, values: { type: 'array' } },
                      },
                    ],
                  },
                },
              },
              'Content-Disposition',
            ),
            '404': ref('responses', 'NotFound'),
            ...methodNotAllowed,
          },
        },
      },
    },
    components: {
      schemas,
      responses: responseComponents(),
      headers: headerComponents(),
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Api-Key',
          description:
            'A key issued per holder by the operator (no self-service). Missing or wrong: 401; none configured on the server: 503. Keep it out of client-side code, repositories and screenshots.',
        },
      },
    },
  };
}

/** The bytes of `spec/openapi.json`. */
export function buildOpenApiJson(): string {
  return `${JSON.stringify(buildOpenApi(), null, 2)}\n`;
}
