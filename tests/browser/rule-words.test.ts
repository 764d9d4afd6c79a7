/**
 * browser/home/rule-words.ts: the rule a result was counted under, in words, from the metadata
 * the API returns (issue 41: "with every chosen kind at least once" was shown under minimums
 * and policies too). The metadata is the API's own, from generate() with the options named.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { passwordRuleWords } from '../../browser/home/rule-words.ts';
import type { Metadata } from '../../browser/home/description.ts';
import { generate } from '../../lib/request/index.ts';
import { ROOT } from '../helpers/server.ts';

function metadataOf(options: Record<string, unknown>): Metadata {
  const outcome = generate({ mode: 'password', options });
  assert.equal(outcome.status, 200, JSON.stringify(outcome.body));
  return (outcome.body as { metadata: Metadata }).metadata;
}

const POOL = '24 characters from a pool of 62 (lowercase 26, uppercase 26, numbers 10)';

describe('passwordRuleWords', () => {
  it('the default rule: every chosen kind at least once', () => {
    assert.equal(passwordRuleWords(metadataOf({})), `${POOL}, with every chosen kind at least once`);
  });

  it('a pattern (issue 43): its length and the characters its matches use', () => {
    assert.equal(
      passwordRuleWords(metadataOf({ pattern: '(?=.*\\d)[a-z0-9]{8,20}' })),
      '20 characters matching the pattern, from the 36 its matches use',
    );
  });

  it('minimums: each class with its own, never "every chosen kind at least once"', () => {
    assert.equal(
      passwordRuleWords(metadataOf({ minNumbers: 2 })),
      `${POOL}, with at least 1 lowercase letter, 1 uppercase letter and 2 digits`,
    );
  });

  it("the example's db-password policy: minimums, a letter first, no triple", () => {
    const policies = JSON.parse(readFileSync(join(ROOT, 'deploy', 'policies.example.json'), 'utf8')) as {
      policies: Record<string, { options: Record<string, unknown> }>;
    };
    assert.equal(
      passwordRuleWords(metadataOf(policies.policies['db-password'].options)),
      '20 characters from a pool of 85 (lowercase 26, uppercase 26, numbers 10, symbols 23), with at least 1 lowercase letter, 1 uppercase letter, 2 digits and 2 symbols; a letter first; no character more than 2 times in a row',
    );
  });

  it('k of M, the last character, sequences', () => {
    assert.equal(
      passwordRuleWords(
        metadataOf({ length: 12, includeSymbols: true, minClasses: 3, lastCharacter: ['numbers'], maxSequential: 3 }),
      ),
      '12 characters from a pool of 85 (lowercase 26, uppercase 26, numbers 10, symbols 23), characters of at least 3 of the 4 kinds; a digit last; no run of more than 3 in sequence like abc or 321',
    );
  });

  it('first and last alike, limits of 1', () => {
    assert.equal(
      passwordRuleWords(
        metadataOf({
          firstCharacter: ['lowercase', 'numbers'],
          lastCharacter: ['lowercase', 'numbers'],
          maxRepeating: 1,
          maxSequential: 1,
        }),
      ),
      `${POOL}, with at least 1 lowercase letter, 1 uppercase letter and 1 digit; a lowercase letter or a digit first and last; no character twice in a row; no two characters in sequence like ab or 21`,
    );
  });

  it('maximums, when the API gives them, slot in beside the minimums', () => {
    const m = metadataOf({ minNumbers: 2 });
    const constraints = { ...m.constraints!, maximums: { numbers: 4, symbols: 0 } };
    assert.equal(
      passwordRuleWords({ ...m, constraints }),
      `${POOL}, with at least 1 lowercase letter, 1 uppercase letter and 2 digits and at most 4 digits`,
    );
  });

  it('site rules: the rule as the API read it, the required sets, the limits', () => {
    const m = metadataOf({
      passwordRules:
        'minlength: 12; maxlength: 20; required: lower; required: upper, digit; allowed: [-_!;]]; max-consecutive: 2',
    });
    assert.equal(
      passwordRuleWords(m),
      `20 characters from the ${String(m.allowedSize)} the site rules allow (length 12 to 20), with at least a lowercase letter and an uppercase letter or a digit; no character more than 2 times in a row; no run of more than 2 in sequence like abc or 321`,
    );
    assert.equal(
      passwordRuleWords(metadataOf({ passwordRules: 'required: [;,]; allowed: lower' })),
      '24 characters from the 28 the site rules allow, with at least one of ,;',
    );
  });
});
