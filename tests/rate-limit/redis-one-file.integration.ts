/**
 * The one-file deployment: the server bundled into a single ES module with `redis` left
 * external finds the package only in a node_modules beside the file (Node resolves a bare
 * import from the importing file's directory upwards, never from the working directory).
 *
 * The test bundles the compiled store, its config parser and the in-process bucket (dist/, as
 * `npm run test:integration` builds it) with Rollup into one .mjs, copies it into an empty temp
 * directory (no node_modules on any parent path), and runs it with node from yet another
 * directory:
 * - without the package: the one-line start-up error, exit non-zero;
 * - with node_modules/redis beside the file (a link to this repository's installed copy, as
 *   `npm install redis@<version>` in that directory would provide it): it connects to a real
 *   redis-server and limits through it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { rollup } from '@rollup/wasm-node';
import { REDIS_PACKAGE_VERSION } from '../../lib/rate-limit/redis-store.ts';
import { command, redisMissing, startRedis, type RedisServer } from '../helpers/redis-server.ts';
import { ROOT } from '../helpers/server.ts';

const run = promisify(execFile);
const DIST = join(ROOT, 'dist', 'lib');
const built = existsSync(join(DIST, 'rate-limit', 'redis-store.js'));
function distMissing(): string | null {
  if (built) return null;
  const why = 'dist/lib/rate-limit/redis-store.js not built (npm run build:dist)';
  if (process.env.CI === 'true') throw new Error(`${why}. npm run test:integration builds it first; CI must not skip.`);
  return why;
}
const skip = distMissing() ?? redisMissing();

/** What the one file does at start when RATE_LIMIT_REDIS_URL is set. */
const MAIN = `
const config = parseRedisConfig(process.env, process.cwd());
const fallback = new RateLimiter({ perMinute: 5, sweepIntervalMs: 0 });
try {
  const store = await RedisRateLimitStore.open({ config, limit: 5, fallback, logger: { warn: (msg, fields) => console.log(JSON.stringify({ msg, ...fields })) } });
  const state = await store.consume('198.51.100.1');
  console.log(JSON.stringify({ shared: store.isShared, state }));
  await store.close();
  fallback.close();
} catch (error) {
  if (!(error instanceof RedisPackageMissingError)) throw error;
  process.stderr.write(error.message + '\\n');
  process.exit(1);
}
`;

let scratch: string;
let redis: RedisServer;
let file: string;

describe('one-file deployment: redis resolved beside the file', { skip: skip ?? false, timeout: 60_000 }, () => {
  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'cg-one-file-'));
    for (let dir = scratch; ; dir = dirname(dir)) {
      assert.ok(!existsSync(join(dir, 'node_modules')), `${dir}/node_modules would make the test meaningless`);
      if (dir === parse(dir).root) break;
    }
    const entry = join(scratch, 'entry.mjs');
    writeFileSync(
      entry,
      `import { RateLimiter } from ${JSON.stringify(join(DIST, 'rate-limit', 'token-bucket.js'))};\n` +
        `import { parseRedisConfig } from ${JSON.stringify(join(DIST, 'server', 'redis-config.js'))};\n` +
        `import { RedisRateLimitStore, RedisPackageMissingError } from ${JSON.stringify(join(DIST, 'rate-limit', 'redis-store.js'))};\n` +
        MAIN,
    );
    const bundle = await rollup({
      input: entry,
      external: (id) => id === 'redis' || id.startsWith('node:'),
      onwarn: (w) => assert.fail(`rollup: ${w.message}`),
    });
    const app = join(scratch, 'app');
    mkdirSync(app);
    file = join(app, 'server.mjs');
    await bundle.write({ file, format: 'es', inlineDynamicImports: true });
    await bundle.close();
    rmSync(entry);
    redis = await startRedis();
  });
  after(async () => {
    await redis?.close();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  const env = () => ({
    PATH: process.env.PATH ?? '',
    RATE_LIMIT_REDIS_URL: redis.url,
    RATE_LIMIT_REDIS_PREFIX: 'onefile:',
  });

  it('without the package: one line naming the fix, exit 1', async () => {
    const outcome = await run(process.execPath, [file], { cwd: tmpdir(), env: env() }).then(
      () => assert.fail('started without the redis package'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(outcome.code, 1);
    assert.equal(
      outcome.stderr,
      `RATE_LIMIT_REDIS_URL is set but the redis package is not installed: run npm install --save-exact redis@${REDIS_PACKAGE_VERSION} next to the server\n`,
    );
  });

  it('with node_modules/redis beside the file (run from another directory): limits through Redis', async () => {
    const modules = join(dirname(file), 'node_modules');
    mkdirSync(modules);
    symlinkSync(join(ROOT, 'node_modules', 'redis'), join(modules, 'redis'), 'dir');
    const { stdout } = await run(process.execPath, [file], { cwd: tmpdir(), env: env() });
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as { shared: boolean; state: { remaining: number } };
    assert.equal(result.shared, true, stdout);
    assert.equal(result.state.remaining, 4);
    assert.equal(await command(redis, 'EXISTS', 'onefile:{198.51.100.1}'), 1);
  });
});
