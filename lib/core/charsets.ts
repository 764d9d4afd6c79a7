/**
 * The character classes of mode password (docs/decisions.md, Passwords). Order matters: it is
 * the order of the pool, of `metadata.classes` and of the seeded test vectors.
 * @module
 */
const DIGITS = '0123456789';
const SYMBOLS = '!@#$%^&*()-_=+[]{};:,.?';

/** Each class: its characters, the options that include and bound it, the noun messages count in. */
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

/** An included class's minimum: the one given, else 1, or 0 when minClasses is given. The schema
 * states no default for it, so the validator and the compiler both read it here. */
export function effectiveMinimum(
  options: { readonly [K in CharacterClass['min']]?: number } & { readonly minClasses?: number },
  c: CharacterClass,
): number {
  return options[c.min] ?? (options.minClasses === undefined ? 1 : 0);
}

/** Look-alikes left out by `avoidAmbiguous`. */
export const AMBIGUOUS_CHARACTERS = '0O1Il5S8B';

/** The fixed passphrase separators: the same character in every gap (`space`: see IDEOGRAPHIC_SPACE). */
export const SEPARATORS = Object.freeze({ hyphen: '-', underscore: '_', dot: '.', space: ' ' } as const);

/** What `space` joins bip39-japanese words with, as BIP-39 asks (wordlist/README.md). */
export const IDEOGRAPHIC_SPACE = '\u3000';

/** The sets the separators `digit` and `symbol` draw each gap from: the password classes' own. */
export const RANDOM_SEPARATORS = Object.freeze({ digit: DIGITS, symbol: SYMBOLS } as const);

/** Every character a gap can hold: no sampled word holds one (wordlists.ts), so it reads back once. */
export const GAP_CHARACTERS: string = [...Object.values(SEPARATORS), IDEOGRAPHIC_SPACE, DIGITS, SYMBOLS].join('');
