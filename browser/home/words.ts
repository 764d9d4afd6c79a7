/**
 * Words for people: labels and hints. The page owns no rule; anything the schema gains and
 * these tables lack still gets a control, labelled with its name and the schema's description.
 * @module
 */
import type { FieldSpec } from './description.ts';

export const MODE_TEXT: Record<string, { label: string; hint: string }> = {
  password: { label: 'Password', hint: 'random characters' },
  passphrase: { label: 'Passphrase', hint: 'random words' },
};

const OPTION_TEXT: Record<string, { label: string; hint?: string }> = {
  length: { label: 'Length', hint: 'characters' },
  includeLowercase: { label: 'Lowercase' },
  includeUppercase: { label: 'Uppercase' },
  includeNumbers: { label: 'Numbers' },
  includeSymbols: { label: 'Symbols' },
  avoidAmbiguous: { label: 'Avoid look-alikes' },
  excludedCharacters: {
    label: 'Leave out these characters',
    hint: 'Each character typed here is removed from the pool.',
  },
  passwordRules: {
    label: 'Site rules',
    hint: "Paste a site's passwordrules to get a password that meets them, uniform over every password they allow. While rules are set, they choose the characters: the options above are off.",
  },
  wordCount: { label: 'Words', hint: 'words' },
  wordList: { label: 'Word list' },
  minLength: { label: 'At least', hint: 'characters' },
  maxLength: { label: 'At most', hint: "characters, e.g. a site's maxlength" },
  separator: { label: 'Between words' },
  capitalize: { label: 'Capitalize each word' },
  addNumber: { label: 'Add a two-digit number', hint: 'At the end, after a separator.' },
};

/** The label of an option, as its control shows it (its own name if the table lacks it). */
export function labelOf(name: string): string {
  return (OPTION_TEXT[name] as { label: string } | undefined)?.label ?? name;
}

/** The label and hint of an option; an option this table does not know shows its own name. */
export function optionText(name: string, spec: FieldSpec): { label: string; hint?: string } {
  return OPTION_TEXT[name] ?? { label: name, hint: spec.description };
}

export const SEPARATOR_TEXT: Record<string, string> = {
  hyphen: 'Hyphen',
  underscore: 'Underscore',
  dot: 'Dot',
  space: 'Space',
  digit: 'Digit',
  symbol: 'Symbol',
};

/** What a drawn separator's button shows: its set, shortened when it is one run (0-9). */
export const shownSet = (set: string): string => (set.length > 4 ? shownClass(set).slice(0, 4) : set);

/** How a separator character is shown on its button (a bare space would be invisible). */
export const shownChar = (c: string): string => (c === ' ' ? '\u2423' : c);

/** `abc...z` -> `a\u2013z` when the class is one run of code points; otherwise every character. */
export function shownClass(chars: string): string {
  // The classes are ASCII: one UTF-16 unit per character.
  let run = true;
  for (let i = 1; i < chars.length; i++) run &&= chars.charCodeAt(i) === chars.charCodeAt(i - 1) + 1;
  return run && chars.length > 2 ? `${chars[0]}\u2013${chars[chars.length - 1]}` : chars;
}
