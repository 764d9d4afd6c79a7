/**
 * Sets of printable ASCII characters for `passwordrules`, the syntax's named classes and their
 * canonical spelling. A set is a bigint mask, bit i the code 0x20 + i (95 bits): union,
 * intersection and subset are one operation each.
 * @module
 */

/** First and last printable ASCII codes: space (0x20) and `~` (0x7E). */
export const FIRST_PRINTABLE = 0x20;
export const LAST_PRINTABLE = 0x7e;

/** BIT[i] = the mask of code 0x20 + i: a lookup, no BigInt arithmetic per parsed character. */
const BIT: readonly bigint[] = Object.freeze(
  Array.from({ length: LAST_PRINTABLE - FIRST_PRINTABLE + 1 }, (_, i) => 1n << BigInt(i)),
);

/** The mask of one character; `code` must be printable ASCII. */
export function bitOf(code: number): bigint {
  return BIT[code - FIRST_PRINTABLE];
}

function maskOfRange(first: string, last: string): bigint {
  let mask = 0n;
  for (let c = first.charCodeAt(0); c <= last.charCodeAt(0); c++) mask |= bitOf(c);
  return mask;
}

export const PRINTABLE_MASK = maskOfRange(' ', '~');
export const UPPER_MASK = maskOfRange('A', 'Z');
export const LOWER_MASK = maskOfRange('a', 'z');
export const DIGIT_MASK = maskOfRange('0', '9');
/** The 33 printable characters that are neither letters nor digits, space included. */
export const SPECIAL_MASK = PRINTABLE_MASK & ~(UPPER_MASK | LOWER_MASK | DIGIT_MASK);

/** The identifiers a `required` or `allowed` value may name; `unicode` stands for ascii-printable
 * (an exact count needs a known alphabet: docs/password-rules.md). */
export const NAMED_SETS: ReadonlyMap<string, bigint> = new Map([
  ['upper', UPPER_MASK],
  ['lower', LOWER_MASK],
  ['digit', DIGIT_MASK],
  ['special', SPECIAL_MASK],
  ['ascii-printable', PRINTABLE_MASK],
  ['unicode', PRINTABLE_MASK],
]);

/** The characters of a mask in code order (from its binary digits: one conversion). */
export function charactersOf(mask: bigint): string {
  const digits = mask.toString(2);
  let out = '';
  for (let i = digits.length - 1, code = FIRST_PRINTABLE; i >= 0; i--, code++)
    if (digits.charCodeAt(i) === 0x31) out += String.fromCharCode(code);
  return out;
}

/** The mask of a string of printable ASCII characters. */
export function maskOf(characters: string): bigint {
  let mask = 0n;
  for (let i = 0; i < characters.length; i++) mask |= bitOf(characters.charCodeAt(i));
  return mask;
}

const CANONICAL_NAMES: readonly (readonly [string, bigint])[] = Object.freeze([
  ['lower', LOWER_MASK],
  ['upper', UPPER_MASK],
  ['digit', DIGIT_MASK],
  ['special', SPECIAL_MASK],
] as const);

/** The canonical spelling of a non-empty set (docs/password-rules.md, Normalisation); parsing it
 * gives back the same mask. */
export function formatSet(mask: bigint): string {
  if (mask === PRINTABLE_MASK) return 'ascii-printable';
  const parts: string[] = [];
  let rest = mask;
  for (const [name, named] of CANONICAL_NAMES) {
    if ((rest & named) === named) {
      parts.push(name);
      rest &= ~named;
    }
  }
  if (rest !== 0n) {
    const dash = bitOf(0x2d);
    const bracket = bitOf(0x5d);
    const middle = charactersOf(rest & ~(dash | bracket));
    parts.push(`[${rest & dash ? '-' : ''}${middle}${rest & bracket ? ']' : ''}]`);
  }
  return parts.join(', ');
}
