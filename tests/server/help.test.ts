/**
 * `--help` (issue 41): the commands, then every environment variable with its meaning in one
 * line, from the one table (lib/server/variables.ts). The program as its own process.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { VARIABLES } from '../../lib/server/variables.ts';
import { ROOT } from '../helpers/server.ts';

describe('server.ts --help', () => {
  it('lists the commands and every environment variable with its meaning', () => {
    const r = spawnSync(process.execPath, ['--import', './tests/helpers/typescript.mjs', 'server.ts', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, npm_lifecycle_event: '' },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^usage: /);
    assert.match(r.stdout, /--version/);
    const lines = r.stdout.split('\n');
    for (const { name, meaning } of VARIABLES) {
      assert.ok(
        lines.some((l) => new RegExp(`^  ${name} +${meaning.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`).test(l)),
        `${name}: ${meaning}`,
      );
    }
    assert.ok(
      lines.every((l) => l.length <= 120),
      'no line wider than 120 columns',
    );
  });
});
