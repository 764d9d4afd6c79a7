/**
 * The contract's numbers (tests/helpers/contract-numbers.ts, the one place they are written
 * out) against every source that states them: the request schema and lib/core's constants
 * (which everything else derives from), `describe()` (GET /generate and the page), and
 * spec/openapi.json. A constant changed by mistake fails here even though every derived
 * figure and every other test would follow it silently.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describe as describeService } from '../../lib/service/describe.ts';
import { CONTRACT_NUMBERS as C } from '../helpers/contract-numbers.ts';
import { LIMITS } from '../helpers/limits.ts';
import { openapi } from '../helpers/contract.ts';

type Json = { [key: string]: any };

describe("the contract's numbers", () => {
  it('are the ones the service runs with: schema bounds and defaults, body and rate limits, word list', () => {
    assert.deepEqual(LIMITS, C);
  });

  it('are what describe() reports (GET /generate and ServiceAPI.describe())', () => {
    const d: Json = describeService();
    const pick = ({ minimum, maximum, default: value }: Json) => ({ minimum, maximum, default: value });
    assert.deepEqual(pick(d.request.count), C.count);
    assert.deepEqual(pick(d.modes.password.options.length), C.length);
    assert.deepEqual(pick(d.modes.passphrase.options.wordCount), C.wordCount);
    assert.deepEqual(d.limits.count, { minimum: C.count.minimum, maximum: C.count.maximum });
    assert.equal(d.limits.bodyBytes, C.bodyBytes);
    assert.equal(d.limits.rateLimit.requestsPerMinute, C.rateLimitPerMinute);
    assert.equal(d.modes.passphrase.wordLists['eff-large'].size, C.wordlist.size);
    assert.equal(d.modes.passphrase.wordLists['eff-large'].sourceSize, C.wordlist.sourceSize);
  });

  it('are what spec/openapi.json states, in its schemas and in its prose', () => {
    const schemas = (openapi.components as Json).schemas as Json;
    assert.deepEqual(schemas.PasswordOptions.properties.length, {
      ...schemas.PasswordOptions.properties.length,
      ...C.length,
    });
    assert.deepEqual(schemas.PassphraseOptions.properties.wordCount, {
      ...schemas.PassphraseOptions.properties.wordCount,
      ...C.wordCount,
    });
    const described = schemas.GeneratorDescription.properties;
    assert.equal(described.limits.properties.count.properties.maximum.const, C.count.maximum);
    assert.equal(described.limits.properties.bodyBytes.const, C.bodyBytes);
    const list = described.modes.properties.passphrase.properties.wordLists.properties['eff-large'].properties;
    assert.ok(list.size.enum.includes(C.wordlist.size));
    assert.ok(list.sourceSize.enum.includes(C.wordlist.sourceSize));
    const info = (openapi.info as Json).description as string;
    for (const row of [
      `| requests per client IP | ${C.rateLimitPerMinute} per minute `,
      `| count (credentials per request) | ${C.count.minimum} to ${C.count.maximum};`,
      `| password length | ${C.length.minimum} to ${C.length.maximum} |`,
      `| passphrase wordCount | ${C.wordCount.minimum} to ${C.wordCount.maximum} |`,
      `| request body | ${C.bodyBytes} bytes (16 KB); larger gives 413 |`,
    ]) {
      assert.ok(info.includes(row), `the limits table lacks ${JSON.stringify(row)}`);
    }
  });
});
