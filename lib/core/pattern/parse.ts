/**
 * `options.pattern` as a browser reads an HTML `pattern` (`^(?:pattern)$`, flag `v`) over printable
 * ASCII without space: the native engine only compiles it and tests each one-character class (one
 * character cannot backtrack); the rest is read here, what the automata cannot hold refused. @module
 */
export const PATTERN_FIELD = 'options.pattern';
/** The alphabet: U+0021 to U+007E, symbol i is code FIRST + i; and the longest password. */
export const FIRST = 0x21;
export const SYMBOLS = 94;
export const MAX_LENGTH = 128;

/** A pattern the tier refuses, with the reason (a 400 naming options.pattern). */
export class PatternRefusal extends Error {}
export const refuse = (reason: string): never => {
  throw new PatternRefusal(`${PATTERN_FIELD} ${reason}`);
};

/** A set of the 94 symbols: s[i] is 1 when symbol i is in it. */
export type Symbols = Uint8Array;

/** A group's cap is its capture number (0: none); a lookahead's src is its text, which names it. */
export type Node =
  | { readonly k: 'set'; readonly s: Symbols }
  | { readonly k: 'seq'; readonly items: readonly Node[] }
  | { readonly k: 'alt'; readonly alts: readonly Node[] }
  | { readonly k: 'rep'; readonly node: Node; readonly min: number; readonly max: number }
  | { readonly k: 'group'; readonly node: Node; readonly cap: number }
  | { readonly k: 'look'; readonly neg: boolean; readonly node: Node; readonly src: string }
  | { readonly k: 'bol' }
  | { readonly k: 'eol' }
  | { readonly k: 'ref'; readonly to: number | string };

/** The structure, every distinct set (they split the alphabet into minterms), and the named groups. */
export type Parsed = Readonly<{ root: Node; sets: readonly Symbols[]; names: ReadonlyMap<string, number> }>;
type Reader = { readonly p: string; i: number; captures: number } & Readonly<{ names: Map<string, number> }> &
  Readonly<{ memo: Map<string, Symbols> }>;

const STRINGS = /\\(?:q\{|p\{(?:Basic_Emoji|Emoji_Keycap_Sequence|RGI_Emoji(?:_[A-Za-z]+_Sequence)?)\})/;

/** Why `^(?:p)$` does not compile under `flags` (a browser ignores such a pattern), or null. Only
 * the engine's reason is kept: V8 writes the pattern before it, and no request text is echoed. */
function failure(p: string, flags: string): string | null {
  try {
    new RegExp(`^(?:${p})$`, flags);
    return null;
  } catch (e) {
    const m = (e as Error).message;
    const at = m.lastIndexOf(`/${flags}: `);
    return at >= 0 ? m.slice(at + flags.length + 3) : p !== '' && m.includes(p) ? 'a syntax error' : m;
  }
}

/** The pattern's structure, after the native syntax check; throws PatternRefusal. */
export function parsePattern(p: string): Parsed {
  const reason = failure(p, 'v');
  const hint =
    reason !== null && failure(p, 'u') === null
      ? '; it is valid under the older u flag, but v asks for ( ) [ ] { } / - | to be escaped in a class'
      : '';
  if (reason !== null)
    refuse(`is not a valid HTML pattern (^(?:pattern)$ with the v flag): ${reason.slice(0, 80)}${hint}`);
  const r: Reader = { p, i: 0, captures: 0, names: new Map(), memo: new Map() };
  return { root: alt(r), sets: [...r.memo.values()], names: r.names };
}

function take(r: Reader, re: RegExp): (string | undefined)[] | null {
  re.lastIndex = r.i;
  const m = re.exec(r.p);
  if (m !== null) r.i += m[0].length;
  return m;
}

function set(r: Reader, key: string, has: (c: number) => boolean): Node {
  let s = r.memo.get(key);
  if (s === undefined) r.memo.set(key, (s = Uint8Array.from({ length: SYMBOLS }, (_, c) => (has(c) ? 1 : 0))));
  return { k: 'set', s };
}

/** A class or an escape alone, tested natively on each symbol: one character, no backtracking. */
function native(r: Reader, src: string): Node {
  let re: RegExp | undefined;
  return set(r, src, (c) => (re ??= new RegExp(`^${src}$`, 'v')).test(String.fromCharCode(FIRST + c)));
}

function alt(r: Reader): Node {
  const alts: Node[] = [];
  do {
    const items: Node[] = [];
    while (r.i < r.p.length && r.p[r.i] !== '|' && r.p[r.i] !== ')') items.push(term(r));
    alts.push({ k: 'seq', items });
  } while (r.p[r.i] === '|' && ++r.i > 0);
  return alts.length === 1 ? alts[0] : { k: 'alt', alts };
}

function term(r: Reader): Node {
  const node = atom(r);
  const [, op, lo, comma, hi] = take(r, /(?:([*+?])|\{(\d+)(,(\d*))?\})\??/y) ?? [];
  if (op !== undefined) return { k: 'rep', node, min: op === '+' ? 1 : 0, max: op === '?' ? 1 : Infinity };
  if (lo === undefined) return node;
  return { k: 'rep', node, min: Number(lo), max: comma === undefined ? Number(lo) : hi === '' ? Infinity : Number(hi) };
}

function atom(r: Reader): Node {
  const c = r.p[r.i];
  if (c === '(') return group(r);
  if (c === '[') return charClass(r);
  if (c === '\\') return escape(r);
  if (c === '^' || c === '$') return (r.i++, c === '^' ? { k: 'bol' } : { k: 'eol' });
  const code = r.p.codePointAt(r.i) as number;
  r.i += code > 0xffff ? 2 : 1;
  return c === '.' ? native(r, c) : set(r, `#${code}`, (x) => x + FIRST === code);
}

function group(r: Reader): Node {
  const [, kind, name] = take(r, /\((?:\?(<=|<!|=|!|:|<([^>]*)>|))?/y) ?? [];
  if (kind === '<=' || kind === '<!') refuse('uses a lookbehind ((?<= or (?<!), which is not supported');
  if (kind === '') refuse('uses a modifier group such as (?i:...), which is not supported');
  const cap = kind === undefined || name !== undefined ? ++r.captures : 0;
  if (name !== undefined) r.names.set(name, cap);
  const start = r.i;
  const node = alt(r);
  const src = r.p.slice(start, r.i++);
  return kind === '=' || kind === '!' ? { k: 'look', neg: kind === '!', node, src } : { k: 'group', cap, node };
}

function escape(r: Reader): Node {
  const src = (take(
    r,
    /\\(?:[pPu]\{[^}]*\}|k<[^>]*>|u[dD][89abAB]\w\w\\u[dD][c-fC-F]\w\w|u\w{4}|x\w\w|c\w|[1-9]\d*|.)/y,
  ) ?? [''])[0] as string;
  if (src === '\\b' || src === '\\B') refuse('uses \\b or \\B (a word boundary), which is not supported');
  if (STRINGS.test(src)) refuse('uses a property of strings (such as \\p{RGI_Emoji}), which is not supported');
  const ref = /^\\(?:([1-9]\d*)|k<(.*)>)$/.exec(src);
  if (ref === null) return native(r, src);
  return { k: 'ref', to: ref[1] ? Number(ref[1]) : ref[2] };
}

/** A class, nested classes and escapes inside it included (the v flag's syntax). */
function charClass(r: Reader): Node {
  const start = r.i;
  for (let depth = 0; r.i === start || depth > 0; r.i++)
    if (r.p[r.i] === '\\') r.i++;
    else depth += r.p[r.i] === '[' ? 1 : r.p[r.i] === ']' ? -1 : 0;
  const src = r.p.slice(start, r.i);
  if (STRINGS.test(src)) refuse('uses a class of strings (\\q{...} or a property of strings), which is not supported');
  return native(r, src);
}
