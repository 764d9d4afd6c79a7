/**
 * The shipped Postman collection runs green with newman (the pinned devDependency) against a
 * freshly started real server, using the shipped environment file with the key passed on the
 * command line, as CI does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';

const NEWMAN = join(ROOT, 'node_modules', '.bin', 'newman');
const COLLECTION = join(ROOT, 'spec', 'credential-generator.postman_collection.json');
const ENVIRONMENT = join(ROOT, 'spec', 'credential-generator.postman_environment.json');

interface NewmanReport {
  run: {
    stats: Record<'requests' | 'assertions' | 'testScripts' | 'prerequestScripts', { total: number; failed: number }>;
    failures: { error: { name: string; message: string; test?: string }; source?: { name?: string } }[];
    executions: { item: { name: string }; response?: { code: number } }[];
  };
}

function newman(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    // A kill bound only (newman starts in a few seconds idle, far slower on a loaded machine).
    execFile(
      NEWMAN,
      args,
      // Without the suite's NODE_OPTIONS: --throw-deprecation holds this project's code, and
      // newman 6.2.2 (the latest) reads fs.F_OK, which Node 24 deprecates at run time (DEP0176).
      { cwd: ROOT, timeout: 180_000, env: { ...process.env, NODE_OPTIONS: '', NO_COLOR: '1' } },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}\n${stderr}` });
      },
    );
  });
}

describe('newman run spec/credential-generator.postman_collection.json', () => {
  const apiKey = randomApiKey();
  let server: RunningServer;
  let dir: string;

  before(async () => {
    server = await startServer({ apiKey, logLevel: 'error' });
    dir = mkdtempSync(join(tmpdir(), 'cg-newman-'));
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const run = async (key: string, name: string) => {
    const report = join(dir, `${name}.json`);
    const { code, out } = await newman([
      'run',
      COLLECTION,
      '--environment',
      ENVIRONMENT,
      '--env-var',
      `baseUrl=${server.url}`,
      '--env-var',
      `apiKey=${key}`,
      '--reporters',
      'cli,json',
      '--reporter-json-export',
      report,
      '--color',
      'off',
      '--disable-unicode',
      '--timeout-request',
      '30000', // a failure bound: the server answers in milliseconds
    ]);
    return { code, out, report: JSON.parse(readFileSync(report, 'utf8')) as NewmanReport };
  };

  it('passes every assertion of every request, with the key given as --env-var', async () => {
    const { code, out, report } = await run(apiKey, 'good');
    const failures = report.run.failures.map(
      (f) => `${f.source?.name}: ${f.error.test ?? f.error.name}: ${f.error.message}`,
    );
    assert.deepEqual(failures, [], out);
    assert.equal(code, 0, out);
    const { requests, assertions, testScripts } = report.run.stats;
    assert.equal(requests.total, 18);
    assert.equal(requests.failed, 0);
    assert.equal(testScripts.failed, 0);
    assert.equal(assertions.failed, 0);
    assert.ok(assertions.total >= 50, `only ${assertions.total} assertions ran`);
    assert.deepEqual(
      report.run.executions.map((e) => e.response?.code),
      [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 400, 400, 401, 400, 200, 400, 200, 200],
    );
  });

  it('fails (exit 1) when the key is wrong, so the run can fail', async () => {
    const { code, report } = await run('wrong-key-0000000000000000', 'bad');
    assert.equal(code, 1);
    assert.ok(report.run.stats.assertions.failed >= 3);
  });
});
