/**
 * What is running (lib/server/build-info.ts): from the sources, package.json's version and no
 * digest (said in words by --version); as the single file, the SHA-256 of the very file the
 * program runs from. The built file itself: tests/deploy/version.integration.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { buildOf, versionLine } from '../../lib/server/build-info.ts';
import { ROOT } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-build-info-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('build identity', () => {
  it('from the sources: the version of package.json, no digest, and --version says so', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
    const build = buildOf(pathToFileURL(join(ROOT, 'server.ts')).href, null);
    assert.deepEqual(build, { name: pkg.name, version: pkg.version, sha256: null });
    assert.equal(versionLine(build), `${pkg.name} ${pkg.version} (run from sources: no single file, no SHA-256)`);
  });

  it('as the single file: the SHA-256 of the file it runs from, read when asked', () => {
    const file = join(dir, 'bundle.mjs');
    writeFileSync(file, '// one file\n');
    const bundled = { name: 'credential-generator', version: '9.8.7' };
    const first = buildOf(pathToFileURL(file).href, bundled);
    assert.deepEqual(first, {
      name: 'credential-generator',
      version: '9.8.7',
      sha256: createHash('sha256').update('// one file\n').digest('hex'),
    });
    assert.equal(versionLine(first), `credential-generator 9.8.7 sha256 ${first.sha256}`);
    writeFileSync(file, '// changed after the build\n');
    assert.notEqual(buildOf(pathToFileURL(file).href, bundled).sha256, first.sha256, 'a changed file shows');
  });
});
