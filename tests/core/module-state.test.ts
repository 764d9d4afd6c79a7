/**
 * lib/core keeps no module-level mutable state (issue 29), except constant tables, built as the
 * module loads and frozen: no cache filled on first use (issue 42); nor does the request layer
 * above it (lib/request, which was part of the core until it was split off). Read from the source text: a top-level `let` or `var`, or a
 * top-level `const` bound to a fresh collection, buffer, object or array literal, or random
 * source that is not frozen, is state. Named exceptions below, each with its reason; both lists only shrink
 * (an entry that no longer matches anything fails).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');

const MUTABLE_BINDING = /^(export\s+)?(let|var)\s+([A-Za-z_$][\w$]*)/;
/** A const whose value is a fresh mutable thing; a primitive type annotation (a string built by
 * `.join`, say) is not one. */
const FRESH_VALUE =
  /^(export\s+)?const\s+([A-Za-z_$][\w$]*)(:\s*(?!\s|string\b|number\b|bigint\b|boolean\b)[^=]+)?\s*=\s*(new\s|\[|\{|Array\.from\(|createRandom\()/;

/** Allowed, with the reason. */
const ALLOWED: ReadonlyMap<string, string> = new Map([
  ['lib/core/rules/charset.ts NAMED_SETS', 'a constant table, read-only by its type (a Map cannot be frozen)'],
  ['lib/core/rules/parse.ts PROPERTY_NAMES', 'a constant table, read-only by its type (a Set cannot be frozen)'],
  [
    'lib/core/random.ts defaultRandom',
    "the CSPRNG batch generate() defaults to; moving it to the service side changes the statistics tests' imports, left until the engine rewrite lands",
  ],
]);

/** Files another change rewrites (issue 29, the exact engine: its plan memo moves out). */
const BEING_REWRITTEN: ReadonlySet<string> = new Set([]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.generated.ts') ? [relative(ROOT, path)] : [];
  });
}

/** `file name` of every top-level declaration that holds mutable state. */
export function stateOf(file: string, text: string): string[] {
  return text.split('\n').flatMap((line) => {
    const m = MUTABLE_BINDING.exec(line);
    if (m !== null) return [`${file} ${m[3]}`];
    const f = FRESH_VALUE.exec(line);
    return f !== null ? [`${file} ${f[2]}`] : [];
  });
}

const found = [...sourceFiles(join(ROOT, 'lib', 'core')), ...sourceFiles(join(ROOT, 'lib', 'request'))].flatMap((f) =>
  stateOf(f, readFileSync(join(ROOT, f), 'utf8')),
);

describe('module-level state in lib/core and lib/request', () => {
  it('is only frozen constant tables, or a named exception', () => {
    const state = found.filter((s) => !ALLOWED.has(s) && !BEING_REWRITTEN.has(s.split(' ')[0]));
    assert.deepEqual(state, []);
  });

  it('every exception is still needed (the lists only shrink)', () => {
    for (const name of ALLOWED.keys()) assert.ok(found.includes(name), `${name}: remove it from ALLOWED`);
    for (const file of BEING_REWRITTEN)
      assert.ok(
        found.some((s) => s.startsWith(`${file} `)),
        `${file} holds no module state now: remove it from BEING_REWRITTEN`,
      );
  });

  it('finds bindings, collections, literals and random sources, and leaves frozen tables and primitives', () => {
    const text = [
      'let next = 0;',
      'export const cache = new Map<string, number>();',
      'const TABLE: readonly number[] = [1, 2];',
      'const LIMITS = { a: 1 } as const;',
      'export const source = createRandom();',
      'const FROZEN = Object.freeze([1, 2]);',
      "export const JOINED: string = ['a', 'b'].join('');",
      'const N = 2 ** 32;',
      '  let inner = 1;',
    ].join('\n');
    assert.deepEqual(stateOf('f.ts', text), ['f.ts next', 'f.ts cache', 'f.ts TABLE', 'f.ts LIMITS', 'f.ts source']);
  });
});
