/**
 * The API's error messages in words for people: the page's display layer (issue 31). The API
 * names fields by path (`options.length must be between 8 and 128`), which is right for a
 * program and reads as code to a person, who sees a control labelled "Length". So the field
 * path becomes the control's label, a word list's id its name, and a `field: ` prefix goes.
 * `ServiceAPI.generate()` still returns the API's own bodies: only what the page shows changes.
 * A pure function of the message and describe()'s names, so a test can pin it.
 * @module
 */
import { labelOf } from './words.ts';

/** Labels of the request's own fields, as the page names them. */
const FIELD_LABELS: Readonly<Record<string, string>> = {
  count: 'How many',
  mode: 'What to generate',
  minBits: 'The minimum entropy',
};

/** The label of a dotted field path (`options.length` -> `Length`). */
function fieldLabel(field: string): string {
  if (field.startsWith('options.')) return labelOf(field.slice('options.'.length));
  return FIELD_LABELS[field] ?? field;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `error` (the API's message about `field`) for a person. `listNames` maps a word list's id
 * (`bip39-japanese`) to its name (`BIP-39 Japanese`).
 */
export function personMessage(
  error: { error: string; field?: string },
  listNames: Readonly<Record<string, string>> = {},
): string {
  let text = error.error;
  const field = error.field;
  if (field !== undefined && field !== '') {
    // `options.capitalize: the words of ...`: the message stands on its own without the path.
    if (text.startsWith(`${field}: `)) text = text.slice(field.length + 2);
    // `options.length must be ...`: the path is the subject, so the label takes its place.
    else if (text.startsWith(`${field} `)) text = `${fieldLabel(field)}${text.slice(field.length)}`;
  }
  // Any other option named in the sentence (`cannot be combined with options.passwordRules`).
  text = text.replace(/\boptions\.([A-Za-z]+)\b/g, (_, name: string) => `\u201c${labelOf(name)}\u201d`);
  const ids = Object.keys(listNames).sort((a, b) => b.length - a.length);
  if (ids.length > 0) {
    const pattern = new RegExp(`(?<![\\w-])(${ids.map(escapeRegExp).join('|')})(?![\\w-])`, 'g');
    text = text.replace(pattern, (id: string) => listNames[id] ?? id);
  }
  text = text.replace(/\ban integer\b/g, 'a whole number');
  // `set options.includeSymbols to true`: a checkbox is ticked.
  text = text.replace(/\bset (\u201c[^\u201d]+\u201d) to true\b/g, 'tick $1');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
