/**
 * Fuzzing at soak size: 300,000 bodies through generate() in-process, 100,000 passwordrules
 * strings (tests/core/rules/fuzz.test.ts run again at five times its npm test count), and
 * 20,000 fuzzed and malformed requests over raw sockets to the real server (counts overridable
 * with FUZZ_CORE_RUNS / RULES_FUZZ_SOAK_RUNS / FUZZ_HTTP_CASES; seed printed, FUZZ_SEED
 * replays). Same assertions as tests/request/fuzz.test.ts, tests/core/rules/fuzz.test.ts and
 * tests/e2e/fuzz-http.integration.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'node:test';
import { runsFrom } from '../helpers/fuzz-bodies.ts';
import { fuzzCore } from '../helpers/fuzz-core.ts';
import { Seen } from '../helpers/hardening-kit.ts';
import { fuzzServer } from '../helpers/http-fuzz.ts';
import { randomApiKey, ROOT, startServer } from '../helpers/server.ts';

it('generate() survives 300,000 fuzzed bodies', () => {
  const runs = runsFrom('FUZZ_CORE_RUNS', 300_000);
  const r = fuzzCore(runs, 'core fuzz (soak)');
  process.stdout.write(
    `core fuzz (soak): ${r.bodies} bodies (${r.parsed} parsed as JSON: ${r.ok} x 200, ${r.rejected} x 400) in ${r.ms} ms\n`,
  );
  assert.equal(r.bodies, runs);
});

it('100,000 fuzzed passwordrules strings: the rules fuzz at soak size', () => {
  const runs = runsFrom('RULES_FUZZ_SOAK_RUNS', 100_000);
  // NODE_TEST_CONTEXT tells a node --test that it runs inside another one, and it then skips
  // its files and exits 0: the child must not inherit it, and its report must show tests ran.
  const env: NodeJS.ProcessEnv = { ...process.env, RULES_FUZZ_RUNS: String(runs) };
  delete env.NODE_TEST_CONTEXT;
  const started = Date.now();
  // TypeScript loaded as this run loads it (tests/helpers/typescript.mjs), so the child's
  // coverage of the rules merges with the rest.
  const loader = join(ROOT, 'tests', 'helpers', 'typescript.mjs');
  const run = spawnSync(
    process.execPath,
    ['--import', loader, '--test', '--test-reporter=tap', join(ROOT, 'tests', 'core', 'rules', 'fuzz.test.ts')],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 600_000 },
  );
  process.stdout.write(`rules fuzz (soak, ${runs} strings): exit ${run.status} in ${Date.now() - started} ms\n`);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^# pass [1-9]/m, 'the fuzz file ran its tests');
  assert.match(run.stdout, /^# fail 0$/m);
  assert.ok(run.stdout.includes(`ok 1 - ${runs.toLocaleString('en')} fuzzed rule strings`), 'at the size asked for');
});

it('the server survives 20,000 fuzzed and malformed requests over raw sockets', async () => {
  const key = randomApiKey();
  const seen = new Seen();
  seen.add(key);
  const count = runsFrom('FUZZ_HTTP_CASES', 20_000);
  const server = await startServer({ apiKey: key, rateLimitPerMinute: 1_000_000 });
  let stats;
  try {
    stats = await fuzzServer(server, key, count, seen, { label: 'socket fuzz (soak)', batch: 2_000, lanes: 24 });
  } finally {
    assert.equal((await server.stop()).code, 0, 'clean exit after the fuzz');
  }
  process.stdout.write(`socket fuzz (soak): ${JSON.stringify(stats)}\n`);
  assert.equal(stats.cases, count);
  assert.equal(Object.keys(stats.byStatus).filter((s) => Number(s) >= 500).length, 0);
  const scanned = seen.assertNowhere([server.output()]);
  process.stdout.write(`socket fuzz (soak) leak check: ${JSON.stringify(scanned)}\n`);
});
