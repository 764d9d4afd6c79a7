/**
 * `redocly lint` (the pinned devDependency, recommended rules plus spec/redocly.yaml) passes
 * spec/openapi.json with no error and no warning, and fails a broken copy. Offline: telemetry
 * and the update check are switched off.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules', '.bin', 'redocly');
const CONFIG = join(ROOT, 'spec', 'redocly.yaml');

function lint(file: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      REDOCLY,
      ['lint', file, '--config', CONFIG, '--format=stylish'],
      {
        cwd: ROOT,
        timeout: 180_000, // a kill bound only, for a loaded machine
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          CI: 'true',
          NO_COLOR: '1',
          FORCE_COLOR: '0',
        },
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, out: `${stdout}\n${stderr}` });
      },
    );
  });
}

describe('redocly lint spec/openapi.json', () => {
  it('exits 0 with no error and no warning (recommended rules, pinned version)', async () => {
    const { code, out } = await lint(join(ROOT, 'spec', 'openapi.json'));
    assert.equal(code, 0, out);
    assert.match(out, /Your API description is valid/, out);
    assert.doesNotMatch(out, /\b(error|warning)\s+[a-z0-9-]+\s/i, out);
    assert.doesNotMatch(out, /You have \d+ warnings?/, out);
  });

  it('fails a copy with an unresolved $ref and an operation without responses', async () => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'spec', 'openapi.json'), 'utf8'));
    doc.paths['/health'].get.responses['200'].content['application/json'].schema = {
      $ref: '#/components/schemas/Nope',
    };
    delete doc.paths['/openapi.json'].get.responses;
    const dir = mkdtempSync(join(tmpdir(), 'cg-redocly-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const { code, out } = await lint(file);
      assert.notEqual(code, 0, out);
      assert.match(out, /no-unresolved-refs/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
