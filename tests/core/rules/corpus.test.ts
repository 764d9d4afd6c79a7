/**
 * The 434 real-world rules of tests/fixtures/password-rules (Apple's password-manager-resources
 * quirks list): every rule either yields passwords that the independent checker
 * (tests/helpers/rules-checker.ts) confirms, at the default length and at both ends of its
 * length range, or is refused for a reason listed in REFUSED below. Prints how many fall in
 * each reason, the rejection acceptance rates at the default length and how many plans take the
 * exact sampler. The parse / plan / sample times of a warm pass are the bench's (bench/rules.ts,
 * section 1): a timing has no place in a test run.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import corpus from '../../fixtures/password-rules/password-rules.json' with { type: 'json' };
import {
  generateRulesPasswords,
  isRulesPlan,
  parsePasswordRules,
  planPasswordRules,
  type RulesPlan,
} from '../../../lib/core/rules/index.ts';
import { defaultRandom } from '../../../lib/core/random.ts';
import { PLAN_WORK_BUDGET } from '../../../lib/core/sample.ts';
import { generate } from '../../../lib/request/generate.ts';
import { readRule, violation } from '../../helpers/rules-checker.ts';
import { lengthBounds } from '../../helpers/rule-plans.ts';

const RULES: [string, string][] = Object.entries(corpus as Record<string, { 'password-rules': string }>).map(
  ([site, v]) => [site, v['password-rules']],
);

/** Why a refused rule is refused: the message each reason must match. */
const REASONS = {
  'maxlength below 8': /^options\.passwordRules: maxlength [0-7] is below the service's minimum length 8$/,
  'a character outside printable ASCII':
    /^options\.passwordRules: character "\\u[0-9a-f]{4}" in a character class is not printable ASCII, at position \d+$/,
} as const;

const REFUSED: Record<string, keyof typeof REASONS> = {
  'allianz.com.br': 'maxlength below 8',
  'amundi-ee.com': 'maxlength below 8',
  'bpl.bibliocommons.com': 'maxlength below 8',
  'consorsbank.de': 'maxlength below 8',
  'deutsche-bank.de': 'maxlength below 8',
  'packageconciergeadmin.com': 'maxlength below 8',
  'sulamericaseguros.com.br': 'maxlength below 8',
  'turkishairlines.com': 'maxlength below 8',
  'vivo.com.br': 'maxlength below 8',
  'axa.de': 'a character outside printable ASCII', // §
  'dkb.de': 'a character outside printable ASCII', // äüöÄÜÖß
  'kundenportal.edeka-smart.de': 'a character outside printable ASCII', // §
  'posteo.de': 'a character outside printable ASCII', // ’ (U+2019)
  'unito.it': 'a character outside printable ASCII', // £
};

const PER_LENGTH = 3;

/** Whether max-sequential S can bind: the allowed set (ascending) holds more than S consecutive
 * codes inside one of 0-9, A-Z, a-z. */
function sequenceBinds(allowed: string, S: number): boolean {
  const range = (c: number) => (c >= 48 && c <= 57 ? 1 : c >= 65 && c <= 90 ? 2 : c >= 97 && c <= 122 ? 3 : 0);
  const codes = [...allowed].map((c) => c.charCodeAt(0)).sort((x, y) => x - y);
  let chain = 1;
  for (let i = 1; i < codes.length; i++) {
    const step = codes[i] === codes[i - 1] + 1 && range(codes[i]) !== 0 && range(codes[i]) === range(codes[i - 1]);
    chain = step ? chain + 1 : 1;
    if (chain > S) return true;
  }
  return false;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('the corpus of 434 real rules', () => {
  it('has 434 rules', () => assert.equal(RULES.length, 434));

  it('every rule yields passwords the independent checker confirms, or is refused for a listed reason', () => {
    const byReason = new Map<string, number>();
    const acceptance: number[] = [];
    const exactPlans = { default: 0, min: 0, max: 0 };
    let passwords = 0;
    for (const [site, text] of RULES) {
      const parsed = parsePasswordRules(text);
      const reason = REFUSED[site];
      if (!parsed.ok) {
        assert.ok(reason !== undefined, `${site}: unexpected refusal: ${parsed.error.error}`);
        assert.match(parsed.error.error, REASONS[reason], site);
        byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
        continue;
      }
      const rule = parsed.rule;
      const checker = readRule(text);
      // The two independent readings agree on what the rule allows.
      assert.equal(rule.allowed, [...checker.allowed].sort().join(''), `${site}: allowed set`);
      assert.equal(rule.minLength ?? 0, checker.minLength, `${site}: minlength`);
      assert.equal(rule.maxLength ?? Infinity, checker.maxLength, `${site}: maxlength`);
      assert.equal(rule.maxRepeating ?? Infinity, checker.maxRepeating, `${site}: max-repeating`);
      assert.equal(rule.maxSequential ?? Infinity, checker.maxSequential, `${site}: max-sequential`);
      // The canonical text reads back as the same rule.
      const again = parsePasswordRules(rule.text);
      assert.ok(again.ok);
      assert.deepEqual(
        { ...again.rule, unicodeAsAsciiPrintable: rule.unicodeAsAsciiPrintable },
        rule,
        `${site}: canonical text`,
      );

      const atDefault = planPasswordRules(rule);
      if (!isRulesPlan(atDefault)) {
        assert.ok(reason !== undefined, `${site}: unexpected refusal: ${atDefault.error}`);
        assert.match(atDefault.error, REASONS[reason], site);
        byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
        continue;
      }
      assert.equal(reason, undefined, `${site} is listed as refused but was planned`);
      acceptance.push(atDefault.acceptance);
      const { min, max } = lengthBounds(rule);
      const plans: [keyof typeof exactPlans, RulesPlan][] = [['default', atDefault]];
      for (const [which, length] of [
        ['min', min],
        ['max', max],
      ] as const) {
        const p = planPasswordRules(rule, length);
        assert.ok(isRulesPlan(p), `${site} at length ${length}`);
        plans.push([which, p]);
      }
      for (const [which, p] of plans) {
        // The work budget (T4) has room to spare for every real rule: at most 178,688 units
        // (fedex.com at 128, the engine's price with its unranking tables), 2.8 times below it.
        assert.ok(p.work * 2.5 <= PLAN_WORK_BUDGET, `${site} (${which} length ${p.length}): ${p.work} work units`);
        if (p.sampler === 'exact') exactPlans[which]++;
        for (let i = 0; i < PER_LENGTH; i++) {
          const password = generateRulesPasswords(p, defaultRandom, 1)[0];
          passwords++;
          assert.equal(password.length, p.length);
          assert.equal(
            violation(checker, password),
            null,
            `${site} (${which} length ${p.length}): ${violation(checker, password)}`,
          );
        }
      }
    }
    const accepted = RULES.length - [...byReason.values()].reduce((a, b) => a + b, 0);
    for (const [reason, n] of byReason) process.stdout.write(`rules corpus: refused, ${reason}: ${n}\n`);
    process.stdout.write(`rules corpus: accepted ${accepted}, ${passwords} passwords checked\n`);
    const sorted = [...acceptance].sort((a, b) => a - b);
    process.stdout.write(
      `rules corpus: acceptance at the default length: min ${sorted[0].toFixed(3)}, 10th percentile ${sorted[Math.floor(sorted.length / 10)].toFixed(3)}, median ${median(sorted).toFixed(3)}, ` +
        `below 1/2: ${sorted.filter((a) => a < 0.5).length}, below 1/32: ${sorted.filter((a) => a < 1 / 32).length}\n`,
    );
    process.stdout.write(
      `rules corpus: exact sampler at the default length ${exactPlans.default}, at the minimum ${exactPlans.min}, at the maximum ${exactPlans.max}\n`,
    );
    assert.equal(accepted + Object.keys(REFUSED).length, RULES.length);
    for (const reason of Object.keys(REASONS))
      assert.ok(byReason.has(reason), `no rule refused for "${reason}": drop it from the table`);
  });

  it('through the request path: every rule as options.passwordRules gives passwords the checker confirms, or a 400 for a listed reason', () => {
    let passwords = 0;
    const refused = new Map<string, number>();
    for (const [site, text] of RULES) {
      const checker = readRule(text);
      const reason = REFUSED[site];
      // The rule's default length, then each end of its range (as far as the service goes;
      // a refused rule has no range to try).
      const low = Math.max(8, checker.minLength);
      const high = Math.min(128, checker.maxLength);
      for (const length of reason === undefined ? [undefined, low, high] : [undefined]) {
        const options = length === undefined ? { passwordRules: text } : { passwordRules: text, length };
        const r = generate({ mode: 'password', count: 3, options });
        if (r.status === 400) {
          assert.ok(reason !== undefined, `${site}: unexpected refusal: ${r.body.error}`);
          assert.equal(r.body.field, 'options.passwordRules', site);
          assert.match(r.body.error, REASONS[reason], site);
          if (length === undefined) refused.set(reason, (refused.get(reason) ?? 0) + 1);
          continue;
        }
        assert.equal(reason, undefined, `${site} is listed as refused but was generated`);
        assert.equal(r.body.metadata.entropyMode, 'uniform-rules');
        const expected = length ?? Math.min(high, Math.max(low, 24));
        for (const { value } of r.body.results) {
          passwords++;
          assert.equal(value.length, expected, `${site} (length ${String(length)})`);
          assert.equal(
            violation(checker, value),
            null,
            `${site} (length ${String(length)}): ${violation(checker, value)}`,
          );
        }
      }
    }
    process.stdout.write(
      `rules corpus through generate(): ${passwords} passwords checked; refused: ${[...refused].map(([k, n]) => `${k} ${n}`).join(', ')}\n`,
    );
    assert.equal(
      [...refused.values()].reduce((a, b) => a + b, 0),
      Object.keys(REFUSED).length,
    );
  });

  it('max-consecutive now limits sequences too: which rules change meaning, and none is newly refused', () => {
    // PR #1255 made max-consecutive an alias for max-repeating and max-sequential together; the
    // old meaning (repeats only) is the same rule without the max-sequential half.
    let using = 0;
    let bound = 0;
    let refused = 0;
    const bits: number[] = [];
    for (const [site, text] of RULES) {
      if (!/max-consecutive/.test(text)) continue;
      using++;
      const parsed = parsePasswordRules(text);
      assert.ok(parsed.ok, site);
      const now = planPasswordRules(parsed.rule);
      const before = planPasswordRules({ ...parsed.rule, maxSequential: null });
      assert.equal(isRulesPlan(now), isRulesPlan(before), `${site}: refused under one meaning only`);
      if (!isRulesPlan(now) || !isRulesPlan(before)) {
        assert.equal(REFUSED[site], 'maxlength below 8', site);
        refused++;
        continue;
      }
      assert.equal(parsed.rule.maxSequential, parsed.rule.maxRepeating, site);
      assert.ok(now.count <= before.count, site);
      if (sequenceBinds(parsed.rule.allowed, parsed.rule.maxSequential ?? Infinity)) {
        bound++;
        assert.ok(now.count < before.count, `${site}: a binding limit removes strings`);
        bits.push(before.bits - now.bits);
      } else assert.equal(now.count, before.count, site);
    }
    const sorted = [...bits].sort((a, b) => a - b);
    process.stdout.write(
      `rules corpus: ${using} rules use max-consecutive; ${refused} are refused under both meanings (maxlength below 8); under PR #1255 it limits sequences in ${bound} of the others ` +
        `(entropy at the default length lower by ${sorted[0].toFixed(4)} to ${sorted[sorted.length - 1].toFixed(4)} bits, median ${median(sorted).toFixed(4)}); none refused under one meaning only\n`,
    );
    assert.equal(using, 81);
    assert.equal(bound + refused, using, 'every accepted rule with max-consecutive has a chain its limit binds');
  });

  it('the checker has teeth: it catches a short password, a foreign character, a missed required set, a run and a sequence', () => {
    const rule = readRule('minlength: 10; maxlength: 12; max-consecutive: 2; required: [#]; allowed: lower');
    assert.equal(violation(rule, 'acegikmo#q'), null);
    assert.match(violation(rule, 'acegikm#q')!, /shorter than minlength 10/);
    assert.match(violation(rule, 'acegikmo#qsuw')!, /longer than maxlength 12/);
    assert.match(violation(rule, 'acegikmo#Q')!, /"Q" is not allowed/);
    assert.match(violation(rule, 'acegikmoqs')!, /no character of required set 1/);
    assert.match(violation(rule, 'acegikm#qqq')!, /run of 3 exceeds max-repeating 2/);
    // max-consecutive limits sequences too: abc, cba, 123, 321 fail 2 and pass 3; aba holds two
    // sequences of 2; 9-0 and z-a do not wrap.
    assert.match(violation(rule, 'abcegikm#q')!, /the sequence "abc" exceeds max-sequential 2/);
    assert.match(violation(rule, 'acegikm#cba')!, /the sequence "cba" exceeds max-sequential 2/);
    assert.equal(violation(rule, 'abaegikm#q'), null);
    const digits = readRule('max-sequential: 2; allowed: digit');
    assert.match(violation(digits, '9123')!, /the sequence "123" exceeds max-sequential 2/);
    assert.match(violation(digits, '90121')!, /the sequence "012" exceeds max-sequential 2/);
    assert.equal(violation(digits, '90908978'), null);
    assert.equal(violation(readRule('max-sequential: 3; allowed: digit'), '12321'), null);
    assert.match(violation(readRule('max-repeating: 2'), 'aaa')!, /run of 3/);
    assert.equal(violation(readRule('max-repeating: 3'), 'aaa'), null);
    assert.equal(violation(readRule('max-sequential: 1; allowed: [Za]'), 'ZaZa'), null);
    const open = readRule('minlength: 8');
    assert.equal(violation(open, ' ~!aZ09\\'), null);
    assert.match(violation(open, 'abcdefg\u00e9')!, /not allowed/);
    const brackets = readRule('required: [-]]; allowed: [ab]');
    assert.equal(violation(brackets, 'ab-'), null);
    assert.equal(violation(brackets, 'ab]'), null);
    assert.match(violation(brackets, 'abab')!, /no character of required set 1/);
  });
});
