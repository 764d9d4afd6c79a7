/**
 * The character classes of mode password (docs/decisions.md, Passwords). Order matters: it is
 * the order of the pool, of `metadata.classes` and of the seeded test vectors.
 * @module
 */
const DIGITS = '0123456789';
const SYMBOLS = '!@#$%^&*()-_=+[]{};:,.?';

/** Each class with its characters, the options that include it and bound its count, and the noun a
 * message counts it in. */
export const CHARACTER_CLASSES = Object.freeze([
  {
    name: 'lowercase',
    option: 'includeLowercase',
    min: 'minLowercase',
    max: 'maxLowercase',
    noun: 'lowercase letters',
    chars: 'abcdefghijklmnopqrstuvwxyz',
  },
  {
    name: 'uppercase',
    option: 'includeUppercase',
    min: 'minUppercase',
    max: 'maxUppercase',
    noun: 'uppercase letters',
    chars: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  },
  { name: 'numbers', option: 'includeNumbers', min: 'minNumbers', max: 'maxNumbers', noun: 'digits', chars: DIGITS },
  { name: 'symbols', option: 'includeSymbols', min: 'minSymbols', max: 'maxSymbols', noun: 'symbols', chars: SYMBOLS },
] as const);

export type ClassName = (typeof CHARACTER_CLASSES)[number]['name'];
export type CharacterClass = (typeof CHARACTER_CLASSES)[number];

/**
 * An included class's minimum: the one given, else 1 (every included class appears, the service's
 * rule since 1.0), but 0 when minClasses is given (then only the minimums sent apply). The schema
 * states no default because of this dependency; the validator and the compiler both read it here.
 */
export function effectiveMinimum(
  options: { readonly [K in CharacterClass['min']]?: number } & { readonly minClasses?: number },
  c: CharacterClass,
): number {
  return options[c.min] ?? (options.minClasses === undefined ? 1 : 0);
}

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
