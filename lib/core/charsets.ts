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

/** The fixed passphrase separators: the same character in every gap. */
export const FIXED_SEPARATORS = Object.freeze({ hyphen: '-', underscore: '_', dot: '.', space: ' ' } as const);

/** What `space` joins the words of bip39-japanese with: the ideographic space, as BIP-39 asks
 * for Japanese (wordlist/README.md). */
export const IDEOGRAPHIC_SPACE = '\u3000';

/** The sets the passphrase separators `digit` and `symbol` draw from: the service's digit
 * and symbol classes, so one set of symbols is published, audited and counted. */
export const SEPARATOR_SETS = Object.freeze({ digit: DIGITS, symbol: SYMBOLS } as const);

/** Every character a separator can put in a gap. No word of a list the service samples holds
 * one (lib/core/wordlists.ts), so a passphrase reads back into its words one way only. */
export const GAP_CHARACTERS: string = [...Object.values(FIXED_SEPARATORS), IDEOGRAPHIC_SPACE, DIGITS, SYMBOLS].join('');
