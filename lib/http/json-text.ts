/**
 * What JSON.parse does not say about a request body: where its first syntax error is, and
 * whether an object names a member twice. JSON.parse keeps the last of two equal names
 * silently, and its messages quote the text around an error (which may carry a secret), so
 * the edge scans the text itself: one pass, no recursion (a 16 KB body may nest 8,000 deep),
 * memory bounded by the body (docs/decisions.md, Validation).
 * @module
 */

import { PLAIN_NAME } from '../request/index.ts';

export type JsonTextCheck =
  | { readonly kind: 'ok' }
  | { readonly kind: 'syntax'; readonly line: number; readonly column: number }
  /** `path`: the member's dotted path when every name on it is plain and it is short
   * (`nameable`); else, with `unnamed`, the longest such start of it, maybe ''. */
  | { readonly kind: 'duplicate'; readonly path: string; readonly unnamed?: true };

const OK: JsonTextCheck = { kind: 'ok' };

interface Frame {
  readonly object: boolean;
  /** Member names seen so far (objects only; made on the first member). */
  names: Set<string> | null;
  /** The member whose value is being read (objects), or the element index (arrays). */
  key: string;
  index: number;
}

/** The longest path a message may name, in characters. */
export const MAX_NAMED_PATH = 64;

/**
 * The path of the value being read in the innermost frame, as messages may show it: whole when
 * every name on it is plain (as the validator's messages require: ASCII letters, digits, `_`,
 * `$`, `-`, at most 40; or empty) and it is at most MAX_NAMED_PATH characters; else (`unnamed`) the
 * longest start of it that is, so neither a name's characters nor a deep nesting reach a reply
 * or a log line. Made only for the one duplicate reported: at most MAX_NAMED_PATH steps.
 */
function pathOf(stack: readonly Frame[]): { path: string; unnamed?: true } {
  let path = '';
  for (let depth = 0; depth < stack.length; depth++) {
    const frame = stack[depth];
    let step: string;
    if (!frame.object) step = `[${String(frame.index)}]`;
    else if (frame.key !== '' && !PLAIN_NAME.test(frame.key)) return { path, unnamed: true };
    else step = depth === 0 ? frame.key : `.${frame.key}`;
    if (path.length + step.length > MAX_NAMED_PATH) return { path, unnamed: true };
    path += step;
  }
  return { path };
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
/** The characters after a backslash other than `u`: " \ / b f n r t. */
const ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;

/** 1-based line and column (in characters, a surrogate pair counting once) of `offset`. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  let column = 1;
  for (let i = lineStart; i < offset; i++) {
    // the low half of a pair does not count: its high half did
    if (!(isLow(text.charCodeAt(i)) && i > lineStart && isHigh(text.charCodeAt(i - 1)))) column++;
  }
  return { line, column };
}

/** One scan of one text (RFC 8259): `i` moves forward only. */
class Scanner {
  private i = 0;
  private readonly stack: Frame[] = [];
  private duplicate: { path: string; unnamed?: true } | null = null;
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  run(): JsonTextCheck {
    // The loop alternates between reading a value and what may follow one.
    let wantValue = true;
    for (;;) {
      this.skipWhitespace();
      if (wantValue) {
        const result = this.value();
        if (result === 'fail') return this.fail();
        wantValue = result === 'value';
        continue;
      }
      const top = this.stack.at(-1);
      if (top === undefined) {
        if (this.i !== this.text.length) return this.fail();
        return this.duplicate === null ? OK : { kind: 'duplicate', ...this.duplicate };
      }
      const after = this.afterValue(top);
      if (after === 'fail') return this.fail();
      wantValue = after === 'value';
    }
  }

  /** A value at i: a scalar read whole ('done'), a container opened ('value': its first
   * member's or element's value is next; 'done' when it was empty), or 'fail'. */
  private value(): 'value' | 'done' | 'fail' {
    const c = this.text.charCodeAt(this.i);
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) return this.open(c === OPEN_OBJECT);
    let ok: boolean;
    if (c === QUOTE) ok = this.string();
    else if (c === 0x2d || isDigit(c)) ok = this.number();
    else if (c === 0x74) ok = this.literal('true');
    else if (c === 0x66) ok = this.literal('false');
    else ok = this.literal('null');
    return ok ? 'done' : 'fail';
  }

  private open(object: boolean): 'value' | 'done' | 'fail' {
    const frame: Frame = { object, names: null, key: '', index: 0 };
    this.stack.push(frame);
    this.i++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.i) === (object ? CLOSE_OBJECT : CLOSE_ARRAY)) {
      this.i++;
      this.stack.pop();
      return 'done';
    }
    return !object || this.member(frame) ? 'value' : 'fail';
  }

  /** After a value inside `top`: a comma and the next value ('value'), the close ('done'). */
  private afterValue(top: Frame): 'value' | 'done' | 'fail' {
    const c = this.text.charCodeAt(this.i);
    if (c === 0x2c) {
      this.i++;
      this.skipWhitespace();
      if (!top.object) {
        top.index++;
        return 'value';
      }
      return this.member(top) ? 'value' : 'fail';
    }
    if (c !== (top.object ? CLOSE_OBJECT : CLOSE_ARRAY)) return 'fail';
    this.i++;
    this.stack.pop();
    return 'done';
  }

  /** A member's name and colon at i, the name noted (and a repeat remembered). */
  private member(frame: Frame): boolean {
    const start = this.i;
    if (this.text.charCodeAt(start) !== QUOTE || !this.string()) return false;
    // The raw slice is a valid JSON string here; JSON.parse unescapes it.
    const name = JSON.parse(this.text.slice(start, this.i)) as string;
    frame.key = name;
    frame.names ??= new Set();
    if (frame.names.has(name)) this.duplicate ??= pathOf(this.stack);
    else frame.names.add(name);
    this.skipWhitespace();
    if (this.text.charCodeAt(this.i) !== 0x3a) return false;
    this.i++;
    return true;
  }

  private fail(): JsonTextCheck {
    return { kind: 'syntax', ...positionOf(this.text, this.i) };
  }

  private skipWhitespace(): void {
    const { text } = this;
    while (this.i < text.length) {
      const c = text.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.i++;
    }
  }

  /** From the opening quote at i to just past the closing one; false at a bad character. */
  private string(): boolean {
    const { text } = this;
    this.i++;
    while (this.i < text.length) {
      const c = text.charCodeAt(this.i);
      if (c === QUOTE) {
        this.i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c && !this.escape()) return false;
      this.i++;
    }
    return false;
  }

  /** The escape whose backslash is at i: i is left on its last character. */
  private escape(): boolean {
    this.i++;
    const e = this.text.charCodeAt(this.i);
    if (e !== 0x75) return ESCAPES.has(e);
    for (let k = 1; k <= 4; k++) {
      if (!isHex(this.text.charCodeAt(this.i + k))) {
        this.i += k;
        return false;
      }
    }
    this.i += 4;
    return true;
  }

  private digits(): boolean {
    if (!isDigit(this.text.charCodeAt(this.i))) return false;
    while (isDigit(this.text.charCodeAt(this.i))) this.i++;
    return true;
  }

  private number(): boolean {
    const at = (): number => this.text.charCodeAt(this.i);
    if (at() === 0x2d) this.i++;
    if (at() === 0x30) this.i++;
    else if (!this.digits()) return false;
    if (at() === 0x2e) {
      this.i++;
      if (!this.digits()) return false;
    }
    if (at() === 0x65 || at() === 0x45) {
      this.i++;
      if (at() === 0x2b || at() === 0x2d) this.i++;
      if (!this.digits()) return false;
    }
    return true;
  }

  private literal(word: string): boolean {
    for (let k = 0; k < word.length; k++, this.i++) {
      if (this.text.charCodeAt(this.i) !== word.charCodeAt(k)) return false;
    }
    return true;
  }
}

/**
 * Scans `text` as RFC 8259 JSON: the first syntax error's position; else the path of the
 * first member name repeated in its object (as pathOf bounds it) (names compared after unescaping, so `"mode"` and
 * `"mo\u0064e"` are the same member); else ok. A text with both is a syntax error, as
 * JSON.parse would say: the scan goes on past a duplicate.
 */
export function checkJsonText(text: string): JsonTextCheck {
  return new Scanner(text).run();
}

/**
 * Whether a text JSON.parse accepted names some member twice in one object, without a second
 * scan of its structure (docs/benchmark.md, "The request path against the lean limit"): in
 * valid JSON every `:` outside a string separates one member's name from its value, and
 * JSON.parse keeps one own property per distinct name (after unescaping) of each object, so
 * `parsed` has fewer members than the text has such colons exactly when a name repeats. Only
 * then does checkJsonText run, to say where.
 */
export function repeatsAMember(text: string, parsed: unknown): boolean {
  return memberColons(text) !== membersOf(parsed);
}

/** The `:` outside strings of a valid JSON text. */
function memberColons(text: string): number {
  let colons = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // the escaped character cannot end the string
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === 0x3a) colons++;
  }
  return colons;
}

/** The own members of every object in a parsed JSON value (no recursion: a 16 KB body may
 * nest 8,000 deep). */
function membersOf(value: unknown): number {
  let members = 0;
  const open: object[] = [];
  let next: unknown = value;
  for (;;) {
    if (typeof next === 'object' && next !== null) {
      const array = Array.isArray(next);
      const values: readonly unknown[] = array ? (next as unknown[]) : Object.values(next);
      if (!array) members += values.length;
      for (const v of values) if (typeof v === 'object' && v !== null) open.push(v);
    }
    const popped = open.pop();
    if (popped === undefined) return members;
    next = popped;
  }
}
