/**
 * Code comments carry no timings (issue 29, readable figures). A tuning note names the section
 * of docs/benchmark.md that justifies it instead, where the figure has a date, a machine and a
 * method, and where the 3 % rule decides whether the trick stays; a figure copied into a comment
 * goes stale without anyone noticing. So: no micro- or nanosecond figure in a comment anywhere in
 * lib/, and in lib/core (the part a reviewer reads in one sitting) no measured figure at all: no
 * time, no memory size in KB/MB/GB, no "Nx" speed-up. Worked mathematical figures (a rejection
 * sampler's acceptance rate, a count) are arguments, not measurements, and stay.
 *
 * Nor history: a comment in lib/ states the invariant it protects, not the review finding (T1,
 * S1, F5, U2, I31...) or the issue that asked for it; those belong in the tests' names,
 * CHANGELOG.md and docs/security.md, which a comment may point to by section. The engine's
 * equation tags ((E1) to (E18), docs/engine.md) and the pattern tier's ((P1) to (P8), in
 * parentheses) are not findings and stay.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');

/** A micro- or nanosecond figure: "1.7 us", "~25 ns", "3 microseconds". */
const SUB_MILLI = /\d(\.\d+)?\s?(us|µs|μs|ns|microseconds?|nanoseconds?)\b/;
/** Any measured figure: a time, a memory size, a speed-up. */
const MEASURED =
  /\d(\.\d+)?\s?(us|µs|μs|ns|ms|s|seconds?|KB|MB|GB|microseconds?|nanoseconds?|milliseconds?)\b|\d(\.\d+)?x (faster|slower)/;

/**
 * Files with figures in comments that another change rewrites (issue 29, the exact engine);
 * this list only shrinks, and an entry whose file no longer has a figure fails below.
 */
const BEING_REWRITTEN: ReadonlySet<string> = new Set([]);

/**
 * Microseconds that are a unit, not a timing: the Redis clock and the TAT are kept in them,
 * and the comment argues that the arithmetic on them is exact.
 */
const UNIT_NOT_TIMING: ReadonlySet<string> = new Set(['lib/rate-limit/gcra.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.generated.ts') ? [path] : [];
  });
}

/** The comment text of each line (block comments, and `//` to the end of a line), by line. */
export function commentLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let inBlock = false;
  text.split('\n').forEach((source, i) => {
    let rest = source;
    let comment = '';
    for (;;) {
      if (inBlock) {
        const end = rest.indexOf('*/');
        comment += end === -1 ? rest : rest.slice(0, end);
        if (end === -1) break;
        inBlock = false;
        rest = rest.slice(end + 2);
        continue;
      }
      const block = rest.search(/\/\*/);
      const line = rest.search(/(^|[\s;,({])\/\/(\s|$)/);
      if (line !== -1 && (block === -1 || line < block)) {
        comment += rest.slice(line);
        break;
      }
      if (block === -1) break;
      inBlock = true;
      rest = rest.slice(block + 2);
    }
    if (comment !== '') out.push({ line: i + 1, text: comment });
  });
  return out;
}

/** A review finding's id (the letters docs/security.md uses, E aside: the engine's equations are
 * (E1) to (E18); a P in parentheses is the pattern tier's equation, (P1) to (P8)) or an issue
 * number. */
const HISTORY = /\b[TSFUIO]\d{1,2}\b|(?<!\()\bP\d{1,2}\b|\b[Ii]ssues? #?\d+|\b[Ss]ecurity (review|finding)\b/;

function figures(file: string, pattern: RegExp): string[] {
  return commentLines(readFileSync(join(ROOT, file), 'utf8'))
    .filter((c) => pattern.test(c.text))
    .map((c) => `${file}:${c.line}: ${c.text.trim()}`);
}

const files = sourceFiles(join(ROOT, 'lib')).map((f) => relative(ROOT, f));

describe('figures in code comments', () => {
  it('no micro- or nanosecond figure in a comment in lib/ (bench sections justify tuning notes)', () => {
    const found = files
      .filter((f) => !BEING_REWRITTEN.has(f) && !UNIT_NOT_TIMING.has(f))
      .flatMap((f) => figures(f, SUB_MILLI));
    assert.deepEqual(found, []);
  });

  it('no measured figure at all in a comment in lib/core or lib/request', () => {
    const found = files
      .filter((f) => (f.startsWith('lib/core/') || f.startsWith('lib/request/')) && !BEING_REWRITTEN.has(f))
      .flatMap((f) => figures(f, MEASURED));
    assert.deepEqual(found, []);
  });

  it('no review-finding id or issue number in a comment in lib/ (the invariant instead)', () => {
    assert.deepEqual(
      files.flatMap((f) => figures(f, HISTORY)),
      [],
    );
  });

  it('every exempted file still needs its exemption (the lists only shrink)', () => {
    for (const f of BEING_REWRITTEN)
      assert.ok(figures(f, MEASURED).length > 0, `${f} has no figure left: remove it from BEING_REWRITTEN`);
    for (const f of UNIT_NOT_TIMING)
      assert.ok(figures(f, SUB_MILLI).length > 0, `${f}: remove it from UNIT_NOT_TIMING`);
  });

  it('finds figures in block, doc and line comments, and not in code', () => {
    const text = [
      '/**',
      ' * costs 1.7 us',
      ' */',
      'const a = 5; // ~25 ns',
      'const ms = "3 ms";',
      '/* 2 MB */ f();',
    ].join('\n');
    const lines = commentLines(text);
    assert.deepEqual(
      lines.map((l) => l.line),
      [1, 2, 3, 4, 6],
    );
    assert.deepEqual(
      lines.filter((l) => SUB_MILLI.test(l.text)).map((l) => l.line),
      [2, 4],
    );
    assert.deepEqual(
      lines.filter((l) => MEASURED.test(l.text)).map((l) => l.line),
      [2, 4, 6],
    );
    assert.ok(!MEASURED.test('keeps 62 of 64 (96.9 %) and 64 KiB batches'), 'worked figures and KiB constants stay');
    for (const history of ['(security review S3)', '(F5, early-close.ts)', 'T1)', 'U7:', '(issue 31)', 'Issue #42'])
      assert.ok(HISTORY.test(history), history);
    for (const kept of ['(E4)', 'U+2028', 'the C1 controls', 'SHA-256', 'a /56', 'x2', 'T', 'p99'])
      assert.ok(!HISTORY.test(kept), kept);
  });
});
