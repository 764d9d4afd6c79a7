/**
 * What is running, as an operator checks it: the built single file, copied alone into an empty
 * directory, reports the SHA-256 the build wrote beside it (dist/credential-generator.mjs.sha256)
 * in `--version`, in its start line, in GET /health and in the build-info metric; and it is the
 * file's own digest, computed when it runs: a copy changed after the build reports another.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseExposition, sample } from '../helpers/exposition.ts';
import { request } from '../helpers/http.ts';
import { randomApiKey, ROOT, startServer } from '../helpers/server.ts';

const BUNDLE = join(ROOT, 'dist', 'credential-generator.mjs');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let dir: string;
let file: string;
let digest: string;

before(() => {
  assert.ok(existsSync(BUNDLE), `${BUNDLE} is built by npm run build:dist, which test:integration runs first`);
  dir = mkdtempSync(join(tmpdir(), 'cg-version-'));
  file = join(dir, 'credential-generator.mjs');
  copyFileSync(BUNDLE, file);
  digest = readFileSync(`${BUNDLE}.sha256`, 'utf8').split(/\s+/)[0];
  assert.match(digest, /^[0-9a-f]{64}$/);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const versionOf = (program: string[]): string =>
  spawnSync(process.execPath, [...program, '--version'], {
    encoding: 'utf8',
    cwd: tmpdir(),
    env: { PATH: process.env.PATH },
  }).stdout;

describe('version and SHA-256 of the single file', () => {
  it('--version, the start line, /health and the build-info metric all give the digest the build wrote', async () => {
    assert.equal(versionOf([file]), `credential-generator ${VERSION} sha256 ${digest}\n`);
    const server = await startServer({
      command: [process.execPath, file],
      cwd: dir,
      apiKey: randomApiKey(),
      env: { METRICS_PORT: '0' },
    });
    try {
      const start = server
        .output()
        .split('\n')
        .map((line) => (line.startsWith('{') ? (JSON.parse(line) as Record<string, unknown>) : {}))
        .find((line) => typeof line.msg === 'string' && line.msg.startsWith('listening on'))!;
      assert.deepEqual(
        [start.msg, start.version, start.build, start.sha256],
        [`listening on ${server.url}`, VERSION, 'single file', digest],
      );
      const health = await request(server.url, '/health');
      assert.deepEqual(health.json, { status: 'ok', version: VERSION, sha256: digest });
      const metrics = parseExposition((await request(server.metricsUrl!, '/metrics')).text);
      const info = 'credential_generator_build_info';
      assert.equal(sample(metrics, info, { version: VERSION, sha256: digest, nodejs_version: process.version }), 1);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it('is the digest of the file as it is now, not a figure carried from the build', () => {
    const changed = join(dir, 'changed.mjs');
    copyFileSync(file, changed);
    appendFileSync(changed, '\n// edited after the build\n');
    const line = versionOf([changed]);
    assert.match(line, new RegExp(`^credential-generator ${VERSION.replace(/\./g, '\\.')} sha256 [0-9a-f]{64}\\n$`));
    assert.ok(!line.includes(digest));
  });

  it('from the sources it says there is no single file to hash', async () => {
    const tsx = import.meta.resolve('tsx');
    assert.equal(
      versionOf(['--import', tsx, join(ROOT, 'server.ts')]),
      `credential-generator ${VERSION} (run from sources: no single file, no SHA-256)\n`,
    );
    const server = await startServer({ apiKey: randomApiKey() });
    try {
      assert.match(
        server.output(),
        new RegExp(
          `"msg":"listening on ${server.url}","url":"[^"]+","version":"${VERSION}","build":"sources","sha256":null`,
        ),
      );
    } finally {
      await server.stop();
    }
  });
});
