/**
 * Text from a file or a request, made safe to show: on an operator's terminal (the CLIs, the
 * start-up refusal) and in a log line. What is shown as it is: letters, marks, digits,
 * punctuation and symbols (Unicode categories L, M, N, P, S) and the ASCII space. Everything
 * else could move the cursor, hide or reorder text, or end a line for a reader that splits on
 * more than `\n` (Python's `str.splitlines` splits on U+0085, U+2028, U+2029 and the C0
 * separators): controls such as ESC and CR, the C1 controls, format characters such as bidi
 * overrides and zero-width joiners, other spaces and line separators, private use, unassigned
 * code points, lone surrogates. Those are written as escapes.
 * @module
 */

/** One character that is shown as it is. */
const SHOWN = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;
/** Every UTF-16 unit of a character that is not. */
const NOT_SHOWN = /[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/gu;

const NAMED_ESCAPES = new Map([
  [0x09, '\\t'],
  [0x0a, '\\n'],
  [0x0d, '\\r'],
]);

/** The text with every character not shown written as an escape (\n, \x1b, \u202e, \u{e0001}),
 * for names read from a file someone may have edited by hand. */
export function escapeForTerminal(text: string): string {
  let out = '';
  for (const ch of text) {
    if (SHOWN.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0) ?? 0; // a character of the string: always a code point
    const named = NAMED_ESCAPES.get(cp);
    if (named !== undefined) out += named;
    else if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\u{${cp.toString(16)}}`;
  }
  return out;
}

const unitEscapes = (ch: string): string =>
  ch
    .split('')
    .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('');

/**
 * JSON text (JSON.stringify's output, one line) with every character not shown written as its
 * `\uXXXX` escapes: the same JSON value, and nothing a terminal or a line splitter acts on.
 * JSON.stringify escapes the C0 controls and lone surrogates itself; such characters are
 * otherwise only inside strings, where the escape means the same character.
 */
export function escapeJsonText(json: string): string {
  return json.replace(NOT_SHOWN, unitEscapes);
}

/** Text made of lines (a CLI's output, whose line breaks it writes itself) with each line
 * escaped as escapeForTerminal does; the breaks are kept. */
export function shownLines(text: string): string {
  return text.split('\n').map(escapeForTerminal).join('\n');
}

/** `io` whose stdout and stderr show only what shownLines lets through: every CLI prints
 * through this, so a name from a file reaches the operator's terminal only escaped. */
export function terminalSafe<T extends { stdout(text: string): void; stderr(text: string): void }>(io: T): T {
  return {
    ...io,
    stdout: (text: string) => {
      io.stdout(shownLines(text));
    },
    stderr: (text: string) => {
      io.stderr(shownLines(text));
    },
  };
}
