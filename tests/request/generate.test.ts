import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { generate } from '../../lib/request/generate.ts';
import { responseSchema, errorSchema } from '../../lib/generated/schema.generated.ts';
import { ERROR_CASES } from '../helpers/error-cases.ts';

const ajv = new Ajv2020({ strict: true, allErrors: true });
const validResponse = ajv.compile(responseSchema);
const validError = ajv.compile(errorSchema);

describe('generate: response shape (docs/api.md, Endpoints)', () => {
  const inputs = [
    { mode: 'password' },
    { mode: 'password', count: 20, options: { length: 128, includeSymbols: true } },
    { mode: 'password', count: 5, options: { length: 8, avoidAmbiguous: true } },
    { mode: 'passphrase' },
    { mode: 'passphrase', count: 20, options: { wordCount: 8, capitalize: true, addNumber: true, separator: 'space' } },
  ];
  for (const input of inputs) {
    it(`matches the response schema and mirrors results[0] for ${JSON.stringify(input)}`, () => {
      const r = generate(input);
      assert.equal(r.status, 200);
      if (r.status !== 200) return;
      assert.ok(validResponse(r.body), JSON.stringify(validResponse.errors));
      const n = input.count ?? 1;
      assert.equal(r.body.count, n);
      assert.equal(r.body.results.length, n);
      assert.equal(r.body.mode, input.mode);
      assert.equal(r.body.value, r.body.results[0].value);
      assert.deepEqual(r.body.entropy, r.body.results[0].entropy);
      assert.deepEqual(r.body.metadata, r.body.results[0].metadata);
      assert.deepEqual(Object.keys(r.body), ['mode', 'count', 'value', 'entropy', 'metadata', 'results']);
      assert.equal(new Set(r.body.results.map((x) => x.value)).size, n, 'batch values are distinct');
    });
  }

  it('returns error bodies that match the error schema', () => {
    for (const c of ERROR_CASES) {
      const r = generate(c.input);
      assert.ok(validError(r.body), c.name);
    }
  });

  it('never includes a submitted value in an error message', () => {
    const marker = 'Zq9marker';
    for (const input of [
      { mode: marker },
      { mode: 'password', count: marker },
      { mode: 'password', options: { length: marker } },
      { mode: 'password', options: { excludedCharacters: marker.repeat(40) } },
      { mode: 'passphrase', options: { separator: marker } },
    ]) {
      assert.ok(!JSON.stringify(generate(input).body).includes(marker));
    }
  });
});
