/**
 * The `passwordrules` parser: the grammar it accepts, the normalised rule and its canonical
 * text, and the exact error (token and position) for everything it refuses.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatPasswordRules,
  MAX_RULES_LENGTH,
  parsePasswordRules,
  type PasswordRules,
} from '../../../lib/core/rules/index.ts';
import { quoteToken } from '../../../lib/core/rules/parse.ts';
import { formatSet, maskOf, PRINTABLE_MASK, SPECIAL_MASK, charactersOf } from '../../../lib/core/rules/charset.ts';
import { rule } from '../../helpers/rule-plans.ts';

const PRINTABLE = charactersOf(PRINTABLE_MASK);
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGIT = '0123456789';

/** The two limits of a rule. */
const pick = (r: PasswordRules) => ({ maxRepeating: r.maxRepeating, maxSequential: r.maxSequential });

function error(text: string): string {
  const r = parsePasswordRules(text);
  assert.ok(!r.ok, `accepted: ${text}`);
  assert.equal(r.error.status, 400);
  assert.equal(r.error.field, 'options.passwordRules');
  return r.error.error;
}

describe('the named classes', () => {
  it('special is the 33 printable characters that are not letters or digits, space included', () => {
    const special = charactersOf(SPECIAL_MASK);
    assert.equal(special, ' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
    assert.equal(special.length, 33);
    assert.equal(PRINTABLE.length, 95);
  });

  it('each identifier gives its set; unicode reads as ascii-printable and is flagged', () => {
    assert.equal(rule('allowed: upper').allowed, UPPER);
    assert.equal(rule('allowed: lower').allowed, LOWER);
    assert.equal(rule('allowed: digit').allowed, DIGIT);
    assert.equal(rule('allowed: special').allowed, charactersOf(SPECIAL_MASK));
    assert.equal(rule('allowed: ascii-printable').allowed, PRINTABLE);
    const u = rule('allowed: unicode');
    assert.equal(u.allowed, PRINTABLE);
    assert.equal(u.unicodeAsAsciiPrintable, true);
    assert.equal(rule('allowed: ascii-printable').unicodeAsAsciiPrintable, false);
    assert.equal(rule('required: digit, UNICODE').unicodeAsAsciiPrintable, true);
  });

  it('identifiers are ASCII case-insensitive, property names are not', () => {
    assert.equal(rule('allowed: Upper, DIGIT').allowed, DIGIT + UPPER);
    assert.equal(
      error('Allowed: upper'),
      'options.passwordRules: unknown property "Allowed" at position 0: did you mean allowed?',
    );
    // The Kelvin sign folds to "k" under toLowerCase(); it must not make an identifier.
    assert.match(error('allowed: \u212aunicode'), /unknown character class "\\u212aunicode" at position 9/);
  });
});

describe('normalisation', () => {
  it('with no allowed or required property every printable character is allowed', () => {
    const r = rule('minlength: 12');
    assert.equal(r.allowed, PRINTABLE);
    assert.deepEqual(r.required, []);
    assert.equal(r.minLength, 12);
    assert.equal(r.maxLength, null);
    assert.equal(r.maxRepeating, null);
    assert.equal(r.maxSequential, null);
  });

  it('the allowed set is the union of every allowed and required item', () => {
    assert.equal(rule('required: digit').allowed, DIGIT);
    assert.equal(rule('required: digit; allowed: [ab]; allowed: [c], [-]').allowed, '-0123456789abc');
  });

  it('repeated minlength takes the largest, maxlength and max-consecutive the smallest', () => {
    const r = rule(
      'minlength: 8; minlength: 12; minlength: 10; maxlength: 30; maxlength: 20; maxlength: 64; max-consecutive: 3; max-consecutive: 2; max-consecutive: 5',
    );
    assert.equal(r.minLength, 12);
    assert.equal(r.maxLength, 20);
    assert.equal(r.maxRepeating, 2);
    assert.equal(r.maxSequential, 2);
  });

  it('max-repeating and max-sequential set their own limit; max-consecutive sets both (PR #1255)', () => {
    assert.deepEqual(pick(rule('max-repeating: 3')), { maxRepeating: 3, maxSequential: null });
    assert.deepEqual(pick(rule('max-sequential: 4')), { maxRepeating: null, maxSequential: 4 });
    assert.deepEqual(pick(rule('max-consecutive: 2')), { maxRepeating: 2, maxSequential: 2 });
    assert.deepEqual(pick(rule('max-repeating: 3; max-sequential: 4')), { maxRepeating: 3, maxSequential: 4 });
  });

  it('each limit takes the smallest value given for it, by its own name or by max-consecutive', () => {
    assert.deepEqual(pick(rule('max-repeating: 4; max-repeating: 2; max-repeating: 3')), {
      maxRepeating: 2,
      maxSequential: null,
    });
    assert.deepEqual(pick(rule('max-consecutive: 3; max-repeating: 5; max-sequential: 2')), {
      maxRepeating: 3,
      maxSequential: 2,
    });
    assert.deepEqual(pick(rule('max-repeating: 1; max-consecutive: 4; max-sequential: 6')), {
      maxRepeating: 1,
      maxSequential: 4,
    });
    assert.deepEqual(pick(rule('max-sequential: 9; max-consecutive: 7; max-consecutive: 8')), {
      maxRepeating: 7,
      maxSequential: 7,
    });
  });

  it('a required line is the union of its items; several lines all apply', () => {
    assert.deepEqual(rule('required: lower, upper; required: digit, [!#]').required, [UPPER + LOWER, '!#' + DIGIT]);
  });

  it('drops duplicate and implied required sets, keeping first-appearance order', () => {
    // duplicates
    assert.deepEqual(rule('required: upper; required: upper; required: digit; required: digit').required, [
      UPPER,
      DIGIT,
    ]);
    // a superset of another required set is implied by it, wherever it appears
    assert.deepEqual(rule('required: lower, upper; required: digit; required: upper').required, [DIGIT, UPPER]);
    assert.deepEqual(rule('required: upper; required: lower, upper').required, [UPPER]);
    // the whole allowed set is hit by any password
    assert.deepEqual(rule('required: ascii-printable; required: digit').required, [DIGIT]);
    assert.deepEqual(rule('required: lower, digit; allowed: lower, digit').required, []);
    // overlapping sets that contain neither each other stay
    assert.deepEqual(rule('required: [abc]; required: [cde]').required, ['abc', 'cde']);
  });

  it('custom classes: "-" first, "]" last written "]]", "[" anywhere, space and quotes allowed', () => {
    assert.equal(rule('allowed: [-ab]').allowed, '-ab');
    assert.equal(rule('allowed: [ab]]').allowed, ']ab');
    assert.equal(rule('allowed: []]').allowed, ']');
    assert.equal(rule('allowed: [-]]').allowed, '-]');
    assert.equal(rule('allowed: [[a]').allowed, '[a');
    assert.equal(rule('allowed: [ "\'\\;,:]').allowed, ' "\',:;\\');
    assert.equal(rule('allowed: [aab]').allowed, 'ab');
  });

  it('whitespace (space, tab, LF, CR, FF) may surround values, commas and semicolons; the last ";" is optional', () => {
    const spaced = rule(' \t\nminlength:\f8 \r;required:\tlower ,\nupper ;  allowed:[!] ; ');
    const tight = rule('minlength: 8; required: lower, upper; allowed: [!]');
    assert.deepEqual(spaced, tight);
    assert.deepEqual(rule('minlength: 8;'), rule('minlength: 8'));
  });

  it('numbers: decimal digits, leading zeros allowed, up to 9999', () => {
    assert.equal(rule('minlength: 0012').minLength, 12);
    assert.equal(rule('maxlength: 9999').maxLength, 9999);
    assert.equal(rule('minlength: 0').minLength, 0);
    assert.equal(rule('max-sequential: 0009').maxSequential, 9);
    assert.equal(rule('max-repeating: 9999').maxRepeating, 9999);
  });
});

describe('canonical text', () => {
  it('spells lengths, then required sets, then the whole allowed set', () => {
    assert.equal(
      rule('required: upper; max-consecutive: 2; allowed: [-_]; required: digit,[!]; minlength: 10; maxlength: 20')
        .text,
      'minlength: 10; maxlength: 20; max-repeating: 2; max-sequential: 2; required: upper; required: digit, [!]; allowed: upper, digit, [!-_];'.replace(
        '[!-_]',
        '[-!_]',
      ),
    );
    assert.equal(rule('minlength: 8').text, 'minlength: 8; allowed: ascii-printable;');
    assert.equal(rule('allowed: unicode').text, 'allowed: ascii-printable;');
    assert.equal(
      rule('required: lower; required: upper; required: digit; required: special').text,
      'required: lower; required: upper; required: digit; required: special; allowed: ascii-printable;',
    );
  });

  it('writes the two limits, never max-consecutive: an alias and its expansion read back alike', () => {
    assert.equal(rule('max-consecutive: 3').text, 'max-repeating: 3; max-sequential: 3; allowed: ascii-printable;');
    assert.equal(rule('max-repeating: 3; max-sequential: 3').text, rule('max-consecutive: 3').text);
    assert.equal(
      rule('max-sequential: 4; max-consecutive: 2; max-repeating: 1').text,
      'max-repeating: 1; max-sequential: 2; allowed: ascii-printable;',
    );
    assert.equal(rule('max-sequential: 5').text, 'max-sequential: 5; allowed: ascii-printable;');
  });

  it('formatSet puts complete named classes first, then one class with "-" first and "]" last', () => {
    assert.equal(formatSet(maskOf(LOWER + UPPER + DIGIT)), 'lower, upper, digit');
    assert.equal(formatSet(maskOf(']-a[')), '[-[a]]');
    assert.equal(formatSet(maskOf(']')), '[]]');
    assert.equal(formatSet(maskOf(LOWER + '-')), 'lower, [-]');
    assert.equal(formatSet(PRINTABLE_MASK), 'ascii-printable');
    assert.equal(formatSet(SPECIAL_MASK | maskOf('a')), 'special, [a]');
  });

  it('round-trips: parsing the canonical text gives the same rule', () => {
    const samples = [
      'required: [-]]; allowed: [[]',
      'minlength: 0; maxlength: 9999; max-consecutive: 1; required: [ ]; required: [abc]; required: [cde]',
      'max-repeating: 9999; max-sequential: 1; required: digit',
      'max-sequential: 3; max-consecutive: 5',
      'required: upper, lower, digit, special; allowed: unicode',
      'allowed: [-!"#$%&\'()*+,./:;<=>?@[\\^_`{|}~]]',
    ];
    for (const text of samples) {
      const r = rule(text);
      const again = rule(r.text);
      assert.deepEqual({ ...again, unicodeAsAsciiPrintable: false }, { ...r, unicodeAsAsciiPrintable: false }, text);
      assert.equal(formatPasswordRules(r), r.text);
    }
  });
});

describe('errors name the token and its 0-based position', () => {
  const cases: [string, string][] = [
    ['', 'the rule is empty (expected e.g. "minlength: 12; required: digit")'],
    [' \t\n', 'the rule is empty (expected e.g. "minlength: 12; required: digit")'],
    ['minlength: 8; foo: 1', 'unknown property "foo" at position 14'],
    ['min_length: 8', 'unknown property "min_length" at position 0: did you mean minlength?'],
    ['minlength : 8', 'expected ":" right after "minlength" at position 9'],
    ['minlength', 'expected ":" right after "minlength" at position 9'],
    ['minlength: ', '"minlength" has no value at position 0'],
    ['required:; minlength: 8', '"required" has no value at position 0'],
    ['; minlength: 8', 'unexpected ";" at position 0 (expected a property name)'],
    ['minlength: 8;; maxlength: 9', 'unexpected ";" at position 13 (expected a property name)'],
    [':', 'unexpected ":" at position 0 (expected a property name)'],
    ['minlength: 8a', 'minlength must be a whole number, got "8a" at position 11'],
    ['maxlength: -1', 'maxlength must be a whole number, got "-1" at position 11'],
    ['maxlength: 1e3', 'maxlength must be a whole number, got "1e3" at position 11'],
    ['max-consecutive: 2.5', 'max-consecutive must be a whole number, got "2.5" at position 17'],
    ['max-repeating: two', 'max-repeating must be a whole number, got "two" at position 15'],
    ['max-sequential: 10000', 'max-sequential "10000" is out of range (at most 9999) at position 16'],
    ['max-consecutive: 0', 'max-consecutive 0 would allow no character at all (it must be at least 1), at position 17'],
    ['max-repeating: 0', 'max-repeating 0 would allow no character at all (it must be at least 1), at position 15'],
    [
      'minlength: 8; max-sequential: 00',
      'max-sequential 0 would allow no letter or digit at all (it must be at least 1), at position 30',
    ],
    ['max-sequence: 2', 'unknown property "max-sequence" at position 0'],
    ['max-Repeating: 2', 'unknown property "max-Repeating" at position 0: did you mean max-repeating?'],
    ['maxlength: 10000', 'maxlength "10000" is out of range (at most 9999) at position 11'],
    [
      'maxlength: 99999999999999999999999999',
      `maxlength "${'9'.repeat(24)}..." is out of range (at most 9999) at position 11`,
    ],
    ['minlength: 8 9', 'unexpected "9" at position 13 (expected ";")'],
    ['required: lower upper', 'unexpected "upper" at position 16 (expected "," or ";")'],
    ['required: lower,', 'missing character class after "," at position 16'],
    ['required: lower, ;', 'missing character class after "," at position 17'],
    ['required: lowercase', 'unknown character class "lowercase" at position 10: use lower'],
    // Typos and other names for the classes get help (issue 41); only known names are added.
    ['required: UPPERCASE', 'unknown character class "UPPERCASE" at position 10: use upper'],
    ['required: digits', 'unknown character class "digits" at position 10: use digit'],
    ['required: numbers', 'unknown character class "numbers" at position 10: use digit'],
    ['allowed: lower, symbols', 'unknown character class "symbols" at position 16: use special'],
    ['allowed: ascii', 'unknown character class "ascii" at position 9: use ascii-printable'],
    ['required: lowr', 'unknown character class "lowr" at position 10: did you mean lower?'],
    ['required: speical', 'unknown character class "speical" at position 10: did you mean special?'],
    ['require: upper', 'unknown property "require" at position 0: did you mean required?'],
    ['minLength: 8', 'unknown property "minLength" at position 0: did you mean minlength?'],
    ['max-consecutiv: 2', 'unknown property "max-consecutiv" at position 0: did you mean max-consecutive?'],
    ['required: zzzzzz', 'unknown character class "zzzzzz" at position 10'],
    ['required: constructor', 'unknown character class "constructor" at position 10'],
    ['required: !@#', 'unknown character class "!@#" at position 10'],
    ['required: ,lower', 'unexpected "," at position 10 (expected a character class after "required:")'],
    ['allowed: ]', 'unexpected "]" at position 9 (expected a character class after "allowed:")'],
    ['required: upper[ab]', 'unexpected "[" at position 15 (expected "," or ";")'],
    ['allowed: []', 'empty character class at position 9'],
    ['allowed: [abc', 'unterminated character class "[abc" at position 9'],
    ['allowed: [', 'unterminated character class "[" at position 9'],
    [
      'allowed: [a-z]',
      '"-" may only be the first character of a character class (ranges are not supported), at position 11',
    ],
    [
      'allowed: [--]',
      '"-" may only be the first character of a character class (ranges are not supported), at position 11',
    ],
    ['allowed: [ab]]]', 'unexpected "]" at position 14 (expected "," or ";")'],
    ['allowed: [a\tb]', 'character "\\u0009" in a character class is not printable ASCII, at position 11'],
    ['allowed: [\u00a7]', 'character "\\u00a7" in a character class is not printable ASCII, at position 10'],
    [
      'allowed: [\ud83d\ude00]',
      'character "\\ud83d\\ude00" in a character class is not printable ASCII, at position 10',
    ],
    ['allowed: [\ud800]', 'character "\\ud800" in a character class is not printable ASCII, at position 10'],
    ['minlength: 8; \u00e9', 'unknown property "\\u00e9" at position 14'],
    ['\ud83d\ude00', 'unknown property "\\ud83d\\ude00" at position 0'],
    ['minlength: 8\u0000', 'minlength must be a whole number, got "8\\u0000" at position 11'],
    ['required: "upper"', 'unknown character class "\\"upper\\"" at position 10'],
  ];
  for (const [text, message] of cases) {
    it(JSON.stringify(text), () => assert.equal(error(text), `options.passwordRules: ${message}`));
  }

  it('quoteToken escapes quotes, backslashes and non-printable characters and cuts long tokens', () => {
    assert.equal(quoteToken('a"b\\c'), '"a\\"b\\\\c"');
    assert.equal(quoteToken('x'.repeat(30)), `"${'x'.repeat(24)}..."`);
    assert.equal(quoteToken('\u0001'.repeat(10)), `"${'\\u0001'.repeat(4)}..."`);
  });

  it('a non-string is refused, not thrown on', () => {
    for (const v of [undefined, null, 12, {}, ['minlength: 8']]) {
      const r = parsePasswordRules(v as string);
      assert.ok(!r.ok);
      assert.equal(r.error.error, 'options.passwordRules must be a string');
    }
  });
});

describe('length limit', () => {
  it(`accepts ${MAX_RULES_LENGTH} characters and refuses ${MAX_RULES_LENGTH + 1}`, () => {
    const base = 'minlength: 8;';
    const longest = base + ' '.repeat(MAX_RULES_LENGTH - base.length);
    assert.equal(longest.length, MAX_RULES_LENGTH);
    assert.equal(rule(longest).minLength, 8);
    assert.equal(error(longest + ' '), `options.passwordRules must be at most ${MAX_RULES_LENGTH} characters`);
  });

  it('counts code points, as the request schema does', () => {
    // 1,000 astral characters are 2,000 UTF-16 units but only 1,000 characters: the first
    // one is reported, not the length.
    const astral = 'allowed: [' + '\ud83d\ude00'.repeat(1000);
    assert.match(error(astral), /not printable ASCII, at position 10/);
    assert.match(error('\ud83d\ude00'.repeat(MAX_RULES_LENGTH + 1)), /must be at most 1024 characters/);
    // A lone high surrogate at the end counts as one.
    assert.match(error('x'.repeat(MAX_RULES_LENGTH - 1) + '\ud800'), /unknown property/);
  });

  it('every error message stays short (<= 200 characters) whatever the token', () => {
    for (const text of [
      'x'.repeat(1000),
      'allowed: [' + 'a'.repeat(1000),
      'minlength: ' + '9'.repeat(1000),
      `required: ${'\u0001'.repeat(900)}`,
    ]) {
      assert.ok(error(text).length <= 200, error(text));
    }
  });
});
