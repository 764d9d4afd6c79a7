/**
 * The import graph of lib/: no cycle; imports run downwards only between folders; a `_`-prefixed
 * module is internal to its folder; and the core has one public face: outside lib/core a module
 * imports the core only through an entry point (lib/core/index.ts, or a tier's index.ts).
 * Imports are read from the source text (static `import`/`export ... from` and `import()`),
 * type-only ones included: a reviewer follows those too. And lib/core outside the pattern tier
 * stays within issue 38's size rule, 2,400 non-blank lines (comments count, blank lines do not).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');

/** Each folder's floor: a module may import its own folder or a folder on a lower floor. The
 * request layer (lib/request: validation, policies, the entropy floor, generate()) sits on the
 * generator core (lib/core: generation only) and under everything that serves a request. */
const FLOORS: Readonly<Record<string, number>> = Object.freeze({
  generated: 0,
  core: 1,
  log: 1,
  files: 1,
  metrics: 1,
  request: 2,
  service: 3,
  keys: 3,
  policies: 3,
  'rate-limit': 3,
  http: 4,
  server: 5,
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

/** The relative imports of a module, as paths from the root. */
export function importsOf(file: string, text: string): string[] {
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms),
    ...text.matchAll(/^\s*import\s+'(\.[^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ].map((m) => m[1]);
  return [...new Set(specs.map((s) => normalize(join(dirname(file), s))))];
}

/** A cycle in the graph, as its modules in order, or null. */
export function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle !== null) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle !== null) return cycle;
  }
  return null;
}

const folderOf = (file: string): string => file.split('/')[1];

const graph = new Map<string, string[]>(
  sourceFiles(join(ROOT, 'lib')).map((f) => [f, importsOf(f, readFileSync(join(ROOT, f), 'utf8'))]),
);

describe('the import graph of lib/', () => {
  it('reads the imports (a module that imports nothing is rare; the core entry imports its parts)', () => {
    assert.ok(graph.size > 50, `${graph.size} modules`);
    assert.ok(graph.get('lib/core/index.ts')!.includes('lib/core/password.ts'));
    assert.ok(graph.get('lib/request/index.ts')!.includes('lib/request/generate.ts'));
    for (const [file, imports] of graph)
      for (const target of imports) assert.ok(graph.has(target), `${file} imports ${target}, which is not there`);
  });

  it('has no cycle', () => {
    assert.equal(findCycle(graph)?.join(' -> ') ?? null, null);
  });

  it('imports run downwards only between folders', () => {
    const upwards = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((t) => folderOf(t) !== folderOf(file))
        .filter((t) => !(FLOORS[folderOf(t)] < FLOORS[folderOf(file)]))
        .map((t) => `${file} -> ${t}`),
    );
    assert.deepEqual(upwards, []);
    assert.deepEqual(
      [...graph.keys()].map(folderOf).filter((f) => FLOORS[f] === undefined),
      [],
      'every folder has a floor',
    );
  });

  it('a module whose name starts with _ is imported from its own folder only', () => {
    const outside = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((t) => t.split('/').at(-1)!.startsWith('_') && dirname(t) !== dirname(file))
        .map((t) => `${file} -> ${t}`),
    );
    assert.deepEqual(outside, []);
  });

  it('the core has one public face: outside lib/core, only its entry points are imported', () => {
    const bypassing = [...graph].flatMap(([file, imports]) =>
      folderOf(file) === 'core'
        ? []
        : imports.filter((t) => folderOf(t) === 'core' && !t.endsWith('/index.ts')).map((t) => `${file} -> ${t}`),
    );
    assert.deepEqual(bypassing, []);
    const lines = [...graph.keys()]
      .filter((f) => folderOf(f) === 'core')
      .reduce(
        (n, f) =>
          n +
          readFileSync(join(ROOT, f), 'utf8')
            .split('\n')
            .filter((l) => l.trim() !== '').length,
        0,
      );
    console.log(
      `lib/core: ${[...graph.keys()].filter((f) => folderOf(f) === 'core').length} modules, ${lines} non-blank lines`,
    );
  });

  it('lib/core outside the pattern tier holds at most 2,400 non-blank lines (issue 38: the audit path in one sitting)', () => {
    const files = sourceFiles(join(ROOT, 'lib', 'core')).filter((f) => !f.startsWith(join('lib', 'core', 'pattern')));
    const lines = files.reduce(
      (n, f) =>
        n +
        readFileSync(join(ROOT, f), 'utf8')
          .split('\n')
          .filter((l) => l.trim() !== '').length,
      0,
    );
    assert.ok(lines <= 2400, `lib/core without pattern/: ${lines} non-blank lines, over 2,400`);
  });

  it('the checker finds a cycle, and reads every form of import', () => {
    assert.deepEqual(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
        ]),
      ),
      ['a', 'b', 'c', 'a'],
    );
    assert.equal(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
      null,
    );
    const text = [
      "import { x } from './x.ts';",
      "import type {\n  Y,\n} from '../y/y.ts';",
      "export { z } from './z.ts';",
      "import './side.ts';",
      "const m = await import('./lazy.ts');",
      "import { readFileSync } from 'node:fs';",
    ].join('\n');
    assert.deepEqual(importsOf('lib/core/a.ts', text).sort(), [
      'lib/core/lazy.ts',
      'lib/core/side.ts',
      'lib/core/x.ts',
      'lib/core/z.ts',
      'lib/y/y.ts',
    ]);
  });
});
