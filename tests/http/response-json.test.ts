/**
 * The reply text of POST /generate (lib/http/response-json.ts) must be JSON.stringify of the
 * generate() body, byte for byte, for every option set and every value (the fuzz test,
 * tests/request/fuzz.test.ts, checks it on 100,000 more bodies).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generate, type GenerateOutcome, type GenerateResponse } from '../../lib/request/index.ts';
import { outcomeJson } from '../../lib/http/response-json.ts';
import { ERROR_CASES } from '../helpers/error-cases.ts';
import { seededRandom } from '../helpers/seeded.ts';

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
      for (const separator of ['hyphen', 'underscore', 'dot', 'space', 'digit', 'symbol']) {
        for (const capitalize of [false, true]) {
          for (const addNumber of [false, true])
            out.push({ mode: 'passphrase', count, options: { wordCount, separator, capitalize, addNumber } });
        }
      }
    }
    // Rules whose passwords hold what JSON must escape: quote, backslash, and both mixed in.
    for (const passwordRules of [
      'required: ["]; required: [\\]; allowed: [ab]',
      'required: upper; required: lower; required: digit; required: special',
      'required: [a]; required: [b]; required: [c]; allowed: ascii-printable',
    ])
      out.push({ mode: 'password', count, options: { length: 12, passwordRules } });
  }
  return out;
}

describe('outcomeJson', () => {
  it('is JSON.stringify(body) byte for byte for every option set, also for values holding " and \\', () => {
    let seed = 1;
    let escaped = 0;
    let ok = 0;
    for (const input of inputs()) {
      const outcome = generate(input, seededRandom(++seed));
      if (outcome.status === 200) ok++;
      const json = outcomeJson(outcome);
      assert.equal(json, JSON.stringify(outcome.body), JSON.stringify(input));
      assert.equal(outcomeJson(outcome), json, 'the same text again (the cached entropy and metadata)');
      if (json.includes('\\"') || json.includes('\\\\')) escaped++;
    }
    assert.ok(escaped >= 3, 'some values needed escaping');
    assert.ok(ok > 450, `most option sets make credentials (${ok})`);
  });

  it('gives the 400 text of every bad input of the shared table', () => {
    for (const bad of ERROR_CASES) {
      const outcome = generate(bad.input);
      assert.equal(outcome.status, 400);
      assert.equal(outcomeJson(outcome), JSON.stringify(bad.expected), bad.name);
    }
  });

  it('escapes what JSON.stringify escapes: control characters and lone surrogates too', () => {
    const real = generate({ mode: 'password' });
    assert.equal(real.status, 200);
    if (real.status !== 200) return;
    for (const value of ['a"b', 'a\\b', 'tab\there', 'nul\u0000', 'lone \ud800', 'pair 🙂', 'line\u2028sep', 'plain']) {
      const body: GenerateResponse = { ...real.body, value, results: [{ ...real.body.results[0], value }] };
      const outcome: GenerateOutcome = { status: 200, body };
      assert.equal(outcomeJson(outcome), JSON.stringify(body), JSON.stringify(value));
    }
  });

  it('stringifies a body whose credentials do not share its entropy and metadata objects as a whole', () => {
    const real = generate({ mode: 'password', count: 2 });
    assert.equal(real.status, 200);
    if (real.status !== 200) return;
    const results = [real.body.results[0], { ...real.body.results[1], entropy: { ...real.body.entropy, bits: 1 } }];
    const body = { ...real.body, results };
    assert.equal(outcomeJson({ status: 200, body }), JSON.stringify(body));
    const other = { ...real.body, entropy: { ...real.body.entropy, bits: 2 } };
    const twice = { ...other, results: other.results.map((r) => ({ ...r, entropy: other.entropy })) };
    assert.equal(outcomeJson({ status: 200, body: twice }), JSON.stringify(twice), 'the same metadata, other entropy');
  });
});
