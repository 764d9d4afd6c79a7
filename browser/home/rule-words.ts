/**
 * The rule a result was counted under, in words, from the result's metadata alone: the
 * classes and length, and `metadata.constraints` (minimums, maximums when present, k of the
 * classes, the first and last character, repeats, sequences) in mode password; the rule as the
 * API read it (`metadata.passwordRules`, canonical) with site rules; the list, words and
 * separators in mode passphrase. Never from the options the form holds: the sentence says what
 * was counted, so a policy's stored rule, whose options the page never sees, reads as truly as
 * the form's. A pure function of the metadata (tests/browser/rule-words.test.ts).
 * @module
 */
import type { Constraints, Metadata } from './description.ts';

/** A class's name in the API, as a count of it reads: [one, many]. */
const CLASS_NOUNS: Readonly<Record<string, readonly [string, string]>> = {
  lowercase: ['lowercase letter', 'lowercase letters'],
  uppercase: ['uppercase letter', 'uppercase letters'],
  numbers: ['digit', 'digits'],
  symbols: ['symbol', 'symbols'],
};

const nounOf = (name: string, n: number): string => {
  const nouns = CLASS_NOUNS[name] as readonly [string, string] | undefined;
  return nouns === undefined ? name : nouns[n === 1 ? 0 : 1];
};

/** `a`, `a and b`, `a, b and c`. */
export function listed(items: readonly string[], last = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

const article = (noun: string): string => `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;

/** One character of any of `classes`: `a letter`, `a lowercase letter or a digit`. */
function oneOf(classes: readonly string[]): string {
  const set = new Set(classes);
  const parts: string[] = [];
  if (set.has('lowercase') && set.has('uppercase')) {
    parts.push('a letter');
    set.delete('lowercase');
    set.delete('uppercase');
  }
  for (const name of set) parts.push(article(nounOf(name, 1)));
  return listed(parts, 'or');
}

/** `at least 1 lowercase letter and 2 digits`, from a minimums (or maximums) object, in the
 * classes' order; empty when every count is 0. */
function counts(
  bound: string,
  byClass: Readonly<Record<string, number>> | undefined,
  order: readonly string[],
): string {
  if (byClass === undefined) return '';
  const items = order.filter((c) => (byClass[c] ?? 0) > 0).map((c) => `${byClass[c]} ${nounOf(c, byClass[c])}`);
  return items.length === 0 ? '' : `${bound} ${listed(items)}`;
}

/** `no character more than 2 times in a row`; `no run of more than 3 in sequence like abc or 321`. */
function runLimits(maxRepeating: number | null, maxSequential: number | null): string[] {
  const out: string[] = [];
  if (maxRepeating !== null) {
    out.push(
      maxRepeating === 1 ? 'no character twice in a row' : `no character more than ${maxRepeating} times in a row`,
    );
  }
  if (maxSequential !== null) {
    out.push(
      maxSequential === 1
        ? 'no two characters in sequence like ab or 21'
        : `no run of more than ${maxSequential} in sequence like abc or 321`,
    );
  }
  return out;
}

/** What the password constraints ask, each clause in words (none: the default rule). */
function constraintClauses(c: Constraints, classes: readonly string[]): string[] {
  const minimums = counts('at least', c.minimums, classes);
  const maximums = counts('at most', c.maximums, classes);
  const clauses: string[] = [];
  const amounts = [minimums, maximums].filter((s) => s !== '');
  if (amounts.length > 0) clauses.push(`with ${amounts.join(' and ')}`);
  if (c.minClasses !== null) clauses.push(`characters of at least ${c.minClasses} of the ${classes.length} kinds`);
  const first = c.firstCharacter;
  const last = c.lastCharacter;
  if (first !== null && last !== null && first.join() === last.join()) clauses.push(`${oneOf(first)} first and last`);
  else {
    if (first !== null) clauses.push(`${oneOf(first)} first`);
    if (last !== null) clauses.push(`${oneOf(last)} last`);
  }
  clauses.push(...runLimits(c.maxRepeating, c.maxSequential));
  return clauses;
}

/** Mode password without site rules: `24 characters from a pool of 62 (lowercase 26, ...),
 * with ...`. Without constraints the rule is the service's own: every included class at least
 * once. */
function passwordRule(m: Metadata): string {
  const classes = m.classes ?? [];
  const pool = classes.map((c) => `${c.name} ${c.size}`).join(', ');
  const head = `${String(m.length)} characters from a pool of ${String(m.poolSize)} (${pool})`;
  if (m.constraints === undefined) return `${head}, with every chosen kind at least once`;
  const clauses = constraintClauses(
    m.constraints,
    classes.map((c) => c.name),
  );
  return clauses.length === 0 ? head : `${head}, ${clauses.join('; ')}`;
}

/** A site rule's set, as the canonical text spells it (`lower`, `digit`, `[-!_]`), in words. */
function setWords(item: string): string {
  const named: Readonly<Record<string, string>> = {
    lower: 'a lowercase letter',
    upper: 'an uppercase letter',
    digit: 'a digit',
    special: 'a special character',
    'ascii-printable': 'any printable character',
  };
  if (item.startsWith('[')) return `one of ${item.slice(1, -1).replace(/\]\]/g, ']')}`;
  return named[item] ?? item;
}

/** `text` split at each `separator` outside a `[...]` class, each part trimmed (the canonical
 * text writes a `]` inside a class as `]]`, and a class may hold `;` or `,`). */
function splitOutsideClasses(text: string, separator: string): string[] {
  const out: string[] = [];
  let start = 0;
  let inClass = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inClass) {
      if (c === ']' && text[i + 1] === ']') i++;
      else if (c === ']') inClass = false;
    } else if (c === '[') inClass = true;
    else if (c === separator) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out;
}

/** The properties of a canonical rule (`minlength: 12; required: lower, digit; allowed: ...;`)
 * as [name, value] pairs. */
function properties(text: string): [string, string][] {
  return splitOutsideClasses(text, ';').flatMap((part): [string, string][] => {
    const colon = part.indexOf(':');
    return colon > 0 ? [[part.slice(0, colon), part.slice(colon + 1).trim()]] : [];
  });
}

/** Mode password to site rules: `20 characters from the 65 the site rules allow (length 12 to
 * 20), with at least a lowercase letter and a digit; no character more than 2 times in a row`. */
function rulesRule(m: Metadata): string {
  const props = properties(m.passwordRules ?? '');
  const value = (name: string): string | undefined => props.find(([n]) => n === name)?.[1];
  const [min, max] = [value('minlength'), value('maxlength')];
  const bounds =
    min !== undefined && max !== undefined
      ? ` (length ${min} to ${max})`
      : min !== undefined
        ? ` (length at least ${min})`
        : max !== undefined
          ? ` (length at most ${max})`
          : '';
  const head = `${String(m.length)} characters from the ${String(m.allowedSize)} the site rules allow${bounds}`;
  const required = props
    .filter(([n]) => n === 'required')
    .map(([, v]) => listed(splitOutsideClasses(v, ',').map(setWords), 'or'));
  const clauses: string[] = [];
  if (required.length > 0) clauses.push(`with at least ${listed(required)}`);
  const limit = (name: string): number | null => {
    const v = value(name);
    return v === undefined ? null : Number(v);
  };
  clauses.push(...runLimits(limit('max-repeating'), limit('max-sequential')));
  return clauses.length === 0 ? head : `${head}, ${clauses.join('; ')}`;
}

/** The rule a password result was counted under, in words (no closing full stop). */
export function passwordRuleWords(m: Metadata): string {
  if (m.entropyMode === 'uniform-pattern')
    return `${String(m.length)} characters matching the pattern, from the ${String(m.allowedSize)} its matches use`;
  return m.entropyMode === 'uniform-rules' ? rulesRule(m) : passwordRule(m);
}
