/**
 * docs/audit.md cannot rot silently. Every row of its reading tables names a file, a line
 * range and what to read there (a module comment, or functions, methods, classes and constants
 * in backticks); this test fails when a file is gone, when a named item is not declared in the
 * range, when the range is no longer exactly those items (from the doc comment above the first
 * to the closing line of the last), when a row's count is not its range's length, when a
 * claim's total is not the sum of its rows, or when a cited test file or test name is gone.
 * So a change that moves or grows a cited function fails here until the document is updated.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'audit.md'), 'utf8');

interface Row {
  readonly claim: string;
  readonly file: string;
  readonly from: number;
  readonly to: number;
  readonly what: string;
  readonly count: number;
}

interface Claim {
  readonly title: string;
  readonly rows: Row[];
  total: number | null;
  readonly tests: { file: string; names: string[] }[];
}

const ROW = /^\| `([^`]+)` \| (\d+)-(\d+) \| (.+) \| (\d+) \|$/;
const TOTAL = /^Reading: \*\*(\d+) lines\*\*/;
const TEST = /^- `(tests\/[^`]+)`: (.+)$/;

function parseDoc(text: string): Claim[] {
  const claims: Claim[] = [];
  for (const line of text.split('\n')) {
    const heading = /^## (\d+\. .+)$/.exec(line);
    if (heading !== null) {
      claims.push({ title: heading[1], rows: [], total: null, tests: [] });
      continue;
    }
    const claim = claims.at(-1);
    if (claim === undefined) continue;
    const row = ROW.exec(line);
    if (row !== null) {
      claim.rows.push({
        claim: claim.title,
        file: row[1],
        from: Number(row[2]),
        to: Number(row[3]),
        what: row[4],
        count: Number(row[5]),
      });
    }
    const total = TOTAL.exec(line);
    if (total !== null) claim.total = Number(total[1]);
    const test = TEST.exec(line);
    if (test !== null) claim.tests.push({ file: test[1], names: [...test[2].matchAll(/"([^"]+)"/g)].map((m) => m[1]) });
  }
  return claims;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The 1-based line where `name` is declared (function, class, const, interface, type, or a
 * method, getter or field of a class), searching [from, to]; -1 if none. */
export function declarationLine(lines: readonly string[], name: string, from: number, to: number): number {
  const n = escape(name);
  const patterns = [
    new RegExp(`^\\s*(export\\s+)?(default\\s+)?(async\\s+)?function\\*?\\s+${n}\\b`),
    new RegExp(`^\\s*(export\\s+)?(abstract\\s+)?class\\s+${n}\\b`),
    new RegExp(`^\\s*(export\\s+)?(const|let|interface|type)\\s+${n}\\b`),
    new RegExp(`^\\s+((public|private|protected|static|readonly|async|override|get|set)\\s+)*#?${n}\\s*(\\(|<|:|=)`),
  ];
  for (let i = from; i <= to && i <= lines.length; i++) {
    if (patterns.some((p) => p.test(lines[i - 1]))) return i;
  }
  return -1;
}

/** The last line of the declaration at `at`: the line itself when it ends with `;`, else the
 * first line after it that closes at its indentation (`}`, `});`, `] as const);`; not the
 * `): Type {` of a signature spread over lines). */
export function declarationEnd(lines: readonly string[], at: number): number {
  const indent = /^\s*/.exec(lines[at - 1])![0];
  if (lines[at - 1].trimEnd().endsWith(';')) return at;
  const closes = new RegExp(`^${indent}(\\}|[)\\]].*;$)`);
  for (let i = at + 1; i <= lines.length; i++) if (closes.test(lines[i - 1])) return i;
  return -1;
}

/** The first line of the doc comment right above `at` (no blank line between), or `at`. */
export function commentStart(lines: readonly string[], at: number): number {
  let i = at - 1;
  if (i < 1 || !lines[i - 1].trim().endsWith('*/')) {
    // A one-line `//` comment block directly above also belongs to it.
    while (i >= 1 && lines[i - 1].trim().startsWith('//')) i--;
    return i + 1;
  }
  while (i >= 1 && !lines[i - 1].trim().startsWith('/**') && !lines[i - 1].trim().startsWith('/*')) i--;
  return i;
}

/** Why the row does not hold what it names, or null when it does. */
export function checkRow(row: Row, readFile: (path: string) => string | null): string | null {
  const where = `${row.file} ${row.from}-${row.to}`;
  const text = readFile(row.file);
  if (text === null) return `${where}: the file is gone`;
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  if (row.count !== row.to - row.from + 1)
    return `${where}: says ${row.count} lines, the range has ${row.to - row.from + 1}`;
  if (row.to > lines.length) return `${where}: the file has only ${lines.length} lines`;
  if (row.what.startsWith('module comment')) {
    const end = lines.findIndex((l) => l.trim() === '*/') + 1;
    if (row.from !== 1 || row.to !== end) return `${where}: the module comment is lines 1-${end}`;
    return null;
  }
  // The names lead the cell: `a`, `b`: what they do (backticks after the colon are prose).
  const lead = /^(`[^`]+`(, `[^`]+`)*)/.exec(row.what)?.[1] ?? '';
  const names = [...lead.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  if (names.length === 0) return `${where}: names nothing: start with \`name\` or "module comment"`;
  let first = Infinity;
  let last = -Infinity;
  for (const name of names) {
    const at = declarationLine(lines, name, row.from, row.to);
    if (at === -1) return `${where}: \`${name}\` is not declared in the range`;
    const end = declarationEnd(lines, at);
    first = Math.min(first, commentStart(lines, at));
    last = Math.max(last, end);
  }
  if (row.from !== first || row.to !== last) return `${where}: what it names is now lines ${first}-${last}`;
  return null;
}

const readFromRoot = (path: string): string | null => {
  const full = join(ROOT, path);
  return existsSync(full) ? readFileSync(full, 'utf8') : null;
};

describe('docs/audit.md, the reviewer\u2019s path', () => {
  const claims = parseDoc(DOC);

  it('states the eight claims, each with lines to read and tests', () => {
    assert.equal(claims.length, 8, claims.map((c) => c.title).join('; '));
    for (const c of claims) {
      assert.ok(c.rows.length > 0, `${c.title}: no lines to read`);
      assert.ok(c.tests.length > 0, `${c.title}: no tests`);
    }
  });

  it('every cited range still holds exactly what it names', () => {
    const problems = claims.flatMap((c) => c.rows.map((r) => checkRow(r, readFromRoot))).filter((p) => p !== null);
    assert.deepEqual(problems, []);
  });

  it("every claim's total is the sum of its rows", () => {
    for (const c of claims) {
      const sum = c.rows.reduce((a, r) => a + r.count, 0);
      assert.equal(c.total, sum, c.title);
    }
  });

  it('every cited test file exists and holds the test names quoted from it', () => {
    for (const c of claims) {
      for (const t of c.tests) {
        const text = readFromRoot(t.file);
        assert.ok(text !== null, `${c.title}: ${t.file} is gone`);
        assert.ok(t.names.length > 0, `${c.title}: ${t.file} quotes no test name`);
        for (const name of t.names) assert.ok(text.includes(name), `${c.title}: ${t.file} has no test "${name}"`);
      }
    }
  });

  it('the before-and-after table gives each claim its whole files and its reading total, as they are now', () => {
    for (const c of claims) {
      const number = c.title.split('.')[0];
      const row = new RegExp(`^\\| ${number}\\. .*\\|$`, 'm').exec(DOC);
      assert.ok(row !== null, `no before/after row for ${c.title}`);
      const cells = row[0]
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      const [whole, cited] = cells.slice(-2).map((cell) => {
        const m = /^([\d,]+) in (\d+) files?$/.exec(cell);
        assert.ok(m !== null, `${c.title}: "${cell}" is not "N in K files"`);
        return { lines: Number(m[1].replace(/,/g, '')), files: Number(m[2]) };
      });
      const files = [...new Set(c.rows.map((r) => r.file))];
      const lines = files.reduce((sum, f) => sum + readFromRoot(f)!.split('\n').length - 1, 0);
      assert.deepEqual(whole, { lines, files: files.length }, `${c.title}: whole files now`);
      assert.deepEqual(cited, { lines: c.total, files: files.length }, `${c.title}: cited ranges`);
    }
  });
});

describe('the checker itself (it must catch what it promises to)', () => {
  const file = [
    '/**',
    ' * The module.',
    ' */',
    'import x from "y";',
    '',
    '/** Doc. */',
    'export function alpha(a: number): number {',
    '  return a;',
    '}',
    '',
    'export class Beta {',
    '  private readonly gamma = 1;',
    '  /** The method. */',
    '  delta(): number {',
    '    return 2;',
    '  }',
    '}',
    'export const EPSILON = 3;',
    'export function zeta(',
    '  a: number,',
    '): number {',
    '  return a;',
    '}',
  ].join('\n');
  const read = (path: string): string | null => (path === 'f.ts' ? file : null);
  const row = (from: number, to: number, what: string): Row => ({
    claim: 't',
    file: 'f.ts',
    from,
    to,
    what,
    count: to - from + 1,
  });

  it('accepts exact ranges of functions, methods, constants and the module comment', () => {
    assert.equal(checkRow(row(6, 9, '`alpha`'), read), null);
    assert.equal(checkRow(row(13, 16, '`delta`'), read), null);
    assert.equal(checkRow(row(18, 18, '`EPSILON`'), read), null);
    assert.equal(checkRow(row(1, 3, 'module comment: why'), read), null);
    assert.equal(checkRow(row(6, 17, '`alpha`, `Beta`'), read), null);
    assert.equal(checkRow(row(19, 23, '`zeta`'), read), null, 'a signature over several lines');
  });

  it('refuses a moved or grown function, a missing name, a wrong count and a gone file', () => {
    assert.match(checkRow(row(7, 9, '`alpha`'), read)!, /now lines 6-9/);
    assert.match(checkRow(row(6, 8, '`alpha`'), read)!, /now lines 6-9|not declared/);
    assert.match(checkRow(row(6, 9, '`omega`'), read)!, /not declared/);
    assert.match(checkRow({ ...row(6, 9, '`alpha`'), count: 5 }, read)!, /says 5 lines/);
    assert.match(checkRow({ ...row(6, 9, '`alpha`'), file: 'g.ts' }, read)!, /gone/);
    assert.match(checkRow(row(1, 4, 'module comment'), read)!, /lines 1-3/);
    assert.match(checkRow(row(6, 30, '`alpha`'), read)!, /only 23 lines/);
  });
});
