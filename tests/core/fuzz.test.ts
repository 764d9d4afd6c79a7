/**
 * Issue 7, fuzzing (in-process): 100,000 random and mutated request bodies through JSON.parse
 * and generate(): never a throw, only 200 or a 400 in the contract's shape, built-in
 * prototypes untouched. Seed printed; replay with FUZZ_SEED=<seed>; FUZZ_CORE_RUNS overrides
 * the count.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { runsFrom } from '../helpers/fuzz-bodies.ts';
import { fuzzCore } from '../helpers/fuzz-core.ts';

it('generate() survives 100,000 fuzzed bodies: 200 or a contract-shaped 400, prototypes untouched', () => {
  const runs = runsFrom('FUZZ_CORE_RUNS', 100_000);
  const r = fuzzCore(runs, 'core fuzz');
  process.stdout.write(
    `core fuzz: ${r.bodies} bodies (${r.parsed} parsed as JSON: ${r.ok} x 200, ${r.rejected} x 400) in ${r.ms} ms\n`,
  );
  assert.equal(r.bodies, runs);
  assert.ok(r.ok > runs / 20, 'a fair share of valid requests');
  assert.ok(r.rejected > runs / 4, 'a fair share of invalid ones');
});
