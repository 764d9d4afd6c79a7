/**
 * An independent reading of `passwordrules` for the tests, written apart from lib/core/rules
 * (regular expressions, sets of strings, no shared code), to confirm that a generated
 * password satisfies a rule and to derive exact distributions in rules-oracle.ts.
 *
 * It reads only well-formed rules (the corpus's and those lib/core/rules accepts) and does not
 * report syntax errors: its job is to say what a rule demands, the way a website would.
 */
const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGIT = '0123456789';
const SPECIAL = [...PRINTABLE].filter((c) => !/[A-Za-z0-9]/.test(c)).join('');
const NAMED: Record<string, string> = {
  upper: UPPER,
  lower: LOWER,
  digit: DIGIT,
  special: SPECIAL,
  'ascii-printable': PRINTABLE,
  unicode: PRINTABLE,
};

export interface CheckerRule {
  /** Characters a password may use. */
  readonly allowed: ReadonlySet<string>;
  /** One entry per `required` line: the password needs a character of each. */
  readonly required: readonly ReadonlySet<string>[];
  readonly minLength: number;
  readonly maxLength: number;
  /** Longest run of one character (max-repeating, or max-consecutive); Infinity when none. */
  readonly maxRepeating: number;
  /** Longest sequence (max-sequential, or max-consecutive); Infinity when none. */
  readonly maxSequential: number;
}

/** The ranges a sequence may run through, each forwards and backwards: a block of n
 * characters is a sequence of n exactly when it is a substring of one of these. */
const SEQUENCE_SOURCES = [DIGIT, UPPER, LOWER].flatMap((r) => [r, [...r].reverse().join('')]);

/** A property: its name, then a value made of classes (which may hold ";") or other text. */
const PROPERTY = /([A-Za-z-]+)\s*:\s*((?:\[[^\]]*\]\]?|[^;[])*)/g;
/** An item of a set value: a class "[...]" ("]]" ends one holding "]"), or an identifier. */
const ITEM = /\[([^\]]*)\](\]?)|([A-Za-z-]+)/g;

export function readRule(text: string): CheckerRule {
  const allowed = new Set<string>();
  const required: Set<string>[] = [];
  let sawSet = false;
  let minLength = 0;
  let maxLength = Infinity;
  let maxRepeating = Infinity;
  let maxSequential = Infinity;
  for (const [, name, value] of text.matchAll(PROPERTY)) {
    if (name === 'minlength') minLength = Math.max(minLength, Number(value.trim()));
    else if (name === 'maxlength') maxLength = Math.min(maxLength, Number(value.trim()));
    else if (name === 'max-repeating') maxRepeating = Math.min(maxRepeating, Number(value.trim()));
    else if (name === 'max-sequential') maxSequential = Math.min(maxSequential, Number(value.trim()));
    else if (name === 'max-consecutive') {
      // The deprecated alias of both (apple/password-manager-resources PR #1255).
      maxRepeating = Math.min(maxRepeating, Number(value.trim()));
      maxSequential = Math.min(maxSequential, Number(value.trim()));
    } else if (name === 'required' || name === 'allowed') {
      sawSet = true;
      const set = new Set<string>();
      for (const [, classChars, closing, identifier] of value.matchAll(ITEM)) {
        const chars = identifier !== undefined ? NAMED[identifier.toLowerCase()] : classChars + closing;
        for (const c of chars) set.add(c);
      }
      for (const c of set) allowed.add(c);
      if (name === 'required') required.push(set);
    }
  }
  if (!sawSet) for (const c of PRINTABLE) allowed.add(c);
  return { allowed, required, minLength, maxLength, maxRepeating, maxSequential };
}

/** The first way `password` breaks `rule`, or null when it satisfies it. */
export function violation(rule: CheckerRule, password: string): string | null {
  const chars = [...password];
  if (chars.length < rule.minLength) return `shorter than minlength ${rule.minLength}`;
  if (chars.length > rule.maxLength) return `longer than maxlength ${rule.maxLength}`;
  const stranger = chars.find((c) => !rule.allowed.has(c));
  if (stranger !== undefined) return `character ${JSON.stringify(stranger)} is not allowed`;
  const missed = rule.required.findIndex((set) => !chars.some((c) => set.has(c)));
  if (missed >= 0) return `no character of required set ${missed + 1}`;
  const runs = password.match(/(.)\1*/gs) ?? [];
  const longest = Math.max(0, ...runs.map((r) => r.length));
  if (longest > rule.maxRepeating) return `a run of ${longest} exceeds max-repeating ${rule.maxRepeating}`;
  const span = rule.maxSequential + 1;
  for (let i = 0; i + span <= password.length; i++) {
    const window = password.slice(i, i + span);
    if (SEQUENCE_SOURCES.some((source) => source.includes(window)))
      return `the sequence ${JSON.stringify(window)} exceeds max-sequential ${rule.maxSequential}`;
  }
  return null;
}
