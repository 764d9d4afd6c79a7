/**
 * The integration run's layout (tests/helpers/integration-run.mjs, the lists in
 * tests/helpers/test-files.mjs; docs/test-timing.md): every integration and soak file runs in
 * exactly one of its three groups, and the files that time a deadline the server keeps are in
 * the last step, which runs with nothing else of the run beside it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');

const group = (name: string): string[] =>
  execFileSync(process.execPath, ['tests/helpers/test-files.mjs', name], { cwd: ROOT, encoding: 'utf8' })
    .trim()
    .split('\n');

/** What the shell globs tests/*\/*.integration.ts and tests/soak/*.soak.ts name. */
function globbed(): string[] {
  const found: string[] = [];
  for (const dir of readdirSync(join(ROOT, 'tests'), { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const name of readdirSync(join(ROOT, 'tests', dir.name))) {
      if (name.endsWith('.integration.ts') || (dir.name === 'soak' && name.endsWith('.soak.ts')))
        found.push(`tests/${dir.name}/${name}`);
    }
  }
  return found.sort();
}

it('runs every integration and soak file once, and the deadline files in the last step', () => {
  const [main, waiting, deadlines] = ['integration', 'integration-waiting', 'integration-deadlines'].map(group);
  const all = [...main, ...waiting, ...deadlines];
  assert.deepEqual([...all].sort(), globbed(), 'each file in exactly one group');
  for (const file of [
    'tests/e2e/stalled-readers.integration.ts',
    'tests/e2e/connection-slots.integration.ts',
    'tests/e2e/connection-caps.integration.ts',
    'tests/server/tls.integration.ts',
    'tests/soak/slow-clients.soak.ts',
  ])
    assert.ok(deadlines.includes(file), `${file} runs in the deadline step`);
  assert.equal(main[0], 'tests/browser/home.integration.ts', 'the main lane starts with its longest file');
  assert.equal(waiting[0], 'tests/soak/memory.soak.ts', 'the waiting lane starts with its longest file');
});

it('marks no test as todo, whose failures node --test would let pass', () => {
  // Every file a run starts, as tests/helpers/test-files.mjs lists them for npm test and the integration run.
  const groups = ['covered', 'sampling', 'static', 'integration', 'integration-waiting', 'integration-deadlines'];
  const marked = groups
    .flatMap(group)
    .filter((f) => /\btodo\s*:|\.todo\s*\(/.test(readFileSync(join(ROOT, f), 'utf8')));
  assert.deepEqual(marked, []);
});
