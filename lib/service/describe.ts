/**
 * The live description served at `GET /generate` and returned by `ServiceAPI.describe()`.
 * Every option, type, default, bound and enum is read from the request schema; the rest from
 * the same constants the generator and the server use, so none of it can drift. It describes
 * the service (its body cap and rate limit are here too), so it lives beside the service's
 * numbers, above the generator core: browser-safe, for the server and the browser bundle alike.
 * @module
 */
import { requestSchema } from '../generated/schema.generated.ts';
import {
  AMBIGUOUS_CHARACTERS,
  CHARACTER_CLASSES,
  RANDOM_SEPARATORS,
  SEPARATORS,
  REJECTION_ACCEPTANCE,
  STRENGTH_LEVELS,
  WORD_LISTS,
} from '../core/index.ts';
import { MAX_MIN_BITS } from '../request/index.ts';
import {
  DEFAULT_RULES_LENGTH,
  MAX_REQUIRED_SETS,
  MAX_RULES_LENGTH,
  NAMED_SETS,
  SERVICE_MAX_LENGTH,
  SERVICE_MIN_LENGTH,
} from '../core/rules/index.ts';
import { BODY_LIMIT_BYTES, DEFAULT_RATE_LIMIT_PER_MINUTE } from './limits.ts';

export interface DescribeSettings {
  /** Requests per minute per client (the server's configured RATE_LIMIT_PER_MINUTE). */
  rateLimitPerMinute?: number;
  /** The service's entropy floor in bits (the server's MIN_ENTROPY_BITS; 0 for none). */
  minEntropyBits?: number;
  /** The named policies a request may give in `policy` (POLICIES_FILE; none when absent). */
  policies?: readonly DescribedPolicy[];
}

/** A named policy as GET /generate lists it: what it is for and its exact strength, not its options. */
export interface DescribedPolicy {
  readonly name: string;
  readonly mode: 'password' | 'passphrase';
  readonly description: string | null;
  readonly entropy: { readonly bits: number; readonly label: string; readonly level: number };
}

type Json = { [key: string]: unknown };

const FIELD_KEYS = [
  'type',
  'default',
  'minimum',
  'maximum',
  'maxLength',
  'enum',
  // A list option's (firstCharacter, lastCharacter): how many items, each once, of what.
  'minItems',
  'maxItems',
  'uniqueItems',
  'items',
  'description',
] as const;

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

type OptionsName = keyof typeof requestSchema.$defs;
/**
 * `options` has no type at the root (a type there would be intersected with each mode's options
 * object in generated clients): each mode's branch of the request union gives it its options
 * object. The description states the type they share.
 */
const OPTIONS_TYPE = [
  ...new Set(
    requestSchema.oneOf.map(
      (b) => requestSchema.$defs[b.properties.options.$ref.replace('#/$defs/', '') as OptionsName].type,
    ),
  ),
].join(' | ');

/** The options `passwordRules` excludes: the keys of its dependentSchemas entry. */
const EXCLUSIVE_WITH = Object.keys(requestSchema.$defs.PasswordOptions.dependentSchemas.passwordRules.properties);

/** What the classes and the password constraints do, and what is a 400 (docs/api.md). */
const PASSWORD_RULES = [
  'every enabled class appears at least once, unless the constraints below say otherwise; every password is uniform over exactly the strings that meet them (rejection sampling, or the exact walk where rejection would keep too few)',
  'minLowercase, minUppercase, minNumbers, minSymbols: at least that many of the class (as left after avoidAmbiguous and excludedCharacters), only for an included class; omitted, 1 for an included class, but 0 when minClasses is given. maxLowercase, maxUppercase, maxNumbers, maxSymbols: at most that many of the class. minClasses: at least that many distinct included classes. firstCharacter, lastCharacter: the first (last) character from the union of the named classes, each included. maxRepeating: no character more than that many times in a row. maxSequential: no run longer than that of characters adjacent in ASCII order, up or down, within a-z, A-Z or 0-9',
  'a 400 names the option at fault: a minimum, maximum or first/last class of a class not included, a minimum above length, a maximum below its minimum, minimums summing above length (the last minimum given that pushes the sum over), maximums leaving room for fewer than length characters, minClasses above the included classes or beyond the room the minimums leave, a class with a minimum of 1 or more emptied by exclusions, a first or last class left empty, or constraints no string meets',
  'no class enabled, an enabled class emptied by exclusions, or a pool under 2 characters is a 400',
  `passwordRules replaces the classes: combined with ${EXCLUSIVE_WITH.join(', ')} it is a 400 naming that option`,
] as const;

/** What `options.passwordRules` accepts and does (docs/password-rules.md). */
function passwordRulesDescription(): Json {
  return {
    syntax:
      'the HTML passwordrules attribute: properties required, allowed, minlength, maxlength, max-repeating, max-sequential and max-consecutive (sets both), separated by ";"; required and allowed take identifiers and custom classes [...] separated by ","',
    identifiers: [...NAMED_SETS.keys()],
    maxLength: MAX_RULES_LENGTH,
    maxRequiredSets: MAX_REQUIRED_SETS,
    lengths: { minimum: SERVICE_MIN_LENGTH, maximum: SERVICE_MAX_LENGTH, default: DEFAULT_RULES_LENGTH },
    exclusiveWith: EXCLUSIVE_WITH,
    rules: [
      'each required line is "at least one character of the union of its items"; allowed is the union of every allowed and required item (ascii-printable when there are none)',
      'max-repeating N: no more than N identical characters in a row; max-sequential N: no more than N characters in a row stepping one code up (or down) inside a-z, A-Z or 0-9; max-consecutive N sets both (apple/password-manager-resources PR #1255); the smallest value given for a limit applies',
      'unicode is read as ascii-printable, and metadata.unicodeAsAsciiPrintable says so',
      `length, when given, must lie inside the rule's minlength-maxlength and ${SERVICE_MIN_LENGTH}-${SERVICE_MAX_LENGTH}; without it, ${DEFAULT_RULES_LENGTH} moved into those bounds`,
      'a rule the service cannot satisfy, a syntax error or an unknown token is a 400 that says why (field options.passwordRules)',
    ],
    entropy: `bits = log2 of the exact number of strings the rule allows at the length (inclusion-exclusion over the required sets, exact counts under max-repeating and max-sequential); every one equally likely: rejection sampling while it needs at most ${1 / REJECTION_ACCEPTANCE} attempts on average, exact unranking beyond`,
  };
}

/** Every word list of `options.wordList`, by id: its source, size, SHA-256 and what it allows. */
function wordListsDescription(): Json {
  const out: Json = {};
  for (const list of Object.values(WORD_LISTS)) {
    out[list.id] = {
      name: list.name,
      language: list.language,
      size: list.words.length,
      sourceSize: list.sourceSize,
      excludedWords: [...list.excludedWords],
      bitsPerWord: Math.round(Math.log2(list.words.length) * 1000) / 1000,
      sha256: list.sha256,
      letterCase: list.letterCase,
      space: list.space,
      license: list.license,
      source: list.source,
    };
  }
  return out;
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
      minBits: fieldOf(properties.minBits),
      options: fieldOf({ type: OPTIONS_TYPE, ...properties.options }),
      policy: fieldOf(properties.policy),
    },
    // Each a copy, so a caller that edits the description cannot edit the set in use.
    policies: (settings.policies ?? []).map((p) => ({
      name: p.name,
      mode: p.mode,
      description: p.description,
      entropy: { bits: p.entropy.bits, label: p.entropy.label, level: p.entropy.level },
    })),
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
        rules: [...PASSWORD_RULES],
        entropy:
          'bits = log2 |V|, V = strings of the length over the pool holding >= 1 of each enabled class (inclusion-exclusion, exact); with the constraints, V = the strings of the length that meet all of them, counted exactly, every one equally likely, and metadata.constraints gives what the count needs',
        passwordRules: passwordRulesDescription(),
      },
      passphrase: {
        description: $defs.PassphraseOptions.description,
        options: fieldsOf($defs.PassphraseOptions.properties),
        separators: { ...SEPARATORS },
        randomSeparators: { ...RANDOM_SEPARATORS },
        // The default list as GET /generate has described it since 1.0.0, kept for its clients.
        wordlist: {
          name: WORD_LISTS['eff-large'].name,
          size: WORD_LISTS['eff-large'].words.length,
          sourceSize: WORD_LISTS['eff-large'].sourceSize,
          excludedWords: [...WORD_LISTS['eff-large'].excludedWords],
          bitsPerWord: Math.round(Math.log2(WORD_LISTS['eff-large'].words.length) * 1000) / 1000,
          credit: WORD_LISTS['eff-large'].source,
          license: WORD_LISTS['eff-large'].license,
        },
        wordLists: wordListsDescription(),
        lengths:
          'minLength and maxLength (optional) bound the whole passphrase in characters: code points of the NFC output, separators and number included. The passphrase is uniform over exactly the ones that fit (an exact count of the word sequences by word length, and a uniform rank among them); minLength above maxLength, or no passphrase of the options within the bounds, is a 400 naming the bound and giving the lengths the options make',
        entropy:
          'bits = wordCount x log2(list size) (12.924 per EFF word, 11 per BIP-39 word), + log2(100) = 6.644 with addNumber; a fixed separator and capitalize add 0; digit or symbol add log2(10) or log2(23) per gap (wordCount - 1 gaps, one more before the number with addNumber); with minLength or maxLength the words term is log2 of the exact number of word sequences that fit',
      },
    },
    entropy: {
      method:
        'log2 of the number of equally likely outputs for the options (exact for this generator), rounded to 2 decimals; label from the unrounded bits',
      labels: STRENGTH_LEVELS.map((s) => ({ ...s })),
      floor: `a request whose exact (unrounded) bits are below the higher of its minBits and limits.minEntropyBits is a 400 naming minBits, before anything is drawn; both are 0 to ${MAX_MIN_BITS}`,
    },
    limits: {
      count: { minimum: properties.count.minimum, maximum: properties.count.maximum },
      bodyBytes: BODY_LIMIT_BYTES,
      minEntropyBits: settings.minEntropyBits ?? 0,
      rateLimit: {
        requestsPerMinute: perMinute,
        algorithm: `token bucket per client IP: burst of ${perMinute}, refilled continuously at ${perMinute} per 60 s; a batch uses one slot`,
      },
    },
  };
}
