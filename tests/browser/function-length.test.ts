/**
 * The page's code stays readable in small parts: no function in browser/ is longer than 80
 * lines, counted from its declaration (the `const` of an arrow function, the key of a method)
 * to its closing brace, comments before it excluded. A reviewer reads the page before trusting
 * it; one 200-line closure hides which part touches what.
 *
 * Parsed with the TypeScript compiler (already a devDependency), so nested functions, arrow
 * functions and methods are all counted, each on its own.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../helpers/server.ts';

const LIMIT = 80;
const BROWSER = join(ROOT, 'browser');

interface Measured {
  name: string;
  where: string;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(e.name) ? [path] : [];
  });
}

/** The node a reader sees as the function's declaration, and the name it goes by. */
function declarationOf(fn: ts.FunctionLikeDeclaration): { start: ts.Node; name: string } {
  const parent = fn.parent;
  if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isVariableDeclaration(parent)) {
    return { start: parent.parent.parent, name: parent.name.getText() };
  }
  if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isPropertyAssignment(parent)) {
    return { start: parent, name: parent.name.getText() };
  }
  return { start: fn, name: fn.name?.getText() ?? `(anonymous ${ts.SyntaxKind[fn.kind]})` };
}

function functionLengths(file: string, text: string): Measured[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const out: Measured[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const { start, name } = declarationOf(node);
      const first = line(start.getStart(source));
      out.push({ name, where: `${relative(ROOT, file)}:${first}`, lines: line(node.end) - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe(`functions in browser/ (at most ${LIMIT} lines each)`, () => {
  it('measures a known shape exactly (the counter can tell 3 lines from 4)', () => {
    const text = [
      '/** doc */',
      'function f() {',
      '  const g = () => {',
      '    return 1;',
      '  };',
      '  return g();',
      '}',
      '',
    ].join('\n');
    assert.deepEqual(
      functionLengths(join(BROWSER, 'x.ts'), text).map((m) => [m.name, m.lines, m.where]),
      [
        ['f', 6, 'browser/x.ts:2'],
        ['g', 3, 'browser/x.ts:3'],
      ],
    );
  });

  it(`has no function longer than ${LIMIT} lines`, () => {
    const all = sourceFiles(BROWSER).flatMap((file) => functionLengths(file, readFileSync(file, 'utf8')));
    assert.ok(all.length > 20, `only ${all.length} functions found: the walk missed files`);
    all.sort((a, b) => b.lines - a.lines);
    for (const m of all.slice(0, 10)) console.log(`${String(m.lines).padStart(3)} lines  ${m.name}  ${m.where}`);
    const long = all.filter((m) => m.lines > LIMIT).map((m) => `${m.name} (${m.where}): ${m.lines} lines`);
    assert.deepEqual(long, []);
  });
});
