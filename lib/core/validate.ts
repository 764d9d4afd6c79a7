/**
 * Request validation: the compiled schema decides what is valid; this module turns its first
 * error into the contract's body, with numbers read from the schema itself (never from ajv's
 * English and never echoing a submitted value), then applies the schema's defaults. The pool
 * rules a JSON Schema cannot state live in password.ts.
 * @module
 */
import validateSchema from './validator.generated.ts';
import { requestSchema } from './schema.generated.ts';

export interface ErrorBody {
  error: string;
  status: number;
  field?: string;
}

export type Separator = 'hyphen' | 'underscore' | 'dot' | 'space';

export interface PasswordOptions {
  length: number;
  includeLowercase: boolean;
  includeUppercase: boolean;
  includeNumbers: boolean;
  includeSymbols: boolean;
  avoidAmbiguous: boolean;
  excludedCharacters: string;
}

export interface PassphraseOptions {
  wordCount: number;
  separator: Separator;
  capitalize: boolean;
  addNumber: boolean;
}

export type ValidRequest =
  | { mode: 'password'; count: number; options: PasswordOptions }
  | { mode: 'passphrase'; count: number; options: PassphraseOptions };

export type Validation = { ok: true; request: ValidRequest } | { ok: false; error: ErrorBody };

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
}
type SchemaValidator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
const schemaValidator = validateSchema as unknown as SchemaValidator;

type Json = { [key: string]: unknown };

/** A field name is repeated in a message only if it is short and plain; anything else is not echoed. */
const PLAIN_NAME = /^[A-Za-z_$][A-Za-z0-9_$-]{0,39}$/;

export function invalid(error: string, field?: string): { ok: false; error: ErrorBody } {
  return { ok: false, error: field === undefined ? { error, status: 400 } : { error, status: 400, field } };
}

function resolvePointer(pointer: string): Json {
  let node: unknown = requestSchema;
  for (const part of pointer.replace(/^#\//, '').split('/')) {
    if (part === '') continue;
    node = (node as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node as Json;
}

function listOf(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

/** The message for one ajv error, worded from the schema node that failed. */
function describeError(err: AjvError, mode: unknown): Validation {
  const field = err.instancePath.slice(1).replace(/\//g, '.');
  // schemaPath ends in the failing keyword; its parent is the field's own schema.
  const own = resolvePointer(err.schemaPath.slice(0, err.schemaPath.lastIndexOf('/')));
  switch (err.keyword) {
    case 'required':
      return invalid(`${String(err.params.missingProperty)} is required`, String(err.params.missingProperty));
    case 'additionalProperties': {
      const name = String(err.params.additionalProperty);
      const plain = PLAIN_NAME.test(name);
      if (field === '') {
        return plain
          ? invalid(`${name} is not a field of the request`, name)
          : invalid('the request has a field that is not allowed (allowed: mode, count, options)');
      }
      return plain
        ? invalid(`${field}.${name} is not an option of mode ${String(mode)}`, `${field}.${name}`)
        : invalid(`${field} has a key that is not an option of mode ${String(mode)}`, field);
    }
    case 'enum':
      return invalid(`${field} must be one of ${listOf(own.enum as unknown[])}`, field);
    case 'minimum':
    case 'maximum':
      return invalid(`${field} must be between ${String(own.minimum)} and ${String(own.maximum)}`, field);
    case 'maxLength':
      return invalid(`${field} must be at most ${String(own.maxLength)} characters`, field);
    case 'type': {
      if (field === '') return invalid('the request body must be a JSON object');
      switch (own.type) {
        case 'integer':
          return invalid(
            `${field} must be an integer between ${String(own.minimum)} and ${String(own.maximum)}`,
            field,
          );
        case 'boolean':
          return invalid(`${field} must be true or false`, field);
        case 'string':
          return invalid(
            own.enum ? `${field} must be one of ${listOf(own.enum as unknown[])}` : `${field} must be a string`,
            field,
          );
        case 'object':
          return invalid(`${field} must be an object`, field);
      }
    }
  }
  /* c8 ignore next 2 -- every keyword of the schema is handled above; kept as a safe fallback */
  return field === '' ? invalid('the request is invalid') : invalid(`${field} is invalid`, field);
}

/**
 * The objects `snapshot` makes: their prototype has no prototype, so nothing is inherited and
 * a `__proto__` key is a plain own key (no setter on the chain), exactly as with
 * Object.create(null), but V8 keeps them in fast mode, which halves the validator's time
 * (Object.create(null) objects start as hash tables).
 */
function Snapshot(): void {}
Snapshot.prototype = Object.create(null);

/**
 * One read of every own enumerable key into a null-prototype object: getters and proxies are
 * touched once (what is validated is what is used), and a `__proto__` key stays a plain key.
 */
function snapshot(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const copy = new (Snapshot as unknown as new () => Json)();
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) copy[keys[i]] = (value as Json)[keys[i]];
  return copy;
}

const PASSWORD_DEFAULTS = defaultsOf('PasswordOptions') as unknown as PasswordOptions;
const PASSPHRASE_DEFAULTS = defaultsOf('PassphraseOptions') as unknown as PassphraseOptions;
const COUNT_DEFAULT = requestSchema.properties.count.default;

function defaultsOf(def: 'PasswordOptions' | 'PassphraseOptions'): Json {
  const out: Json = {};
  for (const [key, prop] of Object.entries(requestSchema.$defs[def].properties)) out[key] = prop.default;
  return out;
}

const PASSWORD_KEYS: ReadonlySet<string> = new Set(Object.keys(PASSWORD_DEFAULTS));
const PASSPHRASE_KEYS: ReadonlySet<string> = new Set(Object.keys(PASSPHRASE_DEFAULTS));

/** The defaults with every given option that is not undefined on top. After validation the
 * given keys are a subset of the defaults' (the schema forbids others), so walking the given
 * keys (usually one or two) is the same as walking the defaults' (seven). */
function withDefaults<T extends object>(defaults: T, keys: ReadonlySet<string>, given: Json | undefined): T {
  const out = { ...defaults } as Json;
  if (given) {
    for (const key in given) {
      if (keys.has(key) && given[key] !== undefined) out[key] = given[key];
    }
  }
  return out as T;
}

// --- fast acceptance ------------------------------------------------------------------------

/**
 * A check that accepts only what the compiled schema accepts, built from the same schema
 * nodes: per field its type, bounds and enum; any keyword it does not know makes the field
 * "ask ajv". It never rejects: whatever it does not accept (every error, every unusual shape)
 * goes to the ajv validator, which alone words the 400s. Common requests so skip ajv's
 * generic code (allOf/if/then with evaluated-property bookkeeping), half of generate()'s
 * validation time.
 */
type FieldCheck = (value: unknown) => boolean;

const KNOWN_KEYWORDS = new Set(['description', 'type', 'minimum', 'maximum', 'maxLength', 'enum', 'default', 'title']);

function fieldCheck(node: Json): FieldCheck {
  for (const key of Object.keys(node)) if (!KNOWN_KEYWORDS.has(key)) return () => false;
  const { type, minimum, maximum, maxLength } = node as { type?: unknown; minimum?: unknown; maximum?: unknown; maxLength?: unknown };
  const allowed = Array.isArray(node.enum) ? new Set<unknown>(node.enum as unknown[]) : null;
  const min = typeof minimum === 'number' ? minimum : -Infinity;
  const max = typeof maximum === 'number' ? maximum : Infinity;
  // .length counts UTF-16 units, never fewer than ajv's code points: a string that passes here passes there.
  const maxLen = typeof maxLength === 'number' ? maxLength : Infinity;
  switch (type) {
    case 'integer':
      if (allowed !== null) return () => false;
      return (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
    case 'boolean':
      if (allowed !== null) return () => false;
      return (v) => typeof v === 'boolean';
    case 'string':
      return (v) => typeof v === 'string' && v.length <= maxLen && (allowed === null || allowed.has(v));
    /* c8 ignore next 2 -- every option of the schema has one of the types above */
    default:
      return () => false;
  }
}

function checksOf(properties: Record<string, Json>): Map<string, FieldCheck> {
  return new Map(Object.entries(properties).map(([name, node]) => [name, fieldCheck(node)]));
}

const COUNT_CHECK = fieldCheck(requestSchema.properties.count as unknown as Json);
const OPTION_CHECKS: Record<string, Map<string, FieldCheck>> = {
  password: checksOf(requestSchema.$defs.PasswordOptions.properties as unknown as Record<string, Json>),
  passphrase: checksOf(requestSchema.$defs.PassphraseOptions.properties as unknown as Record<string, Json>),
};

/**
 * The shape of the schema this check mirrors, beyond its fields: should the schema grow a
 * keyword here (a required option, a dependency, another mode), the fast path switches itself
 * off and ajv decides alone.
 */
const MIRRORED_SCHEMA = JSON.stringify({
  top: ['$schema', '$id', 'title', 'description', 'type', 'required', 'additionalProperties', 'properties', 'allOf', '$defs'],
  required: ['mode'],
  additionalProperties: false,
  properties: ['mode', 'count', 'options'],
  mode: { type: 'string', enum: ['password', 'passphrase'] },
  options: ['description', 'type', 'default'],
  optionsType: 'object',
  defs: [
    ['PasswordOptions', ['title', 'description', 'type', 'additionalProperties', 'properties'], false],
    ['PassphraseOptions', ['title', 'description', 'type', 'additionalProperties', 'properties'], false],
  ],
  allOf: ['password', 'passphrase'].map((mode) => ({
    if: { required: ['mode'], properties: { mode: { const: mode } } },
    then: { properties: { options: { $ref: `#/$defs/${mode === 'password' ? 'PasswordOptions' : 'PassphraseOptions'}` } } },
  })),
});

function schemaShape(): string {
  const s = requestSchema as unknown as Json & { properties: Record<string, Json>; $defs: Record<string, Json> };
  return JSON.stringify({
    top: Object.keys(s),
    required: s.required,
    additionalProperties: s.additionalProperties,
    properties: Object.keys(s.properties),
    mode: { type: s.properties.mode!.type, enum: s.properties.mode!.enum },
    options: Object.keys(s.properties.options!),
    optionsType: s.properties.options!.type,
    defs: Object.entries(s.$defs).map(([name, def]) => [name, Object.keys(def), def.additionalProperties]),
    allOf: s.allOf,
  });
}

/** Exported for tests: false would mean the schema changed shape and every request now takes ajv. */
export const FAST_PATH = schemaShape() === MIRRORED_SCHEMA;

/** True only if the schema surely accepts `body` (a snapshot: own keys only, no getters). */
export function surelyValid(body: unknown): boolean {
  if (!FAST_PATH || body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Json;
  const checks = b.mode === 'password' || b.mode === 'passphrase' ? OPTION_CHECKS[b.mode] : undefined;
  if (checks === undefined) return false;
  // As in the compiled schema, a key whose value is undefined counts as absent (validateRequest
  // itself sets `options` to undefined when there is none), but an unknown key never passes.
  for (const key in b) {
    if (key === 'mode') continue;
    if (key === 'count') {
      if (b.count !== undefined && !COUNT_CHECK(b.count)) return false;
    } else if (key === 'options') {
      const o = b.options;
      if (o === undefined) continue;
      if (o === null || typeof o !== 'object' || Array.isArray(o)) return false;
      for (const name in o as Json) {
        const check = checks.get(name);
        const value = (o as Json)[name];
        if (check === undefined || (value !== undefined && !check(value))) return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

export function validateRequest(input: unknown): Validation {
  let body: Json;
  try {
    body = snapshot(input) as Json;
    if (body !== null && typeof body === 'object' && !Array.isArray(body)) body.options = snapshot(body.options);
  } catch {
    return invalid('the request could not be read');
  }
  if (!surelyValid(body) && !schemaValidator(body)) {
    const first = schemaValidator.errors?.[0];
    /* c8 ignore next -- ajv always reports at least one error when validation fails */
    if (!first) return invalid('the request is invalid');
    return describeError(first, (body as Json | null)?.mode);
  }
  const count = (body.count as number | undefined) ?? COUNT_DEFAULT;
  const given = body.options as Json | undefined;
  if (body.mode === 'passphrase') {
    return { ok: true, request: { mode: 'passphrase', count, options: withDefaults(PASSPHRASE_DEFAULTS, PASSPHRASE_KEYS, given) } };
  }
  return { ok: true, request: { mode: 'password', count, options: withDefaults(PASSWORD_DEFAULTS, PASSWORD_KEYS, given) } };
}
