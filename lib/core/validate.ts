/**
 * Request validation: the compiled schema decides what is valid; this module turns its first
 * error into the contract's body, with numbers read from the schema itself (never from ajv's
 * English and never echoing a submitted value), then applies the schema's defaults. The pool
 * rules a JSON Schema cannot state live in password.ts, those of a `passwordRules` string in
 * rules/, and the entropy floor in generate.ts.
 * @module
 */
import validateSchema from '../generated/validator.generated.ts';
import { requestSchema } from '../generated/schema.generated.ts';
import {
  withPassphraseOptionsDefaults,
  withPasswordOptionsDefaults,
  type PassphraseOptions,
  type PasswordOptions,
} from '../generated/options.generated.ts';

export type { PasswordOptions, PassphraseOptions };

export interface ErrorBody {
  error: string;
  status: number;
  field?: string;
}

export type Separator = PassphraseOptions['separator'];

/**
 * A password request made to a `passwordrules` string: the text as given, and the length
 * exactly as given (undefined when the request has none, so that the rule's own default
 * length applies, not the schema's default for the classes; docs/password-rules.md, Length).
 */
export interface RulesRequest {
  readonly text: string;
  readonly length: number | undefined;
}

/** `minBits` is the request's entropy floor (0: none); `rules` is set when the options carry
 * `passwordRules`, and the class options are then all at their defaults (the schema refuses
 * them beside it) and unused. */
export type ValidRequest = (
  | { mode: 'password'; count: number; minBits: number; options: PasswordOptions; rules: RulesRequest | null }
  | { mode: 'passphrase'; count: number; minBits: number; options: PassphraseOptions }
) & {
  /** The named policy asked for (its options are then the schema's defaults, unused:
   * generate.ts replaces the request by the stored one); absent without one. */
  policy?: string;
};

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

/** The request's own fields, as the message for an unusual top-level key lists them. */
const TOP_LEVEL_FIELDS = Object.keys(requestSchema.properties).join(', ');

/**
 * A `false` schema under `dependentSchemas/<name>/properties/<key>`: the field is refused
 * because `<name>` is present beside it (docs/decisions.md, Passwords to a site's rules). Any
 * other `false` schema would be a schema this module does not know how to word.
 */
function describeFalseSchema(err: AjvError, field: string): Validation {
  const m = /\/dependentSchemas\/([^/]+)\/properties\/[^/]+\/false schema$/.exec(err.schemaPath);
  /* c8 ignore next -- the schema has false schemas only under dependentSchemas */
  if (m === null) return invalid(`${field} is not allowed here`, field);
  const parent = field.slice(0, field.lastIndexOf('.') + 1);
  return invalid(`${field} cannot be combined with ${parent}${m[1]}`, field);
}

/** The message for a value of the wrong JSON type, worded from the field's schema. */
function describeType(own: Json, field: string): Validation {
  if (field === '') return invalid('the request body must be a JSON object');
  switch (own.type) {
    case 'integer':
      return invalid(`${field} must be an integer between ${String(own.minimum)} and ${String(own.maximum)}`, field);
    case 'number':
      return invalid(`${field} must be a number between ${String(own.minimum)} and ${String(own.maximum)}`, field);
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
  /* c8 ignore next -- every type the schema uses is handled above */
  return invalid(`${field} is invalid`, field);
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
          : invalid(`the request has a field that is not allowed (allowed: ${TOP_LEVEL_FIELDS})`);
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
    case 'pattern':
      // Only policy has a pattern at the request's level; the value is not echoed.
      return invalid(`${field} must be a policy name: a-z, 0-9, ".", "_" or "-", at most 64, first a-z or 0-9`, field);
    case 'type':
      return describeType(own, field);
    case 'false schema':
      return describeFalseSchema(err, field);
  }
  /* c8 ignore next 2 -- every keyword of the schema is handled above; kept as a safe fallback */
  return field === '' ? invalid('the request is invalid') : invalid(`${field} is invalid`, field);
}

/**
 * The error to report when the compiled schema refuses `body`. The request is a union, one
 * `oneOf` branch per mode, and each branch checks `mode` (a `const`) before its options, so a
 * body fails every branch of another mode on `mode` alone. ajv checks the `oneOf` before the
 * root's own keywords and, when it fails, lists one error per failed branch and then the
 * `oneOf` error itself. The answer is the error of the body's own branch: the first that is not
 * another branch's `mode`. When every branch failed on `mode`, the body's mode is none of them
 * and the root's own checks decide, in the order ajv runs them (`required` is already met):
 * `additionalProperties` (the first key, in the body's order, that the root's `properties`
 * lack), then `mode`. docs/api.md (Validation and the request union) says why the union is
 * checked first.
 */
function errorToReport(errors: readonly AjvError[], body: unknown): AjvError {
  const own = errors.find((e) => e.keyword !== 'oneOf' && !(e.keyword === 'const' && e.instancePath === '/mode'));
  if (own !== undefined) return own;
  // Every branch got as far as `mode`, past its `type: object`: the body is an object.
  const unknown = Object.keys(body as Json).find((key) => !Object.hasOwn(requestSchema.properties, key));
  if (unknown !== undefined) {
    return {
      instancePath: '',
      schemaPath: '#/additionalProperties',
      keyword: 'additionalProperties',
      params: { additionalProperty: unknown },
    };
  }
  return { instancePath: '/mode', schemaPath: '#/properties/mode/enum', keyword: 'enum', params: {} };
}

/**
 * One read of every own enumerable key into a fresh plain object (object spread): getters and
 * proxy traps run once, so what is validated is what is used, and a `__proto__` key becomes a
 * plain own key (spread defines properties, it never calls the `__proto__` setter). Spread is
 * the plainest copy (and V8's quickest; a null-prototype copy is slower); the copy's prototype
 * is Object.prototype, which has none of the request's field names, so a field the input
 * lacks reads as undefined unless the realm's Object.prototype has itself been modified, which
 * nothing in this code does.
 */
function snapshot(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return { ...value };
}

const COUNT_DEFAULT = requestSchema.properties.count.default;
const MIN_BITS_DEFAULT = requestSchema.properties.minBits.default;

export function validateRequest(input: unknown): Validation {
  let body: unknown;
  try {
    body = snapshot(input);
    // Only an options object is copied over the copy's own value: adding an absent `options`
    // to a spread copy sends V8 to a slow path, for the copy and for every read the validator
    // makes of it after.
    if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
      const copy = body as Json;
      const options = copy.options;
      if (options !== null && typeof options === 'object' && !Array.isArray(options)) copy.options = snapshot(options);
    }
  } catch {
    return invalid('the request could not be read');
  }
  if (!schemaValidator(body)) {
    const errors = schemaValidator.errors;
    /* c8 ignore next -- ajv always reports at least one error when validation fails */
    if (!errors || errors.length === 0) return invalid('the request is invalid');
    return describeError(errorToReport(errors, body), (body as Json | null)?.mode);
  }
  // The schema accepted it: an object with a valid mode, count and options.
  const accepted = body as Json;
  // Accepted: an undefined value counts as absent, as in the compiled schema.
  const count = accepted.count === undefined ? COUNT_DEFAULT : (accepted.count as number);
  const minBits = accepted.minBits === undefined ? MIN_BITS_DEFAULT : (accepted.minBits as number);
  const given = accepted.options as Json | undefined;
  if (accepted.policy !== undefined) return withPolicy(accepted.mode, count, accepted.policy as string);
  if (accepted.mode === 'passphrase') {
    return { ok: true, request: { mode: 'passphrase', count, minBits, options: withPassphraseOptionsDefaults(given) } };
  }
  const options = withPasswordOptionsDefaults(given);
  const rules: RulesRequest | null =
    options.passwordRules === undefined
      ? null
      : { text: options.passwordRules, length: given?.length as number | undefined };
  return { ok: true, request: { mode: 'password', count, minBits, options, rules } };
}

/** A request naming a policy: the schema has refused options and minBits beside it, so they
 * are the defaults here; generate.ts resolves the name to the stored request. */
function withPolicy(mode: unknown, count: number, policy: string): Validation {
  return mode === 'passphrase'
    ? {
        ok: true,
        request: { mode, count, minBits: MIN_BITS_DEFAULT, options: withPassphraseOptionsDefaults(undefined), policy },
      }
    : {
        ok: true,
        request: {
          mode: 'password',
          count,
          minBits: MIN_BITS_DEFAULT,
          options: withPasswordOptionsDefaults(undefined),
          rules: null,
          policy,
        },
      };
}
