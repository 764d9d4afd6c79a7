/**
 * fast-check arbitraries for request bodies of POST /generate, shared by the in-process fuzz
 * (tests/request/fuzz.test.ts) and the socket fuzz (tests/helpers/http-fuzz.ts).
 *
 * A body is produced as JSON *text*, because that is what the server sees, from one of:
 * valid requests; valid requests with one path mutated (wrong type, out of range, removed,
 * an extra key such as `__proto__`/`constructor`/`prototype`); arbitrary JSON values;
 * deep nesting; huge and odd numbers; unicode (lone surrogates, BOM, NUL, RTL, emoji); and
 * broken JSON (truncated, a byte inserted/deleted/replaced, duplicate keys spelled in text).
 *
 * Seeds: `fuzzSeed(name)` reads FUZZ_SEED (any 32-bit integer) or draws one, and prints it, so
 * any failing run can be replayed with `FUZZ_SEED=<seed>`.
 */
import fc from 'fast-check';
import { PASSWORD_BASIC_OPTIONS } from './limits.ts';

/** The seed of this run: FUZZ_SEED if set, else random; printed either way. */
export function fuzzSeed(label: string): number {
  const raw = process.env.FUZZ_SEED;
  const seed = raw !== undefined && raw !== '' ? Number(raw) | 0 : (Math.random() * 0x7fffffff) | 0;
  process.stdout.write(`${label}: seed ${seed} (replay with FUZZ_SEED=${seed})\n`);
  return seed;
}

/** A run count from an env variable, else the default. */
export function runsFrom(variable: string, fallback: number): number {
  const raw = process.env[variable];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : fallback;
}

const PASSPHRASE_KEYS = ['wordCount', 'separator', 'capitalize', 'addNumber'];
const EVIL_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'isPrototypeOf',
  'polluted',
  '',
];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Strings that break naive code: unicode edge cases, control characters, long runs. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '\ud800',
    '\udfff',
    '\ud83d\ude00',
    '\u0000',
    '\ufeff',
    '\u202e',
    '\u2028\u2029',
    'A\u030a',
    'password\u0000',
    'pass\u200bword',
    'PASSWORD',
    ' password',
    'hyphen ',
  ),
  fc.integer({ min: 257, max: 20_000 }).map((n) => 'x'.repeat(n)),
  fc.constantFrom(...EVIL_KEYS),
);

/** Numbers a JSON parser and a schema validator can trip on (as JSON text fragments). */
export const oddNumberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '1e400',
    '-1e400',
    '1e-400',
    '-0',
    '0.0',
    '8.0',
    '20.0',
    '20.000000000000001',
    '1.0000000000000002',
    '4.999999999999999',
    '9007199254740993',
    '99999999999999999999999999',
    '-99999999999999999999',
    '1E1',
    '2e1',
    '0.5e1',
    '128.0',
    '129',
    '7',
    '0',
    '123456789012345678901234567890123456789012345678901234567890',
    '0.1e-999999',
    '1e+308',
    '1.7976931348623157e308',
  ),
  fc
    .double()
    .filter(Number.isFinite)
    .map((d) => JSON.stringify(d)),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
);

const jsonScalar: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double().filter(Number.isFinite),
  nastyString,
);

/** Any JSON value, a few levels deep, with evil keys mixed into objects. */
export const anyJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    jsonScalar,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(
      fc.oneof(
        fc.constantFrom(...EVIL_KEYS, 'mode', 'count', 'options', ...PASSWORD_BASIC_OPTIONS, ...PASSPHRASE_KEYS),
        fc.string({ maxLength: 8 }),
      ),
      tie('value'),
      { maxKeys: 5 },
    ),
  ),
})).value;

export const validPassword = fc.record(
  {
    length: fc.integer({ min: 8, max: 128 }),
    includeLowercase: fc.boolean(),
    includeUppercase: fc.boolean(),
    includeNumbers: fc.boolean(),
    includeSymbols: fc.boolean(),
    avoidAmbiguous: fc.boolean(),
    excludedCharacters: fc.string({ maxLength: 12 }),
  },
  { requiredKeys: [] },
);

export const validPassphrase = fc.record(
  {
    wordCount: fc.integer({ min: 4, max: 8 }),
    separator: fc.constantFrom('hyphen', 'underscore', 'dot', 'space'),
    capitalize: fc.boolean(),
    addNumber: fc.boolean(),
  },
  { requiredKeys: [] },
);

/** Requests the schema accepts (a password pool may still be empty: that is a 400 too). Small
 * counts keep the fuzz fast; the count bound is covered by mutations. */
export const validRequest: fc.Arbitrary<Record<string, Json>> = fc.oneof(
  fc.record(
    { mode: fc.constant('password'), count: fc.integer({ min: 1, max: 3 }), options: validPassword },
    { requiredKeys: ['mode'] },
  ),
  fc.record(
    { mode: fc.constant('passphrase'), count: fc.integer({ min: 1, max: 3 }), options: validPassphrase },
    { requiredKeys: ['mode'] },
  ),
);

/** A JSON value of the wrong kind for wherever it lands. */
const wrongValue: fc.Arbitrary<Json | { raw: string }> = fc.oneof(
  anyJson,
  oddNumberText.map((raw) => ({ raw })),
  fc.constantFrom<Json>(
    null,
    true,
    false,
    '',
    '24',
    '20',
    'true',
    [],
    {},
    [20],
    { length: 20 },
    -1,
    0,
    1,
    21,
    129,
    3,
    1.5,
    'password',
  ),
);

const RAW = '\u0000raw\u0000';

/** Serialises, writing `{raw}` placeholders as raw JSON text (for numbers JSON.stringify cannot say). */
function toText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      Object.keys(v).length === 1 &&
      typeof (v as { raw?: unknown }).raw === 'string'
    ) {
      raws.push((v as { raw: string }).raw);
      return `${RAW}${raws.length - 1}`;
    }
    return v;
  });
  return text.replace(
    // eslint-disable-next-line no-control-regex -- the placeholder is a NUL-prefixed token no JSON text contains
    new RegExp(`"${RAW.replace(/\u0000/g, '\\\\u0000')}(\\d+)"`, 'g'),
    (_m, i: string) => raws[Number(i)],
  );
}

/** Builds `{ ...obj }` with a real own property named `key` (even `__proto__`). */
function withOwn(obj: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj))
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** One path of a valid request mutated. */
export const mutatedRequest: fc.Arbitrary<string> = fc
  .tuple(
    validRequest,
    fc.constantFrom('replace', 'add', 'delete', 'replace-top', 'add-top'),
    fc.nat(),
    wrongValue,
    fc.oneof(fc.constantFrom(...EVIL_KEYS, ...PASSWORD_BASIC_OPTIONS, ...PASSPHRASE_KEYS), fc.string({ maxLength: 6 })),
  )
  .map(([req, how, pick, value, key]) => {
    const options = (req.options ?? {}) as Record<string, Json>;
    const optionKeys = Object.keys(options);
    const topKeys = Object.keys(req);
    switch (how) {
      case 'replace': {
        if (optionKeys.length === 0) return toText({ ...req, options: value });
        const k = optionKeys[pick % optionKeys.length];
        return toText({ ...req, options: { ...options, [k]: value } });
      }
      case 'add':
        return toText({ ...req, options: withOwn(options, key, value) });
      case 'delete': {
        const k = topKeys[pick % topKeys.length];
        const copy = { ...req };
        delete copy[k];
        return toText(copy);
      }
      case 'replace-top': {
        const k = topKeys[pick % topKeys.length];
        return toText({ ...req, [k]: value });
      }
      default:
        return toText(withOwn(req, key, value));
    }
  });

/** Nesting deep enough to hurt a recursive walker (JSON.parse itself is iterative in V8). */
export const deepText: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 10, max: 5_000 }), fc.constantFrom('array', 'object', 'options', 'mixed'))
  .map(([depth, kind]) => {
    if (kind === 'array') return '['.repeat(depth) + ']'.repeat(depth);
    if (kind === 'object') return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    if (kind === 'options') return `{"mode":"password","options":${'{"length":'.repeat(depth)}8${'}'.repeat(depth)}}`;
    return `{"mode":"passphrase","count":${'[{"x":'.repeat(depth)}0${'}]'.repeat(depth)}}`;
  });

/** Text that is not JSON, or only nearly. */
export const brokenText: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(validRequest.map(toText), mutatedRequest),
    fc.constantFrom(
      'truncate',
      'insert',
      'delete',
      'replace',
      'dupkey',
      'trailing',
      'bom',
      'comment',
      'single-quotes',
      'nan',
    ),
    fc.nat(),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }),
  )
  .map(([text, how, at, junk]) => {
    const i = text.length === 0 ? 0 : at % text.length;
    switch (how) {
      case 'truncate':
        return text.slice(0, i);
      case 'insert':
        return text.slice(0, i) + junk + text.slice(i);
      case 'delete':
        return text.slice(0, i) + text.slice(i + 1);
      case 'replace':
        return text.slice(0, i) + junk + text.slice(i + 1);
      case 'dupkey':
        return text.startsWith('{') && text.length > 2 ? `{"mode":"password","count":999,${text.slice(1)}` : `${text}}`;
      case 'trailing':
        return `${text},`;
      case 'bom':
        return `\ufeff${text}`;
      case 'comment':
        return `/* x */${text}`;
      case 'single-quotes':
        return text.replace(/"/g, "'");
      default:
        return text.replace(/\d+/, 'NaN');
    }
  });

/** Every kind of body, as text. */
export const bodyText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: validRequest.map(toText), weight: 3 },
  { arbitrary: mutatedRequest, weight: 6 },
  { arbitrary: anyJson.map(toText), weight: 2 },
  {
    arbitrary: fc
      .tuple(validRequest, oddNumberText, fc.constantFrom('count', 'length', 'wordCount'))
      .map(([r, n, k]) =>
        k === 'count'
          ? toText({ ...r, count: { raw: n } })
          : toText({ ...r, options: { ...((r.options ?? {}) as object), [k]: { raw: n } } }),
      ),
    weight: 2,
  },
  { arbitrary: deepText, weight: 1 },
  { arbitrary: brokenText, weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 64 }), weight: 1 },
);

/** A snapshot of the built-in prototypes: own property names and descriptors' shape. */
export function prototypeSnapshot(): string {
  const parts: string[] = [];
  for (const [name, proto] of [
    ['Object', Object.prototype],
    ['Array', Array.prototype],
    ['Function', Function.prototype],
    ['String', String.prototype],
  ] as const) {
    const names = Object.getOwnPropertyNames(proto).sort();
    parts.push(`${name}:${names.join(',')}:${String(Object.getPrototypeOf(proto))}`);
  }
  return parts.join('|');
}
