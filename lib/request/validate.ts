/**
 * Request validation: the compiled schema decides what is valid; this module turns its first
 * error into the contract's body, with numbers read from the schema itself (never from ajv's
 * English and never echoing a submitted value), then applies the schema's defaults. The pool
 * rules a JSON Schema cannot state live in the core (lib/core/password.ts; those of a
 * `passwordRules` string in lib/core/rules/), and the entropy floor in generate.ts. The one
 * exception is what the password constraints (the class minimums, minClasses, firstCharacter, lastCharacter) ask of each other
 * and of length and the included classes: a rule between option values, which a schema cannot
 * state either but which needs no pool, so it is checked here, before any planning, and a
 * policy's stored options meet the same check (constraintError).
 * @module
 */
import validateSchema from '../generated/validator.generated.ts';
import { requestSchema } from '../generated/schema.generated.ts';
import {
  CHARACTER_CLASSES,
  didYouMean,
  effectiveMinimum,
  nearestNames,
  type CharacterClass,
  type ErrorBody,
} from '../core/index.ts';
import {
  withPassphraseOptionsDefaults,
  withPasswordOptionsDefaults,
  type PassphraseOptions,
  type PasswordOptions,
} from '../generated/options.generated.ts';

export type { ErrorBody, PasswordOptions, PassphraseOptions };

/**
 * A password request made to a `passwordrules` string: the text as given, and the length
 * exactly as given (undefined when the request has none, so that the rule's own default
 * length applies, not the schema's default for the classes; docs/password-rules.md, Length).
 */
export interface RulesRequest {
  readonly text: string;
  readonly length: number | undefined;
}

/** A password request made to a regular expression (`options.pattern`): the text and the length
 * as given (undefined: the pattern's own default length; docs/pattern.md). */
export type PatternRequest = RulesRequest;

/** `minBits` is the request's entropy floor (0: none); `rules` is set when the options carry
 * `passwordRules`, `pattern` when they carry `pattern`, and the class options are then all at
 * their defaults (the schema refuses them beside either) and unused. */
export type ValidRequest = (
  | {
      mode: 'password';
      count: number;
      minBits: number;
      options: PasswordOptions;
      rules: RulesRequest | null;
      pattern: PatternRequest | null;
    }
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

/** A field name is repeated in a message only if it is short and plain; anything else is not
 * echoed (here, and for a name given twice: lib/http/json-text.ts). */
export const PLAIN_NAME = /^[A-Za-z_$][A-Za-z0-9_$-]{0,39}$/;

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

/** Each mode's option names, from the schema's branches (one per mode, its options a $ref). */
const OPTIONS_OF: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.fromEntries(
    (requestSchema.oneOf as readonly Json[]).map((branch) => {
      const properties = branch.properties as Json;
      const options = resolvePointer((properties.options as Json).$ref as string).properties as Json;
      return [(properties.mode as Json).const as string, Object.freeze(Object.keys(options))];
    }),
  ),
);

const modesWith = (name: string): string[] => Object.keys(OPTIONS_OF).filter((m) => OPTIONS_OF[m].includes(name));

/**
 * Help for an unknown option of mode `mode` (a plain name, see PLAIN_NAME), after the message:
 * an option of another mode says so; else the nearest options of the mode, else of another mode
 * (suggest.ts); else a field of the request sent inside options. '' when nothing is near.
 */
function optionHint(name: string, mode: string): string {
  const elsewhere = modesWith(name).find((m) => m !== mode);
  if (elsewhere !== undefined) return `: it is an option of mode ${elsewhere}`;
  const own = nearestNames(name, OPTIONS_OF[mode] ?? []);
  if (own.length > 0) return `: ${didYouMean(own)}`;
  for (const other of Object.keys(OPTIONS_OF)) {
    const near = other === mode ? [] : nearestNames(name, OPTIONS_OF[other]);
    if (near.length > 0)
      return `: did you mean ${near.join(' or ')}, ${near.length === 1 ? 'an option' : 'options'} of mode ${other}?`;
  }
  return Object.hasOwn(requestSchema.properties, name) ? ': it is a field of the request, beside options' : '';
}

/**
 * Help for an unknown top-level member (a plain name): an option of the body's mode (of any
 * mode, when the body has none) belongs in options; an option of another mode says which; else
 * the nearest field or option of the request. '' when nothing is near.
 */
function fieldHint(name: string, mode: unknown): string {
  const modes = typeof mode === 'string' && Object.hasOwn(OPTIONS_OF, mode) ? [mode] : Object.keys(OPTIONS_OF);
  const owners = modesWith(name);
  if (owners.some((m) => modes.includes(m))) return ': put it in options';
  if (owners.length > 0) return `: it is an option of mode ${owners[0]}, in options`;
  const fields = Object.keys(requestSchema.properties);
  const near = nearestNames(name, [...fields, ...modes.flatMap((m) => OPTIONS_OF[m])]);
  const shown = [...new Set(near.map((n) => (fields.includes(n) ? n : `options.${n}`)))];
  return shown.length > 0 ? `: ${didYouMean(shown)}` : '';
}

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

/** An error that may be a list option's (firstCharacter, lastCharacter): of the list's own
 * keywords (type, minItems, maxItems, uniqueItems) or of its items' (group 1 is the option's
 * schema, a list when its type says so). */
const ARRAY_FIELD = /^(#\/\$defs\/[^/]+\/properties\/[^/]+)\/(?:items\/)?(?:type|minItems|maxItems|uniqueItems|enum)$/;

/**
 * One message for every way a list option can be wrong, naming the list itself (not the index
 * of an item in it): what it must be says what to send.
 */
function describeList(own: Json, instancePath: string): Validation {
  const path = instancePath.slice(1).split('/');
  // An item's error points at the item (`/options/firstCharacter/0`): the option is its parent.
  const field = (/^\d+$/.test(path[path.length - 1]) ? path.slice(0, -1) : path).join('.');
  const names = listOf((own.items as Json).enum as unknown[]);
  return invalid(`${field} must be a non-empty list of distinct names from ${names}`, field);
}

/** The message for one ajv error, worded from the schema node that failed. */
function describeError(err: AjvError, mode: unknown): Validation {
  const list = ARRAY_FIELD.exec(err.schemaPath)?.[1];
  if (list !== undefined) {
    const node = resolvePointer(list);
    if (node.type === 'array') return describeList(node, err.instancePath);
  }
  const field = err.instancePath.slice(1).replace(/\//g, '.');
  // schemaPath ends in the failing keyword; its parent is the field's own schema.
  const own = resolvePointer(err.schemaPath.slice(0, err.schemaPath.lastIndexOf('/')));
  switch (err.keyword) {
    case 'required':
      return invalid(`${String(err.params.missingProperty)} is required`, String(err.params.missingProperty));
    case 'additionalProperties': {
      const name = String(err.params.additionalProperty);
      const plain = PLAIN_NAME.test(name);
      // Only a plain name is echoed, and only known names are added to it.
      if (field === '') {
        return plain
          ? invalid(`${name} is not a field of the request${fieldHint(name, mode)}`, name)
          : invalid(`the request has a field that is not allowed (allowed: ${TOP_LEVEL_FIELDS})`);
      }
      return plain
        ? invalid(
            `${field}.${name} is not an option of mode ${String(mode)}${optionHint(name, String(mode))}`,
            `${field}.${name}`,
          )
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
  // A missing mode beside an unknown member is most likely that member mistyped (`mdoe`): the
  // member is named first.
  const mistyped = own?.keyword === 'required' && own.instancePath === '';
  if (own !== undefined && !mistyped) return own;
  // Every branch got as far as `mode`, past its `type: object` (or stopped at `required`, which
  // an object only fails): the body is an object.
  const unknown = Object.keys(body as Json).find((key) => !Object.hasOwn(requestSchema.properties, key));
  if (own !== undefined && unknown === undefined) return own;
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

/** The options' lists (firstCharacter, lastCharacter), each copied once into the copy: as
 * snapshot does for the objects, so that a list's items are read once and what is validated is
 * what is used. Plain reads, not a loop over the names: this runs on every request. */
function snapshotLists(options: Json): Json {
  const first = options.firstCharacter;
  if (Array.isArray(first)) options.firstCharacter = [...(first as unknown[])];
  const last = options.lastCharacter;
  if (Array.isArray(last)) options.lastCharacter = [...(last as unknown[])];
  return options;
}

/** The options of every password request that gives none: one frozen object, so the plan's
 * store key is made once, not on each such request (generate.ts; docs/benchmark.md, "The
 * request path against the lean limit"). */
export const DEFAULT_PASSWORD_OPTIONS: PasswordOptions = Object.freeze(withPasswordOptionsDefaults(undefined));

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
      if (options !== null && typeof options === 'object' && !Array.isArray(options)) {
        copy.options = snapshotLists(snapshot(options) as Json);
      }
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
  const options = given === undefined ? DEFAULT_PASSWORD_OPTIONS : withPasswordOptionsDefaults(given);
  // With passwordRules or pattern the schema has refused every constraint option: nothing to check.
  if (options.passwordRules === undefined && options.pattern === undefined) {
    const refused = constraintError(options);
    if (refused !== null) return refused;
  }
  const length = given?.length as number | undefined;
  const rules = options.passwordRules === undefined ? null : { text: options.passwordRules, length };
  const pattern = options.pattern === undefined ? null : { text: options.pattern, length };
  return { ok: true, request: { mode: 'password', count, minBits, options, rules, pattern } };
}

/**
 * The 400 for password constraints that contradict each other, length or the included classes,
 * decided from the option values alone (the pool after avoidAmbiguous and excludedCharacters is
 * the core's to check: an emptied class with a minimum, an empty first or last class). Without
 * an included class there is nothing to weigh them against: the core's "options must enable at
 * least one" is the error to fix first. null: nothing to refuse here.
 */
function constraintError(options: PasswordOptions): { ok: false; error: ErrorBody } | null {
  // Most requests give none of them: plain reads, so they pay nothing for the checks below,
  // whose keyed reads over the class table are far dearer (maxRepeating and maxSequential need
  // no check here).
  if (
    options.minLowercase === undefined &&
    options.minUppercase === undefined &&
    options.minNumbers === undefined &&
    options.minSymbols === undefined &&
    options.maxLowercase === undefined &&
    options.maxUppercase === undefined &&
    options.maxNumbers === undefined &&
    options.maxSymbols === undefined &&
    options.minClasses === undefined &&
    options.firstCharacter === undefined &&
    options.lastCharacter === undefined
  ) {
    return null;
  }
  const included = CHARACTER_CLASSES.filter((c) => options[c.option]);
  if (included.length === 0) return null;
  for (const c of CHARACTER_CLASSES) {
    for (const bound of [c.min, c.max]) {
      if (options[bound] === undefined || options[c.option]) continue;
      return invalid(
        `options.${bound} asks for ${c.name}, which this request does not include: set options.${c.option} to true, or leave options.${bound} out`,
        `options.${bound}`,
      );
    }
    const min = options[c.min];
    if (min !== undefined && min > options.length) {
      return invalid(
        `options.${c.min} must be at most options.length (${options.length}): a password of ${options.length} characters cannot hold ${min} ${c.noun}`,
        `options.${c.min}`,
      );
    }
    const max = options[c.max];
    if (max !== undefined && max < effectiveMinimum(options, c)) {
      return invalid(
        `options.${c.max} (${max}) is below the minimum of ${c.name} (${effectiveMinimum(options, c)}${options[c.min] === undefined ? ', its default' : ''}): raise options.${c.max} or lower the minimum`,
        `options.${c.max}`,
      );
    }
  }
  return (
    minimumsError(options, included) ??
    maximumsError(options, included) ??
    minClassesError(options, included) ??
    endsError(options)
  );
}

/**
 * The included classes' maximums leaving room for fewer characters than length (a class with no
 * maximum holds any number). The option named is the last maximum given, in schema order.
 */
function maximumsError(
  options: PasswordOptions,
  included: readonly CharacterClass[],
): { ok: false; error: ErrorBody } | null {
  const bounded = included.filter((c) => options[c.max] !== undefined);
  if (bounded.length === 0 || bounded.length < included.length) return null;
  const room = bounded.reduce((sum, c) => sum + (options[c.max] as number), 0);
  if (room >= options.length) return null;
  const each = bounded.map((c) => `${c.name} ${options[c.max] as number}`).join(', ');
  const last = bounded[bounded.length - 1];
  return invalid(
    `options.${last.max}: the included classes' maximums (${each}) leave room for ${room} characters, fewer than options.length (${options.length}): raise a maximum, include another class, or make the password shorter`,
    `options.${last.max}`,
  );
}

/**
 * The included classes' minimums summing above length. The option named is the last minimum
 * that pushes the sum over: the defaults (1 per class without its own) are counted first, as
 * they are not the request's words, then the minimums given, in schema order.
 */
function minimumsError(
  options: PasswordOptions,
  included: readonly CharacterClass[],
): { ok: false; error: ErrorBody } | null {
  let total = included.reduce((sum, c) => (options[c.min] === undefined ? sum + effectiveMinimum(options, c) : sum), 0);
  for (const c of included) {
    const min = options[c.min];
    if (min === undefined) continue;
    total += min;
    if (total <= options.length) continue;
    const sum = included.reduce((s, d) => s + effectiveMinimum(options, d), 0);
    const each = included.map((d) => `${d.name} ${effectiveMinimum(options, d)}`).join(', ');
    const defaults =
      options.minClasses === undefined && included.some((d) => options[d.min] === undefined)
        ? '; an included class without a minimum of its own needs 1'
        : '';
    return invalid(
      `options.${c.min} brings the included classes' minimums to ${sum} (${each}${defaults}), more than options.length (${options.length}): lower the minimums or make the password longer`,
      `options.${c.min}`,
    );
  }
  return null;
}

/**
 * minClasses above the number of included classes, or more characters than length once each
 * class beyond those the minimums already make appear needs one more.
 */
function minClassesError(
  options: PasswordOptions,
  included: readonly CharacterClass[],
): { ok: false; error: ErrorBody } | null {
  const k = options.minClasses;
  if (k === undefined) return null;
  if (k > included.length) {
    return invalid(
      `options.minClasses is ${k}, but the request includes ${included.length} ${included.length === 1 ? 'class' : 'classes'} (${included.map((c) => c.name).join(', ')}): include more classes or lower options.minClasses`,
      'options.minClasses',
    );
  }
  const minimums = included.map((c) => effectiveMinimum(options, c));
  const present = minimums.filter((m) => m > 0).length;
  const needed = minimums.reduce((s, m) => s + m, 0) + Math.max(0, k - present);
  if (needed <= options.length) return null;
  const each = included.map((c, i) => `${c.name} ${minimums[i]}`).join(', ');
  return invalid(
    `options.minClasses asks for ${k} classes: with the minimums (${each}) that takes at least ${needed} characters, more than options.length (${options.length}): lower a minimum or options.minClasses, or make the password longer`,
    'options.minClasses',
  );
}

/** A first or last character class that the request does not include. */
function endsError(options: PasswordOptions): { ok: false; error: ErrorBody } | null {
  for (const key of ['firstCharacter', 'lastCharacter'] as const) {
    for (const name of options[key] ?? []) {
      const c = CHARACTER_CLASSES.find((d) => d.name === name);
      if (c === undefined || options[c.option]) continue;
      return invalid(
        `options.${key} names ${name}, which this request does not include: set options.${c.option} to true, or leave ${name} out of options.${key}`,
        `options.${key}`,
      );
    }
  }
  return null;
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
          pattern: null,
          policy,
        },
      };
}
