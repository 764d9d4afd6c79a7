/**
 * The site-rules plan (lib/core/rules/plan.ts) apart from its counts: every refusal and what it
 * says, the length a request gets, which sampler a plan takes and what it carries, and the seeded
 * draw order of each sampler. The counts against enumeration are tests/core/rules/count.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkPasswordRules,
  DEFAULT_RULES_LENGTH,
  generateRulesPasswords,
  isRulesPlan,
  MAX_REQUIRED_SETS,
  planPasswordRules,
  resolveRulesLength,
  type PasswordRules,
} from '../../../lib/core/rules/index.ts';
import { REJECTION_ACCEPTANCE } from '../../../lib/core/sample.ts';
import { log2BigInt } from '../../../lib/core/entropy.ts';
import { plan, planError, rule } from '../../helpers/rule-plans.ts';
import { seededRandom } from '../../helpers/seeded.ts';

describe('feasibility: every refusal says why', () => {
  const cases: [string, string][] = [
    ['maxlength: 6', "maxlength 6 is below the service's minimum length 8"],
    ['minlength: 129', "minlength 129 is above the service's maximum length 128"],
    ['minlength: 20; maxlength: 12', 'minlength 20 is greater than maxlength 12'],
    ['allowed: [a]', 'allows only the character "a"; a password needs at least 2 to choose from'],
    ['required: [x]', 'allows only the character "x"; a password needs at least 2 to choose from'],
    [
      'required: [a]; required: [b]; required: [c]; required: [d]; required: [e]; required: [f]; required: [g]; required: [h]; required: [i]',
      'has 9 different required sets; the service supports at most 8',
    ],
  ];
  for (const [text, message] of cases) {
    it(text, () => {
      assert.deepEqual(planError(text), { error: `options.passwordRules: ${message}`, field: 'options.passwordRules' });
      assert.equal(checkPasswordRules(rule(text))?.error, `options.passwordRules: ${message}`);
    });
  }

  it('8 required sets are accepted, even in 8 characters with max-repeating 1', () => {
    const eight =
      'required: [a]; required: [b]; required: [c]; required: [d]; required: [e]; required: [f]; required: [g]; required: [h]; max-repeating: 1';
    assert.equal(MAX_REQUIRED_SETS, 8);
    const p = plan(eight, 8);
    assert.equal(p.count, 40320n); // 8! arrangements of the 8 letters
    assert.equal(p.sampler, 'exact');
  });

  it('guards the count: a hand-built rule with an empty required set has no password', () => {
    const bad: PasswordRules = { ...rule('allowed: [ab]'), required: [''] };
    const p = planPasswordRules(bad);
    assert.ok(!isRulesPlan(p));
    assert.equal(p.error, 'options.passwordRules: no password of length 24 satisfies the rule');
  });

  it('guards the limits: a hand-built rule with max-repeating or max-sequential 0 is refused', () => {
    for (const bad of [
      { ...rule('allowed: [ab]'), maxRepeating: 0 },
      { ...rule('allowed: [ab]'), maxSequential: 0 },
    ]) {
      assert.equal(
        checkPasswordRules(bad)?.error,
        'options.passwordRules: max-repeating and max-sequential must be at least 1',
      );
    }
  });

  it('with max-sequential 1, a length that needs a step between neighbours is refused, the others served', () => {
    // [ab] with b never beside a: the only strings are aaaa... and bbbb..., at most 8 long.
    const text = 'allowed: [ab]; max-sequential: 1; max-repeating: 8';
    assert.equal(plan(text, 8).count, 2n);
    assert.match(planError(text, 9).error, /^options\.passwordRules: no password of length 9 satisfies the rule: /);
  });

  it('a rule with one password is sampled exactly, whatever its required sets (hand-built: eight copies of [b])', () => {
    // Normalisation would merge the copies. Before the one engine, no sampler of the four
    // reached this rule at 128 in bounded time and it was refused; now it has no acceptance
    // bound to miss.
    const base = rule('allowed: [abc]; max-sequential: 1');
    const p = planPasswordRules({ ...base, required: new Array<string>(8).fill('b') }, 128);
    assert.ok(isRulesPlan(p) && p.sampler === 'exact' && p.count === 1n && p.bits === 0);
    assert.equal(generateRulesPasswords(p, seededRandom(3), 1)[0], 'b'.repeat(128));
  });
});

describe('length', () => {
  it(`defaults to ${DEFAULT_RULES_LENGTH}, moved into the rule's bounds`, () => {
    assert.equal(plan('required: digit, lower').length, 24);
    assert.equal(plan('minlength: 6; maxlength: 16').length, 16);
    assert.equal(plan('minlength: 30').length, 30);
    assert.equal(plan('minlength: 4').length, 24);
    assert.equal(plan('maxlength: 200').length, 24);
    assert.equal(plan('minlength: 10; maxlength: 12').length, 12);
    assert.equal(plan('maxlength: 8').length, 8);
    assert.equal(plan('minlength: 128').length, 128);
  });

  it('a given length inside the bounds is used as is', () => {
    assert.equal(plan('minlength: 6; maxlength: 16', 8).length, 8);
    assert.equal(plan('minlength: 6; maxlength: 16', 16).length, 16);
    assert.equal(plan('maxlength: 300', 128).length, 128);
  });

  it('a given length outside the bounds names the bound it breaks', () => {
    const check = (text: string, length: number, message: string) =>
      assert.deepEqual(planError(text, length), { error: message, field: 'options.length' });
    check('minlength: 12', 10, 'options.length 10 is below the minlength 12 of options.passwordRules');
    check('maxlength: 16', 24, 'options.length 24 is above the maxlength 16 of options.passwordRules');
    check('minlength: 4', 7, 'options.length must be between 8 and 128');
    check('maxlength: 300', 129, 'options.length must be between 8 and 128');
    check('minlength: 8', 12.5, 'options.length must be between 8 and 128');
  });

  it('resolveRulesLength returns the length or the error', () => {
    assert.equal(resolveRulesLength(rule('minlength: 9'), undefined), 24);
    assert.equal(resolveRulesLength(rule('minlength: 9'), 9), 9);
    const e = resolveRulesLength(rule('minlength: 9'), 8);
    assert.ok(typeof e !== 'number' && e.field === 'options.length');
  });
});

describe('the plan', () => {
  it('picks rejection while at most 32 attempts are expected, and the exact sampler beyond', () => {
    assert.equal(1 / REJECTION_ACCEPTANCE, 32);
    // acceptance for "one specific character out of 95 somewhere in 8": 1 - (94/95)^8 = 0.0812
    const one = plan('required: [a]; allowed: ascii-printable', 8);
    assert.ok(Math.abs(one.acceptance - (1 - (94 / 95) ** 8)) < 1e-12);
    assert.equal(one.sampler, 'rejection');
    // two specific characters: about 0.0812^2 = 0.0066 < 1/32
    const two = plan('required: [a]; required: [b]; allowed: ascii-printable', 8);
    assert.ok(two.acceptance < 1 / 32);
    assert.equal(two.sampler, 'exact');
    assert.ok(two.counted !== null && one.counted === null);
  });

  it('beyond rejection, the exact sampler, however few strings rejection or a wider set would keep', () => {
    // Digits with no repeat and no neighbours side by side, 24 long: rejection keeps 1 draw in
    // 1,800.
    const digits = plan('allowed: digit; max-consecutive: 1', 24);
    assert.ok(digits.acceptance < 1 / 1000);
    assert.equal(digits.sampler, 'exact');
    // The middle of three neighbours required under max-sequential 1: only bbbb... is valid.
    const hemmed = plan('required: [b]; allowed: [abc]; max-sequential: 1', 24);
    assert.equal(hemmed.count, 1n);
    assert.equal(hemmed.sampler, 'exact');
    assert.equal(hemmed.bits, 0);
    assert.equal(generateRulesPasswords(hemmed, seededRandom(5), 1)[0], 'b'.repeat(24));
  });

  it('max-sequential removes strings only where the allowed set has a chain longer than it', () => {
    assert.ok(plan('allowed: [abc!]; max-sequential: 2', 8).count < 4n ** 8n);
    assert.equal(plan('allowed: [abc!]; max-sequential: 3', 8).count, 4n ** 8n);
    assert.equal(plan('allowed: [ace!]; max-sequential: 1', 8).count, 4n ** 8n);
    assert.equal(plan('allowed: [9:@AZ[`az{]; max-sequential: 1', 8).count, 10n ** 8n);
  });

  it('carries the metadata the response needs', () => {
    const p = plan('minlength: 10; required: digit; allowed: unicode', 12);
    assert.deepEqual(p.metadata, {
      entropyMode: 'uniform-rules',
      passwordRules: 'minlength: 10; required: digit; allowed: ascii-printable;',
      allowedSize: 95,
      length: 12,
      unicodeAsAsciiPrintable: true,
    });
    assert.equal(p.bits, log2BigInt(p.count));
  });

  it('seeded vectors pin the draw order of every sampler', () => {
    const text = 'minlength: 8; maxlength: 20; max-consecutive: 2; required: lower, upper; required: digit';
    const drawn = [
      plan(text, 12, 'rejection'),
      plan(text, 12, 'exact'),
      plan('max-sequential: 2; required: [b]; allowed: [abc0]', 12, 'exact'),
    ].map((p) => generateRulesPasswords(p, seededRandom(1), 1)[0]);
    // Re-pinned where the draws changed (random.ts below(n) keeps a word's low bits); the exact
    // vectors again for the engine's unranking, which orders the strings its own way; the third
    // again when the codes of a chain a required set cuts became jump groups of their own.
    assert.deepEqual(drawn, ['AYkSKVg5ZvYj', 'CQAYwnd2bNS3', 'ac0b0cbc0aca']);
  });
});
