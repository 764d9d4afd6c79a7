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

/** label and hint of an option's control; `empty`: what an optional box left empty means. */
interface OptionText {
  label: string;
  hint?: string;
  empty?: string;
}

/** What an empty class minimum means: the API's default, which depends on minClasses (the
 * requirements group says which, once for the four). */
const MINIMUM_EMPTY = 'the default';

const OPTION_TEXT: Record<string, OptionText> = {
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
  minLowercase: { label: 'Minimum lowercase', hint: 'characters', empty: MINIMUM_EMPTY },
  minUppercase: { label: 'Minimum uppercase', hint: 'characters', empty: MINIMUM_EMPTY },
  minNumbers: { label: 'Minimum numbers', hint: 'characters', empty: MINIMUM_EMPTY },
  minSymbols: { label: 'Minimum symbols', hint: 'characters', empty: MINIMUM_EMPTY },
  maxLowercase: { label: 'Maximum lowercase', hint: 'characters', empty: 'no limit' },
  maxUppercase: { label: 'Maximum uppercase', hint: 'characters', empty: 'no limit' },
  maxNumbers: { label: 'Maximum numbers', hint: 'characters', empty: 'no limit' },
  maxSymbols: { label: 'Maximum symbols', hint: 'characters', empty: 'no limit' },
  minClasses: { label: 'Minimum classes', hint: 'different classes of those used', empty: 'no such rule' },
  firstCharacter: { label: 'First character', hint: 'One of the ticked classes. None ticked: any character.' },
  lastCharacter: { label: 'Last character', hint: 'One of the ticked classes. None ticked: any character.' },
  maxRepeating: { label: 'Longest repeat', hint: 'of the same character in a row', empty: 'no limit' },
  maxSequential: { label: 'Longest sequence', hint: 'characters in a row like abc or 321', empty: 'no limit' },
  passwordRules: {
    label: 'Site rules',
    hint: "Paste a site's passwordrules to get a password that meets them, uniform over every password they allow. While rules are set, they choose the characters: the options above are off.",
  },
  pattern: {
    label: 'Pattern',
    hint: "Paste a system's password regular expression (as an HTML pattern reads it) to get a password uniform over every match. While it is set, leave the options above and the site rules as they are: it chooses the characters.",
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
  return (OPTION_TEXT[name] as OptionText | undefined)?.label ?? name;
}

/** A class's name in the API (`lowercase`) as a person reads it. */
export const CLASS_TEXT: Record<string, string> = {
  lowercase: 'Lowercase',
  uppercase: 'Uppercase',
  numbers: 'Numbers',
  symbols: 'Symbols',
};

/** The label and hint of an option; an option this table does not know shows its own name. */
export function optionText(name: string, spec: FieldSpec): OptionText {
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
