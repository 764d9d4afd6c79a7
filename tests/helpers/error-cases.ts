/**
 * The shared table of bad inputs and the exact 400 body each must produce. The core tests run
 * it through `generate()`, the HTTP tests POST `JSON.stringify(input)`, and the browser tests
 * pass `JSON.stringify(input)` into the page and `JSON.parse` it there before calling
 * `ServiceAPI.generate` (so own `__proto__` keys survive, as they do in a JSON body).
 * Every input is JSON-serialisable.
 */
export interface ErrorCase {
  readonly name: string;
  readonly input: unknown;
  readonly expected: { readonly error: string; readonly status: 400; readonly field?: string };
}

const e = (error: string, field?: string) =>
  field === undefined ? { error, status: 400 as const } : { error, status: 400 as const, field };

const LENGTH = e('options.length must be between 8 and 128', 'options.length');
const LENGTH_TYPE = e('options.length must be an integer between 8 and 128', 'options.length');
const COUNT = e('count must be between 1 and 20', 'count');
const COUNT_TYPE = e('count must be an integer between 1 and 20', 'count');
const WORDS = e('options.wordCount must be between 4 and 8', 'options.wordCount');
const WORDS_TYPE = e('options.wordCount must be an integer between 4 and 8', 'options.wordCount');
const NOT_OBJECT = e('the request body must be a JSON object');
const MODE = e('mode must be one of "password", "passphrase"', 'mode');
const SEPARATOR = e(
  'options.separator must be one of "hyphen", "underscore", "dot", "space", "digit", "symbol"',
  'options.separator',
);
const MIN_BITS = e('minBits must be between 0 and 256', 'minBits');
const WORD_LIST = e(
  'options.wordList must be one of "eff-large", "bip39-english", "bip39-japanese", "bip39-korean", "bip39-spanish", "bip39-chinese-simplified", "bip39-chinese-traditional", "bip39-french", "bip39-italian", "bip39-czech", "bip39-portuguese"',
  'options.wordList',
);
const lengthBound = (name: string) => e(`options.${name} must be between 1 and 128`, `options.${name}`);
const lengthBoundType = (name: string) => e(`options.${name} must be an integer between 1 and 128`, `options.${name}`);
const MIN_BITS_TYPE = e('minBits must be a number between 0 and 256', 'minBits');
const RULES = 'options.passwordRules';
const rulesError = (error: string) => e(error, RULES);
/** A rule refused on its own: the case `passwordRules <name>`, the rule alone, its 400 at
 * options.passwordRules. */
const ruleRefused = (name: string, passwordRules: string, error: string) => ({
  name: `passwordRules ${name}`,
  input: pw({ passwordRules }),
  expected: rulesError(error),
});
const combined = (option: string) =>
  e(`options.${option} cannot be combined with options.passwordRules`, `options.${option}`);

const PATTERN = 'options.pattern';
const patternError = (error: string) => e(error, PATTERN);

const pw = (options: unknown) => ({ mode: 'password', options });
const pp = (options: unknown) => ({ mode: 'passphrase', options });

export const ERROR_CASES: readonly ErrorCase[] = [
  { name: 'body is an array', input: [], expected: NOT_OBJECT },
  { name: 'body is null', input: null, expected: NOT_OBJECT },
  { name: 'body is a string', input: 'password', expected: NOT_OBJECT },
  { name: 'body is a number', input: 42, expected: NOT_OBJECT },
  { name: 'mode missing', input: {}, expected: e('mode is required', 'mode') },
  {
    name: 'mode missing with options',
    input: { count: 2, options: { length: 12 } },
    expected: e('mode is required', 'mode'),
  },
  { name: 'mode unknown', input: { mode: 'pin' }, expected: MODE },
  { name: 'mode wrong case', input: { mode: 'Password' }, expected: MODE },
  { name: 'mode a number', input: { mode: 1 }, expected: MODE },
  { name: 'mode null', input: { mode: null }, expected: MODE },
  {
    name: 'unknown top-level field',
    input: { mode: 'password', length: 12 },
    expected: e('length is not a field of the request: put it in options', 'length'),
  },
  // Typos get help (issue 41): the nearest known names by edit distance, an unknown top-level
  // member named before a missing mode, an option at the top level sent to options. Only the
  // unknown name itself is echoed, and only a plain, short one.
  {
    name: 'unknown top-level field, mode missing: the field first, with the nearest name',
    input: { mdoe: 'password' },
    expected: e('mdoe is not a field of the request: did you mean mode?', 'mdoe'),
  },
  {
    name: 'an option at the top level, mode missing',
    input: { wordCount: 6 },
    expected: e('wordCount is not a field of the request: put it in options', 'wordCount'),
  },
  {
    name: 'an option of the other mode at the top level',
    input: { mode: 'passphrase', length: 20 },
    expected: e('length is not a field of the request: it is an option of mode password, in options', 'length'),
  },
  {
    name: 'a mistyped option at the top level',
    input: { mode: 'password', lenght: 20 },
    expected: e('lenght is not a field of the request: did you mean options.length?', 'lenght'),
  },
  {
    name: 'a mistyped top-level field beside a valid mode',
    input: { mode: 'password', cuont: 2 },
    expected: e('cuont is not a field of the request: did you mean count?', 'cuont'),
  },
  {
    name: 'a top-level field far from every name: no suggestion',
    input: { mode: 'password', zebra: 1 },
    expected: e('zebra is not a field of the request', 'zebra'),
  },
  {
    name: 'a long unknown top-level field, mode missing: not echoed',
    input: { ['m'.repeat(41)]: 1 },
    expected: e('the request has a field that is not allowed (allowed: mode, count, minBits, options, policy)'),
  },
  {
    name: 'a mistyped option: lenght',
    input: pw({ lenght: 20 }),
    expected: e('options.lenght is not an option of mode password: did you mean length?', 'options.lenght'),
  },
  {
    name: 'a mistyped option: minNumber',
    input: pw({ minNumber: 2 }),
    expected: e('options.minNumber is not an option of mode password: did you mean minNumbers?', 'options.minNumber'),
  },
  {
    name: 'a mistyped option: first_character',
    input: pw({ first_character: ['lowercase'] }),
    expected: e(
      'options.first_character is not an option of mode password: did you mean firstCharacter?',
      'options.first_character',
    ),
  },
  {
    name: 'a mistyped option: wordcount',
    input: pp({ wordcount: 6 }),
    expected: e('options.wordcount is not an option of mode passphrase: did you mean wordCount?', 'options.wordcount'),
  },
  {
    name: 'an option of the other mode, mistyped',
    input: pw({ wordcount: 6 }),
    expected: e(
      'options.wordcount is not an option of mode password: did you mean wordCount, an option of mode passphrase?',
      'options.wordcount',
    ),
  },
  {
    name: 'a mistyped option with a control character: no suggestion, not echoed',
    input: pw({ 'lenght\u0007': 20 }),
    expected: e('options has a key that is not an option of mode password', 'options'),
  },
  {
    name: 'own __proto__ key',
    input: JSON.parse('{"mode":"password","__proto__":{"polluted":true}}'),
    expected: e('__proto__ is not a field of the request', '__proto__'),
  },
  {
    name: 'constructor key in options',
    input: pw({ constructor: { prototype: {} } }),
    expected: e('options.constructor is not an option of mode password', 'options.constructor'),
  },
  { name: 'count 0 (min-1)', input: { mode: 'password', count: 0 }, expected: COUNT },
  { name: 'count 21 (max+1)', input: { mode: 'password', count: 21 }, expected: COUNT },
  { name: 'count -1', input: { mode: 'passphrase', count: -1 }, expected: COUNT },
  { name: 'count 1.5', input: { mode: 'password', count: 1.5 }, expected: COUNT_TYPE },
  { name: 'count "2"', input: { mode: 'password', count: '2' }, expected: COUNT_TYPE },
  { name: 'count null', input: { mode: 'password', count: null }, expected: COUNT_TYPE },
  { name: 'count true', input: { mode: 'password', count: true }, expected: COUNT_TYPE },
  { name: 'count 1e300', input: { mode: 'password', count: 1e300 }, expected: COUNT },
  { name: 'options an array', input: pw([]), expected: e('options must be an object', 'options') },
  { name: 'options null', input: pw(null), expected: e('options must be an object', 'options') },
  { name: 'options a string', input: pp('wordCount=5'), expected: e('options must be an object', 'options') },
  { name: 'length 7 (min-1)', input: pw({ length: 7 }), expected: LENGTH },
  { name: 'length 129 (max+1)', input: pw({ length: 129 }), expected: LENGTH },
  { name: 'length 0', input: pw({ length: 0 }), expected: LENGTH },
  { name: 'length -24', input: pw({ length: -24 }), expected: LENGTH },
  { name: 'length 24.5', input: pw({ length: 24.5 }), expected: LENGTH_TYPE },
  { name: 'length "24"', input: pw({ length: '24' }), expected: LENGTH_TYPE },
  { name: 'length null', input: pw({ length: null }), expected: LENGTH_TYPE },
  { name: 'length false', input: pw({ length: false }), expected: LENGTH_TYPE },
  { name: 'length [24]', input: pw({ length: [24] }), expected: LENGTH_TYPE },
  {
    name: 'includeLowercase "true"',
    input: pw({ includeLowercase: 'true' }),
    expected: e('options.includeLowercase must be true or false', 'options.includeLowercase'),
  },
  {
    name: 'includeUppercase 1',
    input: pw({ includeUppercase: 1 }),
    expected: e('options.includeUppercase must be true or false', 'options.includeUppercase'),
  },
  {
    name: 'includeNumbers null',
    input: pw({ includeNumbers: null }),
    expected: e('options.includeNumbers must be true or false', 'options.includeNumbers'),
  },
  {
    name: 'includeSymbols "yes"',
    input: pw({ includeSymbols: 'yes' }),
    expected: e('options.includeSymbols must be true or false', 'options.includeSymbols'),
  },
  {
    name: 'avoidAmbiguous 0',
    input: pw({ avoidAmbiguous: 0 }),
    expected: e('options.avoidAmbiguous must be true or false', 'options.avoidAmbiguous'),
  },
  {
    name: 'excludedCharacters a number',
    input: pw({ excludedCharacters: 5 }),
    expected: e('options.excludedCharacters must be a string', 'options.excludedCharacters'),
  },
  {
    name: 'excludedCharacters an array',
    input: pw({ excludedCharacters: ['a'] }),
    expected: e('options.excludedCharacters must be a string', 'options.excludedCharacters'),
  },
  {
    name: 'excludedCharacters 257 characters',
    input: pw({ excludedCharacters: 'x'.repeat(257) }),
    expected: e('options.excludedCharacters must be at most 256 characters', 'options.excludedCharacters'),
  },
  {
    name: 'passphrase option in password mode',
    input: pw({ wordCount: 5 }),
    expected: e(
      'options.wordCount is not an option of mode password: it is an option of mode passphrase',
      'options.wordCount',
    ),
  },
  {
    name: 'password option in passphrase mode',
    input: pp({ length: 20 }),
    expected: e(
      'options.length is not an option of mode passphrase: it is an option of mode password',
      'options.length',
    ),
  },
  {
    name: 'unknown option',
    input: pp({ words: 5 }),
    expected: e('options.words is not an option of mode passphrase', 'options.words'),
  },
  {
    name: 'no class enabled',
    input: pw({ includeLowercase: false, includeUppercase: false, includeNumbers: false }),
    expected: e(
      'options must enable at least one of includeLowercase, includeUppercase, includeNumbers, includeSymbols',
      'options',
    ),
  },
  {
    name: 'an enabled class emptied',
    input: pw({ excludedCharacters: '0123456789' }),
    expected: e(
      'options.excludedCharacters removes every character of the enabled class numbers',
      'options.excludedCharacters',
    ),
  },
  {
    name: 'ambiguity plus exclusions empty a class',
    input: pw({ includeLowercase: false, includeUppercase: false, avoidAmbiguous: true, excludedCharacters: '234679' }),
    expected: e(
      'options.excludedCharacters removes every character of the enabled class numbers',
      'options.excludedCharacters',
    ),
  },
  {
    name: 'pool of one character',
    input: pw({ includeLowercase: false, includeUppercase: false, excludedCharacters: '012345678' }),
    expected: e('options.excludedCharacters leaves fewer than 2 characters in the pool', 'options.excludedCharacters'),
  },
  { name: 'wordCount 3 (min-1)', input: pp({ wordCount: 3 }), expected: WORDS },
  { name: 'wordCount 9 (max+1)', input: pp({ wordCount: 9 }), expected: WORDS },
  { name: 'wordCount 4.5', input: pp({ wordCount: 4.5 }), expected: WORDS_TYPE },
  { name: 'wordCount "5"', input: pp({ wordCount: '5' }), expected: WORDS_TYPE },
  { name: 'wordCount null', input: pp({ wordCount: null }), expected: WORDS_TYPE },
  { name: 'separator unknown', input: pp({ separator: 'tab' }), expected: SEPARATOR },
  { name: 'separator a character', input: pp({ separator: '-' }), expected: SEPARATOR },
  { name: 'separator a number', input: pp({ separator: 1 }), expected: SEPARATOR },
  {
    name: 'capitalize "true"',
    input: pp({ capitalize: 'true' }),
    expected: e('options.capitalize must be true or false', 'options.capitalize'),
  },
  {
    name: 'addNumber null',
    input: pp({ addNumber: null }),
    expected: e('options.addNumber must be true or false', 'options.addNumber'),
  },
  { name: 'separator "digits" (a near miss)', input: pp({ separator: 'digits' }), expected: SEPARATOR },
  // passwordRules: the schema's checks, then the rules module's, each with its field.
  {
    name: 'passwordRules a number',
    input: pw({ passwordRules: 12 }),
    expected: e('options.passwordRules must be a string', RULES),
  },
  {
    name: 'passwordRules null',
    input: pw({ passwordRules: null }),
    expected: e('options.passwordRules must be a string', RULES),
  },
  {
    name: 'passwordRules 1,025 characters',
    input: pw({ passwordRules: `minlength: 8;${' '.repeat(1012)}` }),
    expected: e('options.passwordRules must be at most 1024 characters', RULES),
  },
  {
    name: 'passwordRules in passphrase mode',
    input: pp({ passwordRules: 'minlength: 8' }),
    expected: e('options.passwordRules is not an option of mode passphrase: it is an option of mode password', RULES),
  },
  {
    name: 'passwordRules with includeLowercase',
    input: pw({ passwordRules: 'minlength: 8', includeLowercase: true }),
    expected: combined('includeLowercase'),
  },
  {
    name: 'passwordRules with includeUppercase false',
    input: pw({ passwordRules: 'minlength: 8', includeUppercase: false }),
    expected: combined('includeUppercase'),
  },
  {
    name: 'passwordRules with includeNumbers',
    input: pw({ includeNumbers: true, passwordRules: 'minlength: 8' }),
    expected: combined('includeNumbers'),
  },
  {
    name: 'passwordRules with includeSymbols',
    input: pw({ passwordRules: 'minlength: 8', includeSymbols: true }),
    expected: combined('includeSymbols'),
  },
  {
    name: 'passwordRules with avoidAmbiguous',
    input: pw({ passwordRules: 'minlength: 8', avoidAmbiguous: false }),
    expected: combined('avoidAmbiguous'),
  },
  {
    name: 'passwordRules with excludedCharacters',
    input: pw({ passwordRules: 'minlength: 8', excludedCharacters: '' }),
    expected: combined('excludedCharacters'),
  },
  ruleRefused('empty', '', 'options.passwordRules: the rule is empty (expected e.g. "minlength: 12; required: digit")'),
  ruleRefused(
    'unknown property',
    'minlength: 8; foo: 1',
    'options.passwordRules: unknown property "foo" at position 14',
  ),
  ruleRefused(
    'unknown class',
    'required: lowercase',
    'options.passwordRules: unknown character class "lowercase" at position 10: use lower',
  ),
  ruleRefused(
    'a range in a class',
    'allowed: [a-z]',
    'options.passwordRules: "-" may only be the first character of a character class (ranges are not supported), at position 11',
  ),
  ruleRefused(
    'a non-ASCII class character',
    'allowed: [§a]',
    'options.passwordRules: character "\\u00a7" in a character class is not printable ASCII, at position 10',
  ),
  ruleRefused(
    'maxlength below 8',
    'maxlength: 6',
    "options.passwordRules: maxlength 6 is below the service's minimum length 8",
  ),
  ruleRefused(
    'minlength above maxlength',
    'minlength: 20; maxlength: 12',
    'options.passwordRules: minlength 20 is greater than maxlength 12',
  ),
  ruleRefused(
    'one allowed character',
    'allowed: [a]',
    'options.passwordRules: allows only the character "a"; a password needs at least 2 to choose from',
  ),
  ruleRefused(
    'max-consecutive 0',
    'max-consecutive: 0',
    'options.passwordRules: max-consecutive 0 would allow no character at all (it must be at least 1), at position 17',
  ),
  ruleRefused(
    'max-sequential 0',
    'minlength: 8; max-sequential: 0',
    'options.passwordRules: max-sequential 0 would allow no letter or digit at all (it must be at least 1), at position 30',
  ),
  ruleRefused(
    'unknown property max-sequence',
    'max-sequence: 2',
    'options.passwordRules: unknown property "max-sequence" at position 0',
  ),
  ruleRefused(
    'with no password under max-sequential 1',
    'required: [b]; allowed: [abc]; max-consecutive: 1',
    'options.passwordRules: no password of length 24 satisfies the rule: max-sequential 1 keeps neighbours such as "ab" or "21" apart, and the allowed characters leave no other way',
  ),
  {
    name: 'length below the minlength of passwordRules',
    input: pw({ passwordRules: 'minlength: 12', length: 10 }),
    expected: e('options.length 10 is below the minlength 12 of options.passwordRules', 'options.length'),
  },
  {
    name: 'length above the maxlength of passwordRules',
    input: pw({ passwordRules: 'maxlength: 16', length: 24 }),
    expected: e('options.length 24 is above the maxlength 16 of options.passwordRules', 'options.length'),
  },
  {
    name: 'length 7 with passwordRules (the schema first)',
    input: pw({ passwordRules: 'minlength: 4', length: 7 }),
    expected: LENGTH,
  },
  // pattern (issue 43): the schema's checks, exclusivity, then each refusal of lib/core/pattern/.
  {
    name: 'pattern a number',
    input: pw({ pattern: 12 }),
    expected: e('options.pattern must be a string', PATTERN),
  },
  {
    name: 'pattern 1,025 characters',
    input: pw({ pattern: 'a'.repeat(1025) }),
    expected: e('options.pattern must be at most 1024 characters', PATTERN),
  },
  {
    name: 'pattern in passphrase mode',
    input: pp({ pattern: '[a-z]+' }),
    expected: e('options.pattern is not an option of mode passphrase: it is an option of mode password', PATTERN),
  },
  {
    name: 'pattern with includeLowercase',
    input: pw({ pattern: '[a-z]+', includeLowercase: true }),
    expected: e('options.includeLowercase cannot be combined with options.pattern', 'options.includeLowercase'),
  },
  {
    name: 'pattern with maxRepeating',
    input: pw({ pattern: '[a-z]+', maxRepeating: 2 }),
    expected: e('options.maxRepeating cannot be combined with options.pattern', 'options.maxRepeating'),
  },
  {
    name: 'pattern with passwordRules',
    input: pw({ pattern: '[a-z]+', passwordRules: 'minlength: 8' }),
    expected: e('options.passwordRules cannot be combined with options.pattern', RULES),
  },
  // Not valid under v: its reason is V8's words, which change between Node lines; tested by
  // pattern in tests/request/pattern.test.ts.
  {
    name: 'pattern with a backreference',
    input: pw({ pattern: '([a-z])\\1[a-z]{8}' }),
    expected: patternError(
      'options.pattern uses a backreference; only the no-repeat idiom (?!.*(.)\\1{k}) is supported, at the top of the pattern',
    ),
  },
  {
    name: 'pattern with a lookbehind',
    input: pw({ pattern: '(?<=a)[a-z]{8}' }),
    expected: patternError('options.pattern uses a lookbehind ((?<= or (?<!), which is not supported'),
  },
  {
    name: 'pattern with a lookahead after consumed characters',
    input: pw({ pattern: '\\w*(?=\\w*\\d)\\w*' }),
    expected: patternError(
      'options.pattern has a lookahead after consumed characters, inside a quantifier or inside another lookahead; lookaheads are supported at the start of the pattern or of a top-level alternative',
    ),
  },
  {
    name: 'pattern with a word boundary',
    input: pw({ pattern: '\\b[a-z]{8}\\b' }),
    expected: patternError('options.pattern uses \\b or \\B (a word boundary), which is not supported'),
  },
  {
    name: 'pattern with a property of strings',
    input: pw({ pattern: '\\p{RGI_Emoji}[a-z]{8}' }),
    expected: patternError(
      'options.pattern uses a property of strings (such as \\p{RGI_Emoji}), which is not supported',
    ),
  },
  {
    name: 'pattern with no password of the length asked',
    input: pw({ pattern: '[a-z]{8,16}', length: 20 }),
    expected: patternError('options.pattern matches no password of length 20; it admits lengths 8-16'),
  },
  {
    name: 'pattern with no password from 8 to 128',
    input: pw({ pattern: '[a-z]{2,4}' }),
    expected: patternError('options.pattern admits no length from 8 to 128; it admits lengths 2-4'),
  },
  {
    name: 'pattern that matches nothing',
    input: pw({ pattern: '^(?=.{8,})(?=.*[a-z])$' }),
    expected: patternError(
      'options.pattern matches no password: no string of printable ASCII without space (U+0021-U+007E) up to 128 characters long matches it',
    ),
  },
  {
    name: 'pattern over the work budget',
    input: pw({ pattern: '(?!.*abc)(?!.*bcd)(?!.*cde)(?!.*def)(?!.*efg)(?!.*fgh)[a-z0-9]+', length: 128 }),
    expected: patternError(
      'options.pattern takes more than the budget of 700000 work units to plan; simplify it or shorten the length',
    ),
  },
  // minBits: the schema's bounds, then the floor decided from the options' exact bits.
  { name: 'minBits -1', input: { mode: 'password', minBits: -1 }, expected: MIN_BITS },
  { name: 'minBits 257', input: { mode: 'passphrase', minBits: 257 }, expected: MIN_BITS },
  { name: 'minBits "64"', input: { mode: 'password', minBits: '64' }, expected: MIN_BITS_TYPE },
  { name: 'minBits null', input: { mode: 'password', minBits: null }, expected: MIN_BITS_TYPE },
  { name: 'minBits true', input: { mode: 'password', minBits: true }, expected: MIN_BITS_TYPE },
  {
    name: 'minBits in options',
    input: pw({ minBits: 64 }),
    expected: e(
      'options.minBits is not an option of mode password: it is a field of the request, beside options',
      'options.minBits',
    ),
  },
  {
    name: 'minBits above a passphrase (51.70 bits)',
    input: { mode: 'passphrase', minBits: 60 },
    expected: e('minBits: these options give 51.70 bits, below the requested minimum of 60 bits', 'minBits'),
  },
  {
    name: 'minBits above 8 alphanumerics (47.18 bits)',
    input: { mode: 'password', minBits: 47.5, options: { length: 8 } },
    expected: e('minBits: these options give 47.18 bits, below the requested minimum of 47.5 bits', 'minBits'),
  },
  {
    name: 'minBits above a rule (119.04 bits)',
    input: {
      mode: 'password',
      minBits: 128,
      options: { length: 20, passwordRules: 'required: lower, upper; required: digit' },
    },
    expected: e('minBits: these options give 119.04 bits, below the requested minimum of 128 bits', 'minBits'),
  },
  {
    name: 'minBits above digit separators (71.63 bits)',
    input: { mode: 'passphrase', minBits: 72, options: { separator: 'digit', capitalize: true, addNumber: true } },
    expected: e('minBits: these options give 71.63 bits, below the requested minimum of 72 bits', 'minBits'),
  },
  {
    name: 'minBits: a bad option is named before the floor',
    input: { mode: 'passphrase', minBits: 256, options: { wordCount: 9 } },
    expected: WORDS,
  },
  // Named policies, on a service (or page) without any: the schema first, then the lookup.
  {
    name: 'policy without policies configured',
    input: { mode: 'password', policy: 'db-root', count: 2 },
    expected: e('policy: this service has no policies configured (POLICIES_FILE)', 'policy'),
  },
  {
    name: 'policy not a name',
    input: { mode: 'password', policy: 'DB root' },
    expected: e('policy must be a policy name: a-z, 0-9, ".", "_" or "-", at most 64, first a-z or 0-9', 'policy'),
  },
  {
    name: 'policy a number',
    input: { mode: 'passphrase', policy: 1 },
    expected: e('policy must be a string', 'policy'),
  },
  {
    name: 'policy with options',
    input: { mode: 'password', policy: 'db-root', options: {} },
    expected: e('options cannot be combined with policy', 'options'),
  },
  {
    name: 'policy with minBits',
    input: { mode: 'passphrase', policy: 'wifi', minBits: 0 },
    expected: e('minBits cannot be combined with policy', 'minBits'),
  },
  // Word lists and length bounds: the schema's enum and bounds, then what the lists can make.
  { name: 'wordList unknown', input: pp({ wordList: 'bip39-german' }), expected: WORD_LIST },
  { name: 'wordList wrong case', input: pp({ wordList: 'BIP39-english' }), expected: WORD_LIST },
  { name: 'wordList a number', input: pp({ wordList: 1 }), expected: WORD_LIST },
  { name: 'wordList null', input: pp({ wordList: null }), expected: WORD_LIST },
  { name: 'minLength 0', input: pp({ minLength: 0 }), expected: lengthBound('minLength') },
  { name: 'maxLength 129', input: pp({ maxLength: 129 }), expected: lengthBound('maxLength') },
  { name: 'maxLength "16"', input: pp({ maxLength: '16' }), expected: lengthBoundType('maxLength') },
  { name: 'minLength 20.5', input: pp({ minLength: 20.5 }), expected: lengthBoundType('minLength') },
  {
    name: 'maxLength in password mode',
    input: pw({ maxLength: 16 }),
    expected: e(
      'options.maxLength is not an option of mode password: it is an option of mode passphrase',
      'options.maxLength',
    ),
  },
  {
    name: 'wordList in password mode',
    input: pw({ wordList: 'bip39-english' }),
    expected: e(
      'options.wordList is not an option of mode password: it is an option of mode passphrase',
      'options.wordList',
    ),
  },
  {
    name: 'minLength above maxLength',
    input: pp({ minLength: 21, maxLength: 20 }),
    expected: e('options.minLength 21 is above options.maxLength 20', 'options.minLength'),
  },
  {
    name: 'maxLength below every passphrase (4 EFF words: 15 to 39 characters)',
    input: pp({ maxLength: 14 }),
    expected: e(
      'options.maxLength 14 is below the shortest passphrase: these options make 15 to 39 characters',
      'options.maxLength',
    ),
  },
  {
    name: 'minLength above every passphrase (4 Chinese characters and 3 separators: 7 characters)',
    input: pp({ wordList: 'bip39-chinese-simplified', minLength: 8 }),
    expected: e(
      'options.minLength 8 is above the longest passphrase: these options make 7 characters',
      'options.minLength',
    ),
  },
  {
    name: 'capitalize with a list without letter case',
    input: pp({ wordList: 'bip39-japanese', capitalize: true }),
    expected: e('options.capitalize: the words of bip39-japanese have no letter case', 'options.capitalize'),
  },
  {
    name: 'minBits above a bounded passphrase (4 EFF words in at most 16 characters)',
    input: { mode: 'passphrase', minBits: 31, options: { maxLength: 16 } },
    expected: e('minBits: these options give 30.00 bits, below the requested minimum of 31 bits', 'minBits'),
  },
  // The password constraints (issue 30): the schema's checks, then those between option values
  // (lib/request/validate.ts, constraintError).
  ...(
    [
      'minLowercase',
      'minUppercase',
      'minNumbers',
      'minSymbols',
      'maxLowercase',
      'maxUppercase',
      'maxNumbers',
      'maxSymbols',
      'minClasses',
      'firstCharacter',
      'lastCharacter',
      'maxRepeating',
      'maxSequential',
    ] as const
  ).map((option) => ({
    name: `${option} with passwordRules`,
    input: pw({ passwordRules: 'minlength: 12', [option]: option.endsWith('Character') ? ['lowercase'] : 1 }),
    expected: combined(option),
  })),
  ...(
    [
      'minLowercase',
      'minUppercase',
      'minNumbers',
      'minSymbols',
      'maxLowercase',
      'maxUppercase',
      'maxNumbers',
      'maxSymbols',
    ] as const
  ).flatMap((option) => [
    {
      name: `${option} -1`,
      input: pw({ [option]: -1 }),
      expected: e(`options.${option} must be between 0 and 128`, `options.${option}`),
    },
    {
      name: `${option} 1.5`,
      input: pw({ [option]: 1.5 }),
      expected: e(`options.${option} must be an integer between 0 and 128`, `options.${option}`),
    },
  ]),
  {
    name: 'minClasses 0',
    input: pw({ minClasses: 0 }),
    expected: e('options.minClasses must be between 1 and 4', 'options.minClasses'),
  },
  {
    name: 'minClasses 5',
    input: pw({ minClasses: 5 }),
    expected: e('options.minClasses must be between 1 and 4', 'options.minClasses'),
  },
  {
    name: 'minClasses "2"',
    input: pw({ minClasses: '2' }),
    expected: e('options.minClasses must be an integer between 1 and 4', 'options.minClasses'),
  },
  ...(['maxRepeating', 'maxSequential'] as const).flatMap((option) => [
    {
      name: `${option} 0`,
      input: pw({ [option]: 0 }),
      expected: e(`options.${option} must be between 1 and 128`, `options.${option}`),
    },
    {
      name: `${option} 129`,
      input: pw({ [option]: 129 }),
      expected: e(`options.${option} must be between 1 and 128`, `options.${option}`),
    },
    {
      name: `${option} null`,
      input: pw({ [option]: null }),
      expected: e(`options.${option} must be an integer between 1 and 128`, `options.${option}`),
    },
  ]),
  ...(['firstCharacter', 'lastCharacter'] as const).flatMap((option) =>
    (
      [
        ['empty', []],
        ['a string', 'lowercase'],
        ['an unknown class', ['letters']],
        ['a class twice', ['numbers', 'numbers']],
        ['a number item', [1]],
        ['null', null],
      ] as const
    ).map(([what, value]) => ({
      name: `${option} ${what}`,
      input: pw({ [option]: value }),
      expected: e(
        `options.${option} must be a non-empty list of distinct names from "lowercase", "uppercase", "numbers", "symbols"`,
        `options.${option}`,
      ),
    })),
  ),
  {
    name: 'minNumbers not an option of mode passphrase',
    input: pp({ minNumbers: 1 }),
    expected: e(
      'options.minNumbers is not an option of mode passphrase: it is an option of mode password',
      'options.minNumbers',
    ),
  },
  {
    name: 'minSymbols without includeSymbols (false by default)',
    input: pw({ minSymbols: 2 }),
    expected: e(
      'options.minSymbols asks for symbols, which this request does not include: set options.includeSymbols to true, or leave options.minSymbols out',
      'options.minSymbols',
    ),
  },
  {
    name: 'minLowercase 0 with includeLowercase false (any minimum of a class left out)',
    input: pw({ includeLowercase: false, minLowercase: 0 }),
    expected: e(
      'options.minLowercase asks for lowercase, which this request does not include: set options.includeLowercase to true, or leave options.minLowercase out',
      'options.minLowercase',
    ),
  },
  {
    name: 'maxSymbols without includeSymbols (false by default)',
    input: pw({ maxSymbols: 2 }),
    expected: e(
      'options.maxSymbols asks for symbols, which this request does not include: set options.includeSymbols to true, or leave options.maxSymbols out',
      'options.maxSymbols',
    ),
  },
  {
    name: 'maxNumbers below the minimum given',
    input: pw({ minNumbers: 3, maxNumbers: 2 }),
    expected: e(
      'options.maxNumbers (2) is below the minimum of numbers (3): raise options.maxNumbers or lower the minimum',
      'options.maxNumbers',
    ),
  },
  {
    name: 'maxLowercase 0 below the default minimum of 1',
    input: pw({ maxLowercase: 0 }),
    expected: e(
      'options.maxLowercase (0) is below the minimum of lowercase (1, its default): raise options.maxLowercase or lower the minimum',
      'options.maxLowercase',
    ),
  },
  {
    name: "the included classes' maximums leave room for fewer characters than length",
    input: pw({ length: 16, maxLowercase: 5, maxUppercase: 5, maxNumbers: 5 }),
    expected: e(
      "options.maxNumbers: the included classes' maximums (lowercase 5, uppercase 5, numbers 5) leave room for 15 characters, fewer than options.length (16): raise a maximum, include another class, or make the password shorter",
      'options.maxNumbers',
    ),
  },
  {
    name: 'minNumbers above length',
    input: pw({ length: 16, minNumbers: 17 }),
    expected: e(
      'options.minNumbers must be at most options.length (16): a password of 16 characters cannot hold 17 digits',
      'options.minNumbers',
    ),
  },
  {
    name: 'minimums above length: the last given minimum that pushes the sum over is named',
    input: pw({ length: 16, includeSymbols: true, minNumbers: 7, minSymbols: 8, minUppercase: 1 }),
    expected: e(
      "options.minSymbols brings the included classes' minimums to 17 (lowercase 1, uppercase 1, numbers 7, symbols 8; an included class without a minimum of its own needs 1), more than options.length (16): lower the minimums or make the password longer",
      'options.minSymbols',
    ),
  },
  {
    name: 'minimums above length with minClasses (the others default to 0)',
    input: pw({ length: 8, minClasses: 1, minLowercase: 5, minUppercase: 4 }),
    expected: e(
      "options.minUppercase brings the included classes' minimums to 9 (lowercase 5, uppercase 4, numbers 0), more than options.length (8): lower the minimums or make the password longer",
      'options.minUppercase',
    ),
  },
  {
    name: 'minClasses above the included classes',
    input: pw({ minClasses: 4 }),
    expected: e(
      'options.minClasses is 4, but the request includes 3 classes (lowercase, uppercase, numbers): include more classes or lower options.minClasses',
      'options.minClasses',
    ),
  },
  {
    name: 'minClasses 2 with one class included',
    input: pw({ includeUppercase: false, includeNumbers: false, minClasses: 2 }),
    expected: e(
      'options.minClasses is 2, but the request includes 1 class (lowercase): include more classes or lower options.minClasses',
      'options.minClasses',
    ),
  },
  {
    name: 'minClasses beyond what the minimums leave room for',
    input: pw({ length: 8, minClasses: 3, minLowercase: 4, minUppercase: 4 }),
    expected: e(
      'options.minClasses asks for 3 classes: with the minimums (lowercase 4, uppercase 4, numbers 0) that takes at least 9 characters, more than options.length (8): lower a minimum or options.minClasses, or make the password longer',
      'options.minClasses',
    ),
  },
  {
    name: 'firstCharacter names a class not included',
    input: pw({ firstCharacter: ['lowercase', 'symbols'] }),
    expected: e(
      'options.firstCharacter names symbols, which this request does not include: set options.includeSymbols to true, or leave symbols out of options.firstCharacter',
      'options.firstCharacter',
    ),
  },
  {
    name: 'lastCharacter names a class not included',
    input: pw({ includeNumbers: false, lastCharacter: ['numbers'] }),
    expected: e(
      'options.lastCharacter names numbers, which this request does not include: set options.includeNumbers to true, or leave numbers out of options.lastCharacter',
      'options.lastCharacter',
    ),
  },
];
