/**
 * The in-process fuzz of the core: request bodies (tests/helpers/fuzz-bodies.ts) through
 * JSON.parse and `generate()` (what `window.ServiceAPI` and the server call), its body as the
 * server writes it (`outcomeJson`, which must be JSON.stringify of the body byte for byte); and
 * every parsed body through
 * the generated validator and a 2020-12 compilation of the published schema, which must agree
 * (verdict and first error).
 * Used by tests/request/fuzz.test.ts (npm test) and tests/soak/fuzz.soak.ts.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { generate } from '../../lib/request/index.ts';
import { outcomeJson } from '../../lib/http/response-json.ts';
import validateSchema from '../../lib/generated/validator.generated.ts';
import { ROOT, VALIDATOR_OPTIONS } from '../../spec/build.ts';
import { bodyText, fuzzSeed, prototypeSnapshot } from './fuzz-bodies.ts';

export interface CoreFuzzResult {
  bodies: number;
  parsed: number;
  ok: number;
  rejected: number;
  ms: number;
  seed: number;
}

/** Checks one outcome of generate(): 200 with `count` results, or a 400 in the contract's shape. */
export function checkOutcome(outcome: { status: number; body: unknown }, input: unknown): void {
  if (outcome.status === 400) {
    const body = outcome.body as Record<string, unknown>;
    const keys = Object.keys(body);
    assert.ok(
      keys.every((k) => k === 'error' || k === 'status' || k === 'field'),
      `extra keys in error body: ${keys.join(',')}`,
    );
    assert.equal(typeof body.error, 'string');
    assert.ok((body.error as string).length > 0 && (body.error as string).length <= 200);
    assert.equal(body.status, 400);
    if ('field' in body) assert.equal(typeof body.field, 'string');
    assert.equal(Object.getPrototypeOf(body), Object.prototype);
    return;
  }
  assert.equal(outcome.status, 200, `status ${outcome.status} for ${JSON.stringify(input)?.slice(0, 200)}`);
  const body = outcome.body as { count: number; value: string; results: { value: string }[] };
  assert.equal(body.results.length, body.count);
  assert.equal(body.value, body.results[0].value);
  for (const r of body.results) assert.ok(typeof r.value === 'string' && r.value.length >= 8);
}

type Validator = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; schemaPath: string; keyword: string; params: unknown }[] | null;
};

/** The generated validator and a 2020-12 compilation of the published schema agree on `body`. */
function checkValidators(generated: Validator, reference: Validator, body: unknown): void {
  const expected = reference(body);
  // (The message is built only on failure: a deeply nested body does not survive JSON.stringify.)
  if (generated(body) !== expected) assert.fail(`validators disagree (reference: ${String(expected)})`);
  if (!expected) {
    const [g, r] = [generated.errors?.[0], reference.errors?.[0]];
    assert.deepEqual(
      [g?.instancePath, g?.schemaPath, g?.keyword, g?.params],
      [r?.instancePath, r?.schemaPath, r?.keyword, r?.params],
    );
  }
}

export function fuzzCore(runs: number, label: string): CoreFuzzResult {
  const published = JSON.parse(readFileSync(join(ROOT, 'spec/generate-request.schema.json'), 'utf8')) as object;
  const reference = new Ajv2020(VALIDATOR_OPTIONS).compile(published) as Validator;
  const generated = validateSchema as unknown as Validator;
  const seed = fuzzSeed(label);
  const before = prototypeSnapshot();
  const result: CoreFuzzResult = { bodies: 0, parsed: 0, ok: 0, rejected: 0, ms: 0, seed };
  const started = performance.now();
  fc.assert(
    fc.property(bodyText, (text) => {
      result.bodies++;
      // The raw text itself is also an input (ServiceAPI.generate may be handed anything).
      const raw = generate(text);
      checkOutcome(raw, text);
      let input: unknown;
      try {
        input = JSON.parse(text);
      } catch {
        return;
      }
      result.parsed++;
      checkValidators(generated, reference, input);
      let outcome: ReturnType<typeof generate>;
      try {
        outcome = generate(input);
      } catch (error) {
        throw new Error(`generate threw for ${text.slice(0, 200)}: ${String(error)}`, { cause: error });
      }
      checkOutcome(outcome, input);
      // The server's reply text must be JSON.stringify of the body, byte for byte, and never
      // throw either.
      assert.equal(outcomeJson(outcome), JSON.stringify(outcome.body));
      if (outcome.status === 200) result.ok++;
      else result.rejected++;
      // Cheap per-run canary; the full snapshot is compared at the end.
      if (({} as Record<string, unknown>).polluted !== undefined || ({} as Record<string, unknown>).mode !== undefined)
        throw new Error('Object.prototype polluted');
    }),
    { seed, numRuns: runs, endOnFailure: true },
  );
  result.ms = Math.round(performance.now() - started);
  assert.equal(prototypeSnapshot(), before, 'built-in prototypes unchanged');
  return result;
}
