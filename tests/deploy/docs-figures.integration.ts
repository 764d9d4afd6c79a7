/**
 * The figures docs/deploy.md gives of the single file are the build's: its size (the sample of
 * the build's own line) within 5 % of the file `npm run test:integration` has just built, so the
 * page cannot drift far from the code without this failing.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../helpers/server.ts';

describe('docs/deploy.md', () => {
  it("states the single file's size and gzip size as built, within 5 %", () => {
    const doc = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');
    const line =
      /dist\/credential-generator\.mjs: (\d+) bytes \(([\d.]+) KiB, gzip ([\d.]+) KiB\), sha256 [0-9a-f]{4}/.exec(doc);
    assert.ok(line !== null, 'the build line is quoted');
    const [bytes, kib, gzipKib] = line.slice(1).map(Number);
    assert.equal(kib, Number((bytes / 1024).toFixed(1)), 'KiB of the same bytes');
    const file = readFileSync(join(ROOT, 'dist', 'credential-generator.mjs'));
    const near = (stated: number, actual: number, what: string): void => {
      assert.ok(Math.abs(stated - actual) <= 0.05 * actual, `${what}: docs say ${stated}, the build has ${actual}`);
    };
    near(bytes, statSync(join(ROOT, 'dist', 'credential-generator.mjs')).size, 'bytes');
    near(gzipKib, gzipSync(file, { level: 9 }).length / 1024, 'gzip KiB');
  });
});
