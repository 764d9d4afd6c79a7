/**
 * The fast paths the benchmark led to in lib/core, held to the slow paths they shortcut:
 * generateJson() must give, byte for byte, JSON.stringify(generate().body) with the same draws.
 * (Validation has no fast path: tests/core/validate.test.ts holds the one generated validator to
 * the published schema.)
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generate, generateJson } from '../../lib/core/index.ts';
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
          for (const addNumber of [false, true])
            out.push({ mode: 'passphrase', count, options: { wordCount, separator, capitalize, addNumber } });
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
    const input = {
      mode: 'password',
      options: { includeLowercase: false, includeUppercase: false, includeNumbers: false },
    };
    assert.deepEqual(generateJson(input), { status: 400, json: JSON.stringify(generate(input).body) });
  });
});
