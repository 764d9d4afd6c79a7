/**
 * What text shown to an operator or written to a log must not hold raw (lib/log/shown-text.ts):
 * the checks of the U3 and U7 tests.
 */

/** Where a reader splitting lines as Python's `str.splitlines` does would cut. */
// eslint-disable-next-line no-control-regex -- the line separators are what is looked for
export const LINE_BREAKS = /\r\n|[\n\v\f\r\x1c-\x1e\x85\u2028\u2029]/;

/** What a terminal acts on, or a reader splits lines at: the C0 controls but \n, DEL, the C1
 * controls, U+2028 and U+2029, the bidi controls. */
export const TERMINAL_UNSAFE =
  // eslint-disable-next-line no-control-regex -- the control characters are what is looked for
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
