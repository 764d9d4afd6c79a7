/**
 * Fuzzing at soak size: 300,000 bodies through generate() in-process and 20,000 fuzzed and
 * malformed requests over raw sockets to the real server (counts overridable with
 * FUZZ_CORE_RUNS / FUZZ_HTTP_CASES; seed printed, FUZZ_SEED replays). Same assertions as
 * tests/request/fuzz.test.ts and tests/e2e/fuzz-http.integration.ts. The passwordrules fuzz at
 * soak size is a file of its own (rules-fuzz.soak.ts), so that the integration run gives each
 * long fuzzer a process and a slot of its own (tests/helpers/test-files.mjs) instead of running
 * them one after the other in one.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { runsFrom } from '../helpers/fuzz-bodies.ts';
import { fuzzCore } from '../helpers/fuzz-core.ts';
import { fuzzRealServer } from '../helpers/http-fuzz.ts';

it('generate() survives 300,000 fuzzed bodies', () => {
  const runs = runsFrom('FUZZ_CORE_RUNS', 300_000);
  const r = fuzzCore(runs, 'core fuzz (soak)');
  process.stdout.write(
    `core fuzz (soak): ${r.bodies} bodies (${r.parsed} parsed as JSON: ${r.ok} x 200, ${r.rejected} x 400) in ${r.ms} ms\n`,
  );
  assert.equal(r.bodies, runs);
});

it('the server survives 20,000 fuzzed and malformed requests over raw sockets', () =>
  fuzzRealServer({ label: 'socket fuzz (soak)', cases: 20_000, batch: 2_000, lanes: 24 }));
