/**
 * The character classes of mode password (CONTRACT.md 2.2). Order matters: it is the order of
 * the pool, of `metadata.classes` and of the seeded test vectors.
 * @module
 */
export const CHARACTER_CLASSES = Object.freeze([
  { name: 'lowercase', option: 'includeLowercase', chars: 'abcdefghijklmnopqrstuvwxyz' },
  { name: 'uppercase', option: 'includeUppercase', chars: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' },
  { name: 'numbers', option: 'includeNumbers', chars: '0123456789' },
  { name: 'symbols', option: 'includeSymbols', chars: '!@#$%^&*()-_=+[]{};:,.?' },
] as const);

export type ClassName = (typeof CHARACTER_CLASSES)[number]['name'];

/** Look-alikes left out by `avoidAmbiguous`. */
export const AMBIGUOUS_CHARACTERS = '0O1Il5S8B';
