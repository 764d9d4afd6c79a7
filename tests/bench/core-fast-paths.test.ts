/**
 * The fast paths the benchmark led to in lib/core, held to the slow paths they shortcut:
 * generateJson() must give, byte for byte, JSON.stringify(generate().body) with the same draws;
 * the fast acceptance in validateRequest must never accept what the compiled schema rejects.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { generate, generateJson } from '../../lib/core/index.ts';
import { FAST_PATH, surelyValid } from '../../lib/core/validate.ts';
import validateSchema from '../../lib/core/validator.generated.ts';
import { ERROR_CASES } from '../helpers/error-cases.ts';
import { seededRandom } from '../helpers/seeded.ts';

const separators = ['hyphen', 'underscore', 'dot', 'space'] as const;

function inputs(): unknown[] {
  const out: unknown[] = [{ mode: 'password' }, { mode: 'passphrase' }];
  for (const count of [1, 2, 20]) {
    for (const length of [8, 24, 128]) {
      for (let flags = 1; flags < 32; flags++) {
        out.push({
          mode: 'password',
          count,
          options: {
            length,
            includeLowercase: (flags & 1) !== 0,
            includeUppercase: (flags & 2) !== 0,
            includeNumbers: (flags & 4) !== 0,
            includeSymbols: (flags & 8) !== 0,
            avoidAmbiguous: (flags & 16) !== 0,
          },
        });
      }
    }
    out.push({ mode: 'password', count, options: { includeSymbols: true, excludedCharacters: '"\\{}[]é🙂\u0000' } });
    for (const wordCount of [4, 6, 8]) {
      for (const separator of separators) {
        for (const capitalize of [false, true]) {
          for (const addNumber of [false, true]) out.push({ mode: 'passphrase', count, options: { wordCount, separator, capitalize, addNumber } });
        }
      }
    }
  }
  return out;
}

describe('generateJson', () => {
  it('is JSON.stringify(generate().body) byte for byte, with the same draws, for every option set', () => {
    let seed = 1;
    for (const input of inputs()) {
      seed++;
      const expected = generate(input, seededRandom(seed));
      const actual = generateJson(input, seededRandom(seed));
      assert.equal(actual.status, expected.status, JSON.stringify(input));
      assert.equal(actual.json, JSON.stringify(expected.body), JSON.stringify(input));
    }
  });

  it('gives the same 400 text for every bad input of the shared table', () => {
    for (const bad of ERROR_CASES) {
      const expected = generate(bad.input);
      const actual = generateJson(bad.input);
      assert.equal(actual.status, 400);
      assert.equal(actual.json, JSON.stringify(expected.body), bad.name);
      assert.equal(actual.json, JSON.stringify(bad.expected), bad.name);
    }
  });

  it('refuses an option set that leaves no pool, as generate() does', () => {
    const input = { mode: 'password', options: { includeLowercase: false, includeUppercase: false, includeNumbers: false } };
    assert.deepEqual(generateJson(input), { status: 400, json: JSON.stringify(generate(input).body) });
  });
});

describe('fast acceptance in validateRequest', () => {
  it('is switched on for the current schema', () => {
    assert.equal(FAST_PATH, true);
  });

  it('accepts nothing the compiled schema rejects (random near-valid bodies)', () => {
    const values = [undefined, null, true, false, 0, -0, 1, 4, 8, 20, 21, 24, 128, 129, 1.5, NaN, '', 'x', 'hyphen', 'dot', 'tab', '"'.repeat(300), [], {}, { a: 1 }];
    const keys = ['mode', 'count', 'options', 'length', 'includeLowercase', 'includeUppercase', 'includeNumbers', 'includeSymbols', 'avoidAmbiguous', 'excludedCharacters', 'wordCount', 'separator', 'capitalize', 'addNumber', '__proto__', 'constructor'];
    fc.assert(
      fc.property(
        fc.constantFrom('password', 'passphrase', 'pin', undefined),
        fc.dictionary(fc.constantFrom(...keys), fc.constantFrom(...values), { maxKeys: 4 }),
        fc.dictionary(fc.constantFrom(...keys), fc.constantFrom(...values), { maxKeys: 5 }),
        fc.boolean(),
        (mode, top, options, withOptions) => {
          const body: Record<string, unknown> = { ...top, mode };
          if (withOptions) body.options = options;
          const snap = JSON.parse(JSON.stringify(body)) as unknown;
          if (surelyValid(snap)) assert.equal(validateSchema(snap), true, JSON.stringify(body));
          // And as a JavaScript caller hands it over, undefined values included.
          if (surelyValid(body)) assert.equal(validateSchema(body), true, JSON.stringify(body));
        },
      ),
      { numRuns: 20_000, seed: 6 },
    );
  });

  it('accepts the common requests (so they skip ajv), without options too', () => {
    for (const body of [
      { mode: 'password' },
      { mode: 'password', count: 1, options: undefined },
      { mode: 'passphrase', count: undefined, options: { wordCount: undefined, addNumber: true } },
      { mode: 'password', count: 20, options: { length: 128, includeSymbols: true, excludedCharacters: 'abc' } },
      { mode: 'passphrase', options: { wordCount: 8, separator: 'space', capitalize: true, addNumber: true } },
    ]) {
      assert.equal(surelyValid(body), true, JSON.stringify(body));
    }
  });
});
