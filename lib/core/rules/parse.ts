/**
 * A strict, total parser of Apple's `passwordrules` syntax, and the normalised rule it yields
 * (docs/password-rules.md: the grammar, `max-consecutive` as both limits, the normalisation).
 * Anything else is an error naming the token and its 0-based position in characters. Each
 * character is read a bounded number of times, at most MAX_RULES_LENGTH of them: linear time.
 * @module
 */
import { requestSchema } from '../../generated/schema.generated.ts';
import { didYouMean, nearestNames } from '../suggest.ts';
import { bitOf, charactersOf, formatSet, maskOf, NAMED_SETS, PRINTABLE_MASK } from './charset.ts';

/** The longest rule accepted, in code points: the request schema's, so a direct caller of the
 * parser is held to the same limit. */
export const MAX_RULES_LENGTH: number = requestSchema.$defs.PasswordOptions.properties.passwordRules.maxLength;

/** The largest number a length or a limit may be written with. */
const MAX_RULES_NUMBER = 9999;

export const RULES_FIELD = 'options.passwordRules';

/** A 400 body in the service's error shape. */
export interface RulesError {
  readonly error: string;
  readonly status: 400;
  readonly field: string;
}

/** A parsed rule, normalised: equal rules give equal objects whatever their spelling. */
export interface PasswordRules {
  /** Every character a password may contain, in code order (never empty). */
  readonly allowed: string;
  /** The minimal required sets (none contains another), each in code order, first-appearance order. */
  readonly required: readonly string[];
  /** The largest `minlength` given, or null. */
  readonly minLength: number | null;
  /** The smallest `maxlength` given, or null. */
  readonly maxLength: number | null;
  /** The smallest `max-repeating` (`max-sequential`) or `max-consecutive` given, or null. */
  readonly maxRepeating: number | null;
  readonly maxSequential: number | null;
  /** True when `unicode` appeared; it was read as ascii-printable. */
  readonly unicodeAsAsciiPrintable: boolean;
  /** The canonical text of the rule (see formatPasswordRules). */
  readonly text: string;
}

export type RulesParse =
  { readonly ok: true; readonly rule: PasswordRules } | { readonly ok: false; readonly error: RulesError };

export function rulesError(message: string, field: string = RULES_FIELD): RulesError {
  return Object.freeze({ error: message, status: 400, field });
}

/** A token quoted for an error message: JSON-like escapes, anything outside printable ASCII as
 * \uXXXX (so messages stay plain ASCII whatever was sent), cut to about 24 characters. */
export function quoteToken(token: string): string {
  let out = '';
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    const piece =
      c === 0x22
        ? '\\"'
        : c === 0x5c
          ? '\\\\'
          : c >= 0x20 && c <= 0x7e
            ? token[i]
            : `\\u${c.toString(16).padStart(4, '0')}`;
    if (out.length + piece.length > 24) return `"${out}..."`;
    out += piece;
  }
  return `"${out}"`;
}

/** Other names people give the named classes (the request's own among them): the identifier to use. */
const CLASS_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  lowercase: 'lower',
  uppercase: 'upper',
  digits: 'digit',
  number: 'digit',
  numbers: 'digit',
  numeric: 'digit',
  symbol: 'special',
  symbols: 'special',
  specials: 'special',
  punctuation: 'special',
  ascii: 'ascii-printable',
  printable: 'ascii-printable',
});

/** Help after an unknown name: the identifier for a known alias, else the nearest known names; ''
 * for none, or for a token that is not a plain word (a suggestion would guess past a typo). */
function hint(token: string, known: Iterable<string>, aliases: Readonly<Record<string, string>> = {}): string {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(token)) return '';
  const lower = token.toLowerCase();
  if (Object.hasOwn(aliases, lower)) return `: use ${aliases[lower]}`;
  const near = nearestNames(token, known);
  return near.length > 0 ? `: ${didYouMean(near)}` : '';
}

/** The three limits, each with why 0 is refused: what it would forbid. */
const ZERO_LIMIT: Readonly<Record<string, string>> = Object.freeze({
  'max-repeating': 'would allow no character at all',
  'max-sequential': 'would allow no letter or digit at all',
  'max-consecutive': 'would allow no character at all',
});

const PROPERTY_NAMES = new Set(['required', 'allowed', ...Object.keys(ZERO_LIMIT), 'minlength', 'maxlength']);

const smaller = (a: number | null, b: number) => (a === null ? b : Math.min(a, b));

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;

/** Ends a word: whitespace and the syntax's punctuation ; : , [ ] */
const endsWord = (c: number): boolean =>
  isSpace(c) || c === 0x3b || c === 0x3a || c === 0x2c || c === 0x5b || c === 0x5d;

/** Thrown inside the reader, caught by parsePasswordRules: never escapes the module. */
class ParseFailure extends Error {
  override readonly name = 'ParseFailure';
}

/** Code points in `text`, counting no further than `limit + 1`. */
function codePointsUpTo(text: string, limit: number): number {
  let n = 0;
  for (let i = 0; i < text.length && n <= limit; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

type Limits = Record<'minLength' | 'maxLength' | 'maxRepeating' | 'maxSequential', number | null>;
/** The rule as read, before normalisation. */
type RawRules = Limits & { allowedMask: bigint; sawSetProperty: boolean; required: bigint[]; unicode: boolean };

/** Parses `text`; never throws, whatever it is given. */
export function parsePasswordRules(text: string): RulesParse {
  if (typeof text !== 'string') return { ok: false, error: rulesError(`${RULES_FIELD} must be a string`) };
  // Code points, as JSON Schema's maxLength counts them.
  if (text.length > MAX_RULES_LENGTH && codePointsUpTo(text, MAX_RULES_LENGTH) > MAX_RULES_LENGTH) {
    return { ok: false, error: rulesError(`${RULES_FIELD} must be at most ${MAX_RULES_LENGTH} characters`) };
  }
  try {
    return { ok: true, rule: normalise(new RuleReader(text).read()) };
  } catch (e) {
    if (e instanceof ParseFailure) return { ok: false, error: rulesError(`${RULES_FIELD}: ${e.message}`) };
    throw e;
  }
}

/** A recursive-descent reader: one pass, one position, every failure a ParseFailure. */
class RuleReader {
  private readonly text: string;
  private readonly end: number;
  private pos = 0;
  private readonly raw: RawRules = {
    allowedMask: 0n,
    sawSetProperty: false,
    required: [],
    minLength: null,
    maxLength: null,
    maxRepeating: null,
    maxSequential: null,
    unicode: false,
  };

  constructor(text: string) {
    this.text = text;
    this.end = text.length;
  }

  read(): RawRules {
    this.pos = this.skipSpace(0);
    if (this.pos >= this.end) this.fail('the rule is empty (expected e.g. "minlength: 12; required: digit")');
    for (;;) {
      this.readProperty();
      this.pos = this.skipSpace(this.pos);
      if (this.pos >= this.end) break;
      if (this.code(this.pos) !== 0x3b) this.unexpected(this.pos, '";"');
      this.pos = this.skipSpace(this.pos + 1);
      if (this.pos >= this.end) break;
    }
    return this.raw;
  }

  private code(i: number): number {
    return this.text.charCodeAt(i);
  }

  private skipSpace(from: number): number {
    let i = from;
    while (i < this.end && isSpace(this.code(i))) i++;
    return i;
  }

  /** The word at i (up to whitespace or punctuation), or the single character there (a whole
   * surrogate pair if it is one). */
  private tokenAt(i: number): string {
    let j = i;
    while (j < this.end && !endsWord(this.code(j))) j++;
    return j === i ? String.fromCodePoint(this.text.codePointAt(i) ?? 0) : this.text.slice(i, j);
  }

  private fail(message: string): never {
    throw new ParseFailure(message);
  }

  private unexpected(i: number, expected: string): never {
    return this.fail(`unexpected ${quoteToken(this.tokenAt(i))} at position ${i} (expected ${expected})`);
  }

  /** `name: value`, folded into the raw rule (repeats: minlength the max, the others the min;
   * max-consecutive lowers both limits). */
  private readProperty(): void {
    const { raw } = this;
    const namePos = this.pos;
    const name = this.tokenAt(this.pos);
    if (endsWord(this.code(this.pos))) this.unexpected(this.pos, 'a property name');
    if (!PROPERTY_NAMES.has(name))
      this.fail(`unknown property ${quoteToken(name)} at position ${this.pos}${hint(name, PROPERTY_NAMES)}`);
    this.pos += name.length;
    if (this.pos >= this.end || this.code(this.pos) !== 0x3a)
      this.fail(`expected ":" right after "${name}" at position ${this.pos}`);
    this.pos = this.skipSpace(this.pos + 1);
    if (this.pos >= this.end || this.code(this.pos) === 0x3b)
      this.fail(`"${name}" has no value at position ${namePos}`);
    if (name === 'required' || name === 'allowed') {
      const mask = this.readSetList(name);
      if (name === 'required') raw.required.push(mask);
      raw.allowedMask |= mask;
      raw.sawSetProperty = true;
      return;
    }
    const valuePos = this.pos;
    const n = this.readNumber(name);
    if (name === 'minlength') raw.minLength = raw.minLength === null ? n : Math.max(raw.minLength, n);
    else if (name === 'maxlength') raw.maxLength = smaller(raw.maxLength, n);
    else {
      if (n === 0) this.fail(`${name} 0 ${ZERO_LIMIT[name]} (it must be at least 1), at position ${valuePos}`);
      if (name !== 'max-sequential') raw.maxRepeating = smaller(raw.maxRepeating, n);
      if (name !== 'max-repeating') raw.maxSequential = smaller(raw.maxSequential, n);
    }
  }

  /** `[...]`: printable ASCII, "-" only first, "]]" for a "]" inside. */
  private readClass(start: number): bigint {
    let i = start + 1;
    let mask = 0n;
    let first = true;
    for (;;) {
      if (i >= this.end)
        this.fail(`unterminated character class ${quoteToken(this.text.slice(start))} at position ${start}`);
      const c = this.code(i);
      if (c === 0x5d) {
        // "]]" puts "]" in the class and closes it; a lone "]" closes it.
        if (i + 1 < this.end && this.code(i + 1) === 0x5d) {
          mask |= bitOf(0x5d);
          i += 2;
        } else {
          i += 1;
        }
        break;
      }
      if (c < 0x20 || c > 0x7e) {
        this.fail(
          `character ${quoteToken(String.fromCodePoint(this.text.codePointAt(i) ?? c))} in a character class is not printable ASCII, at position ${i}`,
        );
      }
      if (c === 0x2d && !first)
        this.fail(
          `"-" may only be the first character of a character class (ranges are not supported), at position ${i}`,
        );
      mask |= bitOf(c);
      first = false;
      i++;
    }
    if (mask === 0n) this.fail(`empty character class at position ${start}`);
    this.pos = i;
    return mask;
  }

  /** A comma-separated list of named classes and `[...]` classes, up to ";" or the end. */
  private readSetList(name: string): bigint {
    let mask = 0n;
    for (;;) {
      if (this.code(this.pos) === 0x5b) {
        mask |= this.readClass(this.pos);
      } else {
        const word = this.tokenAt(this.pos);
        if (endsWord(this.code(this.pos))) this.unexpected(this.pos, `a character class after "${name}:"`);
        // ASCII case folding only: toLowerCase() would also fold e.g. the Kelvin sign into "k".
        const identifier = word.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
        const named = NAMED_SETS.get(identifier);
        if (named === undefined) {
          const help = hint(word, NAMED_SETS.keys(), CLASS_ALIASES);
          this.fail(`unknown character class ${quoteToken(word)} at position ${this.pos}${help}`);
        }
        if (identifier === 'unicode') this.raw.unicode = true;
        mask |= named;
        this.pos += word.length;
      }
      this.pos = this.skipSpace(this.pos);
      if (this.pos >= this.end || this.code(this.pos) === 0x3b) return mask;
      if (this.code(this.pos) !== 0x2c) this.unexpected(this.pos, '"," or ";"');
      this.pos = this.skipSpace(this.pos + 1);
      if (this.pos >= this.end || this.code(this.pos) === 0x3b)
        this.fail(`missing character class after "," at position ${this.pos}`);
    }
  }

  private readNumber(name: string): number {
    const start = this.pos;
    while (this.pos < this.end && !isSpace(this.code(this.pos)) && this.code(this.pos) !== 0x3b) this.pos++;
    const token = this.text.slice(start, this.pos);
    if (!/^[0-9]+$/.test(token))
      this.fail(`${name} must be a whole number, got ${quoteToken(token)} at position ${start}`);
    const value = Number(token);
    if (value > MAX_RULES_NUMBER)
      this.fail(`${name} ${quoteToken(token)} is out of range (at most ${MAX_RULES_NUMBER}) at position ${start}`);
    return value;
  }
}

function normalise(raw: RawRules): PasswordRules {
  const allowed = raw.sawSetProperty ? raw.allowedMask : PRINTABLE_MASK;
  // Keep only the minimal required sets: a set containing another is hit whenever that one
  // is, and the whole allowed set is hit by any non-empty password.
  const kept: bigint[] = [];
  for (const set of raw.required) {
    if (set === allowed) continue;
    if (kept.some((k) => (k & ~set) === 0n)) continue; // some kept set is inside this one
    for (let i = kept.length - 1; i >= 0; i--) if ((set & ~kept[i]) === 0n) kept.splice(i, 1);
    kept.push(set);
  }
  const rule = {
    allowed: charactersOf(allowed),
    required: Object.freeze(kept.map(charactersOf)),
    minLength: raw.minLength,
    maxLength: raw.maxLength,
    maxRepeating: raw.maxRepeating,
    maxSequential: raw.maxSequential,
    unicodeAsAsciiPrintable: raw.unicode,
  };
  return Object.freeze({ ...rule, text: formatPasswordRules(rule) });
}

/** The canonical text of a rule (docs/password-rules.md, Normalisation): never `max-consecutive`,
 * but the two limits it set; parsing it gives back the rule (`unicode` as ascii-printable). */
export function formatPasswordRules(rule: Omit<PasswordRules, 'text'>): string {
  const parts: string[] = [];
  if (rule.minLength !== null) parts.push(`minlength: ${rule.minLength};`);
  if (rule.maxLength !== null) parts.push(`maxlength: ${rule.maxLength};`);
  if (rule.maxRepeating !== null) parts.push(`max-repeating: ${rule.maxRepeating};`);
  if (rule.maxSequential !== null) parts.push(`max-sequential: ${rule.maxSequential};`);
  for (const set of rule.required) parts.push(`required: ${formatSet(maskOf(set))};`);
  parts.push(`allowed: ${formatSet(maskOf(rule.allowed))};`);
  return parts.join(' ');
}
