/**
 * The character classes of mode password (docs/decisions.md, Passwords). Order matters: it is
 * the order of the pool, of `metadata.classes` and of the seeded test vectors.
 * @module
 */
const DIGITS = '0123456789';
const SYMBOLS = '!@#$%^&*()-_=+[]{};:,.?';

export const CHARACTER_CLASSES = Object.freeze([
  { name: 'lowercase', option: 'includeLowercase', chars: 'abcdefghijklmnopqrstuvwxyz' },
  { name: 'uppercase', option: 'includeUppercase', chars: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' },
  { name: 'numbers', option: 'includeNumbers', chars: DIGITS },
  { name: 'symbols', option: 'includeSymbols', chars: SYMBOLS },
] as const);

export type ClassName = (typeof CHARACTER_CLASSES)[number]['name'];

/** Look-alikes left out by `avoidAmbiguous`. */
export const AMBIGUOUS_CHARACTERS = '0O1Il5S8B';

/** The sets the passphrase separators `digit` and `symbol` draw from: the service's digit
 * and symbol classes, so one set of symbols is published, audited and counted. */
export const SEPARATOR_SETS = Object.freeze({ digit: DIGITS, symbol: SYMBOLS } as const);
