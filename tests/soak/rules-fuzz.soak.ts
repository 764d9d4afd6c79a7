/**
 * The passwordrules fuzz at soak size: tests/core/rules/fuzz.test.ts run again in a child at
 * 100,000 strings, twenty times its npm test count (overridable with RULES_FUZZ_SOAK_RUNS; seed
 * printed, FUZZ_SEED replays). A file of its own so that the integration run gives it a process
 * and a slot of its own (tests/helpers/test-files.mjs) instead of running it after the other
 * long fuzzer (fuzz.soak.ts) in one.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'node:test';
import { runsFrom } from '../helpers/fuzz-bodies.ts';
import { ROOT } from '../helpers/server.ts';

it('100,000 fuzzed passwordrules strings: the rules fuzz at soak size', () => {
  const runs = runsFrom('RULES_FUZZ_SOAK_RUNS', 100_000);
  // NODE_TEST_CONTEXT tells a node --test that it runs inside another one, and it then skips
  // its files and exits 0: the child must not inherit it, and its report must show tests ran.
  const env: NodeJS.ProcessEnv = { ...process.env, RULES_FUZZ_RUNS: String(runs) };
  delete env.NODE_TEST_CONTEXT;
  const started = Date.now();
  // TypeScript loaded as this run loads it (tests/helpers/typescript.mjs).
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
