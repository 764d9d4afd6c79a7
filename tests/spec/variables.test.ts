/**
 * One table of the environment variables (lib/server/variables.ts, issue 41): the README's
 * configuration table is that table, row for row, and docs/deploy.md's full table names every
 * variable in it; each variable of the table is read by the configuration. `--help` prints the
 * table (tests/server/help.test.ts), and env.ts reads only names of it (the typecheck).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { VARIABLES } from '../../lib/server/variables.ts';
import { ROOT } from '../../spec/build.ts';

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** The rows of the first table under `heading`: its cells, the header and rule left out. */
function tableAfter(text: string, heading: string): string[][] {
  const at = text.indexOf(heading);
  assert.ok(at >= 0, `${heading} is there`);
  const lines = text.slice(at).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows = lines.slice(first).filter((_, i, all) => all.slice(0, i + 1).every((l) => l.startsWith('|')));
  return rows.slice(2).map((row) =>
    row
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim()),
  );
}

describe('the environment variables, one table', () => {
  it("README's configuration table is lib/server/variables.ts's, row for row", () => {
    const rows = tableAfter(read('README.md'), '## Configuration');
    assert.deepEqual(
      rows.map(([name, meaning]) => ({ name, meaning })),
      VARIABLES.map((v) => ({ name: `\`${v.name}\``, meaning: v.meaning })),
    );
  });

  it("docs/deploy.md's configuration names every variable", () => {
    const section = read('docs/deploy.md').split('## Configuration')[1].split('\n## ')[0];
    for (const { name } of VARIABLES) assert.ok(section.includes(`\`${name}\``), name);
  });

  it('every variable of the table is read by the configuration', () => {
    const sources = ['lib/server/config.ts', 'lib/server/redis-config.ts'].map(read).join('\n');
    for (const { name } of VARIABLES) assert.ok(sources.includes(`'${name}'`), `${name} is read`);
  });
});
