/**
 * docs/audit.md cannot rot silently. Every row of its reading tables names a file and what to
 * read there: its module comment, or functions, methods, classes, interfaces, types and
 * constants in backticks (a member as `Class.member` where its bare name is not unique). This
 * test finds each named item with the TypeScript compiler, from the doc comment directly above
 * it to its last line, and fails when a file is gone, when a named item is not declared in it
 * or is declared twice, when a row's span (from the first item's comment to the last item's end)
 * holds a declaration the row does not name, when a row's count is not its span's length, when
 * a claim's total is not the sum of its rows, or when a cited test file or test name is gone.
 * The doc cites no line numbers: code that moves is found again; code that grows or goes fails
 * here until the document says so.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'audit.md'), 'utf8');

interface Row {
  readonly claim: string;
  readonly file: string;
  readonly what: string;
  readonly count: number;
}

interface Claim {
  readonly title: string;
  readonly rows: Row[];
  total: number | null;
  readonly tests: { file: string; names: string[] }[];
}

const ROW = /^\| `([^`]+)` \| (.+) \| (\d+) \|$/;
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
    if (row !== null) claim.rows.push({ claim: claim.title, file: row[1], what: row[2], count: Number(row[3]) });
    const total = TOTAL.exec(line);
    if (total !== null) claim.total = Number(total[1]);
    const test = TEST.exec(line);
    if (test !== null) claim.tests.push({ file: test[1], names: [...test[2].matchAll(/"([^"]+)"/g)].map((m) => m[1]) });
  }
  return claims;
}

/** A declaration the doc can name: its name (`Class.member` for a member), its lines (doc
 * comment included) and the siblings it sits among. */
interface Item {
  readonly name: string;
  readonly qualified: string;
  readonly from: number;
  readonly to: number;
  readonly parent: ts.Node;
}

function namesOf(node: ts.Node): string[] {
  if (ts.isVariableStatement(node))
    return node.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
  if (ts.isConstructorDeclaration(node)) return ['constructor'];
  const name = (node as { name?: ts.Node }).name;
  if (name !== undefined && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name)))
    return [name.text];
  return [];
}

const parsed = new Map<string, Item[]>();

/** Every top-level declaration of the file and every member of its classes (parsed once). */
export function itemsOf(path: string, text: string): Item[] {
  const key = `${path}\0${text}`;
  const cached = parsed.get(key);
  if (cached !== undefined) return cached;
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const line = (pos: number): number => sf.getLineAndCharacterOfPosition(pos).line + 1;
  // The comments directly above: each ends on the line before the next (no blank line between).
  const start = (node: ts.Node): number => {
    let at = node.getStart(sf);
    for (const c of (ts.getLeadingCommentRanges(text, node.pos) ?? []).reverse()) {
      if (line(at) - line(c.end) > 1) break;
      at = c.pos;
    }
    return line(at);
  };
  const items: Item[] = [];
  for (const statement of sf.statements) {
    for (const name of namesOf(statement))
      items.push({ name, qualified: name, from: start(statement), to: line(statement.end), parent: sf });
    if (ts.isClassDeclaration(statement) && statement.name !== undefined) {
      for (const member of statement.members) {
        for (const name of namesOf(member))
          items.push({
            name,
            qualified: `${statement.name.text}.${name}`,
            from: start(member),
            to: line(member.end),
            parent: statement,
          });
      }
    }
  }
  parsed.set(key, items);
  return items;
}

/** The lines of the file's leading block comment, or 0 when it has none. */
export function moduleCommentLines(text: string): number {
  const first = ts.getLeadingCommentRanges(text, 0)?.[0];
  if (first === undefined || first.kind !== ts.SyntaxKind.MultiLineCommentTrivia) return 0;
  return text.slice(0, first.end).split('\n').length;
}

/** Where the row's items are, or why it does not hold what it names. */
export function checkRow(
  row: Row,
  readFile: (path: string) => string | null,
): { from: number; to: number } | { problem: string } {
  const where = `${row.file} (${row.what.split(':')[0]})`;
  const text = readFile(row.file);
  if (text === null) return { problem: `${where}: the file is gone` };
  let from: number;
  let to: number;
  if (row.what.startsWith('module comment')) {
    from = 1;
    to = moduleCommentLines(text);
    if (to === 0) return { problem: `${where}: the file has no module comment` };
  } else {
    // The names lead the cell: `a`, `b`: what they do (backticks after the colon are prose).
    const lead = /^(`[^`]+`(, `[^`]+`)*)/.exec(row.what)?.[1] ?? '';
    const names = [...lead.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    if (names.length === 0) return { problem: `${where}: names nothing: start with \`name\` or "module comment"` };
    const items = itemsOf(row.file, text);
    const found: Item[] = [];
    for (const name of names) {
      const matches = items.filter((i) => i.name === name || i.qualified === name);
      if (matches.length === 0) return { problem: `${where}: \`${name}\` is not declared in the file` };
      // Overloads of one function are one item; two different declarations are ambiguous.
      if (matches.some((m) => m.parent !== matches[0].parent || m.qualified !== matches[0].qualified))
        return { problem: `${where}: \`${name}\` names ${matches.map((m) => m.qualified).join(', ')}: qualify it` };
      found.push(...matches);
    }
    from = Math.min(...found.map((i) => i.from));
    to = Math.max(...found.map((i) => i.to));
    const parent = found[0].parent;
    const unnamed = items.filter(
      (i) => i.parent === parent && i.from >= from && i.to <= to && !found.some((f) => f.qualified === i.qualified),
    );
    if (unnamed.length > 0)
      return { problem: `${where}: lines ${from}-${to} also hold ${unnamed.map((i) => `\`${i.name}\``).join(', ')}` };
  }
  if (row.count !== to - from + 1)
    return { problem: `${where}: says ${row.count} lines, lines ${from}-${to} are ${to - from + 1}` };
  return { from, to };
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

  it('every row names items that exist, holds nothing it does not name, and counts their lines', () => {
    const problems = claims
      .flatMap((c) => c.rows.map((r) => checkRow(r, readFromRoot)))
      .flatMap((r) => ('problem' in r ? [r.problem] : []));
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
      // Whole files move with every edit anywhere in them: held to 5 %, so that a change beside
      // a cited item does not have to touch this page; the cited items are held exactly.
      assert.equal(whole.files, files.length, `${c.title}: whole files now`);
      assert.ok(
        Math.abs(whole.lines - lines) <= 0.05 * lines,
        `${c.title}: whole files now ${lines} lines, the page says ${whole.lines} (more than 5 % off)`,
      );
      assert.deepEqual(cited, { lines: c.total, files: files.length }, `${c.title}: cited items`);
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
    '// Why zeta.',
    'export function zeta(',
    '  a: number,',
    '): number {',
    '  return a;',
    '}',
    'class Eta {',
    '  constructor() {}',
    '  delta(): void {}',
    '}',
  ].join('\n');
  const read = (path: string): string | null => (path === 'f.ts' ? file : null);
  const row = (what: string, count: number): Row => ({ claim: 't', file: 'f.ts', what, count });
  const lines = (what: string, count: number): unknown => checkRow(row(what, count), read);
  const problem = (what: string, count: number, file = 'f.ts'): string => {
    const r = checkRow({ ...row(what, count), file }, read);
    return 'problem' in r ? r.problem : `no problem: ${r.from}-${r.to}`;
  };

  it('finds functions, members, constants and the module comment, each from its comment to its end', () => {
    assert.deepEqual(lines('`alpha`', 4), { from: 6, to: 9 });
    assert.deepEqual(lines('`Beta.delta`: the method', 4), { from: 13, to: 16 });
    assert.deepEqual(lines('`EPSILON`', 1), { from: 18, to: 18 });
    assert.deepEqual(lines('module comment: why', 3), { from: 1, to: 3 });
    assert.deepEqual(lines('`alpha`, `Beta`', 12), { from: 6, to: 17 });
    assert.deepEqual(lines('`zeta`', 6), { from: 19, to: 24 }, 'a // comment, a signature over several lines');
    assert.deepEqual(lines('`Beta`, `EPSILON`, `zeta`', 14), { from: 11, to: 24 });
  });

  it('refuses a gone name, a wrong count, a gone file, an unnamed item within the span and an ambiguous name', () => {
    assert.match(problem('`omega`', 4), /`omega` is not declared/);
    assert.match(problem('`alpha`', 5), /says 5 lines, lines 6-9 are 4/);
    assert.match(problem('`alpha`', 4, 'g.ts'), /the file is gone/);
    assert.match(problem('`alpha`, `EPSILON`', 13), /also hold `Beta`/);
    assert.match(problem('`delta`', 4), /names Beta.delta, Eta.delta: qualify it/);
    assert.match(problem('module comment', 4), /says 4 lines, lines 1-3/);
    assert.match(problem('what it does', 4), /names nothing/);
  });
});
