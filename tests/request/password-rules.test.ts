/**
 * `options.passwordRules` through the request path (`generate()`): the hand vectors, the
 * metadata, the rule's own default length, exclusivity with the class options, the plan caches
 * (canonical text and length; the memory bound), and values holding `"` or `\` (the reply's
 * JSON escapes them: tests/http/response-json.test.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { generate } from '../../lib/request/generate.ts';
import { isRulesPlan, planRulesRequest } from '../../lib/request/password-rules.ts';
import type { RulesRequest } from '../../lib/request/validate.ts';
import { mapStore } from '../helpers/map-store.ts';
import { compile, count as countOf } from '../../lib/core/engine.ts';
import { parsePasswordRules } from '../../lib/core/rules/index.ts';
import { ruleSpec } from '../../lib/core/rules/plan.ts';
import { log2BigInt } from '../../lib/core/entropy.ts';
import { responseSchema } from '../../lib/generated/schema.generated.ts';
import { readRule, violation } from '../helpers/rules-checker.ts';
import { oracleCount, oracleInput } from '../helpers/rules-oracle.ts';
import { scriptedFill, seededRandom } from '../helpers/seeded.ts';
import { createRandom } from '../../lib/core/random.ts';

/** Plans through a store, as generate() gets them with the server's memo. */
const store = mapStore();
const cachedPlanRules = (request: RulesRequest) => planRulesRequest(request, store);

const validResponse = new Ajv2020({ strict: true, allErrors: true }).compile(responseSchema);

type Body = {
  value: string;
  entropy: { bits: number; label: string; level: number };
  metadata: Record<string, unknown>;
  results: { value: string }[];
};

function accepted(input: unknown, random = seededRandom(7)): Body {
  const r = generate(input, random);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(validResponse(r.body), JSON.stringify(validResponse.errors));
  return r.body as unknown as Body;
}

const rules = (passwordRules: string, extra: Record<string, unknown> = {}, count?: number) => ({
  mode: 'password',
  ...(count === undefined ? {} : { count }),
  options: { passwordRules, ...extra },
});

const FOUR_CLASSES = 'required: upper; required: lower; required: digit; required: special';
const LETTERS_AND_DIGIT = 'required: lower, upper; required: digit';

describe('passwordRules through generate(): the hand vectors', () => {
  it('length 16, ascii-printable with one each of upper, lower, digit, special: 104.83 bits (naive 16 x log2 95 = 105.12)', () => {
    const body = accepted(rules(FOUR_CLASSES, { length: 16 }));
    assert.deepEqual(body.entropy, { bits: 104.83, label: 'Excellent', level: 4 });
    assert.equal((16 * Math.log2(95)).toFixed(2), '105.12');
    assert.deepEqual(body.metadata, {
      entropyMode: 'uniform-rules',
      passwordRules: 'required: upper; required: lower; required: digit; required: special; allowed: ascii-printable;',
      allowedSize: 95,
      length: 16,
      unicodeAsAsciiPrintable: false,
    });
    assert.equal(violation(readRule(FOUR_CLASSES), body.value), null);
  });

  it('length 20, lower or upper, and a digit, nothing else allowed: 119.04 bits = log2(62^20 - 10^20 - 52^20)', () => {
    const body = accepted(rules(LETTERS_AND_DIGIT, { length: 20 }));
    assert.deepEqual(body.entropy, { bits: 119.04, label: 'Excellent', level: 4 });
    assert.equal(log2BigInt(62n ** 20n - 10n ** 20n - 52n ** 20n).toFixed(2), '119.04');
    assert.deepEqual(body.metadata, {
      entropyMode: 'uniform-rules',
      passwordRules: 'required: lower, upper; required: digit; allowed: lower, upper, digit;',
      allowedSize: 62,
      length: 20,
      unicodeAsAsciiPrintable: false,
    });
    assert.match(body.value, /^(?=.*[0-9])(?=.*[A-Za-z])[A-Za-z0-9]{20}$/);
  });

  it('states the exact count of the rule as entropy, max-consecutive included (repeats and sequences)', () => {
    const text = 'max-consecutive: 2; required: [ab]; required: [0]; allowed: [cd1]';
    const body = accepted(rules(text, { length: 10 }));
    // The independent oracle's count, and the smaller count without the sequence half.
    const count = oracleCount(oracleInput(readRule(text), 10));
    assert.equal(body.entropy.bits, Math.round(log2BigInt(count) * 100) / 100);
    const parsed = parsePasswordRules(text);
    assert.ok(parsed.ok);
    const repeatsOnly = countOf(compile(ruleSpec({ ...parsed.rule, maxSequential: null }, 10)));
    assert.equal(repeatsOnly, oracleCount(oracleInput({ ...readRule(text), maxSequential: Infinity }, 10)));
    assert.ok(count < repeatsOnly);
  });

  it('echoes what it applied: max-consecutive written as max-repeating and max-sequential', () => {
    const body = accepted(
      rules('max-consecutive: 3; max-sequential: 2; required: digit; allowed: lower', { length: 12 }),
    );
    assert.equal(
      body.metadata.passwordRules,
      'max-repeating: 3; max-sequential: 2; required: digit; allowed: lower, digit;',
    );
    assert.equal(violation(readRule(body.metadata.passwordRules), body.value), null, body.value);
  });
});

describe('passwordRules: length', () => {
  it("without a length, uses the rule's default (24 moved into its bounds), never the schema's 24 as if given", () => {
    assert.equal(accepted(rules('minlength: 8')).value.length, 24);
    assert.equal(accepted(rules('maxlength: 16')).value.length, 16);
    assert.equal(accepted(rules('minlength: 30')).value.length, 30);
    assert.equal(accepted(rules('minlength: 12; maxlength: 12')).metadata.length, 12);
  });

  it("uses a given length inside the rule's bounds, and names the bound it breaks", () => {
    assert.equal(accepted(rules('minlength: 12; maxlength: 16', { length: 12 })).value.length, 12);
    assert.equal(accepted(rules('minlength: 12; maxlength: 16', { length: 16 })).value.length, 16);
    assert.deepEqual(generate(rules('minlength: 12; maxlength: 16', { length: 11 })).body, {
      error: 'options.length 11 is below the minlength 12 of options.passwordRules',
      status: 400,
      field: 'options.length',
    });
    assert.deepEqual(generate(rules('minlength: 12; maxlength: 16', { length: 17 })).body, {
      error: 'options.length 17 is above the maxlength 16 of options.passwordRules',
      status: 400,
      field: 'options.length',
    });
  });

  it('a length 24 and no length share one plan when 24 is the default (keyed by the length used)', () => {
    const a = cachedPlanRules({ text: 'minlength: 9', length: undefined });
    const b = cachedPlanRules({ text: 'minlength: 9', length: 24 });
    assert.ok(isRulesPlan(a));
    assert.equal(a, b);
  });
});

describe('passwordRules: metadata and unicode', () => {
  it('says when unicode was read as ascii-printable', () => {
    const body = accepted(rules('required: unicode; required: digit'));
    assert.equal(body.metadata.unicodeAsAsciiPrintable, true);
    assert.equal(body.metadata.allowedSize, 95);
    assert.equal(body.metadata.passwordRules, 'required: digit; allowed: ascii-printable;');
  });

  it('gives every password of a batch from the same plan, each valid, mirrored at the top level', () => {
    const text = 'minlength: 10; maxlength: 14; max-consecutive: 1; required: [#!]; allowed: lower';
    const body = accepted(rules(text, {}, 20));
    assert.equal(body.results.length, 20);
    assert.equal(body.value, body.results[0].value);
    for (const { value } of body.results) assert.equal(violation(readRule(text), value), null, value);
  });
});

describe('passwordRules: caches', () => {
  it('one plan for every spelling of a rule (keyed by canonical text), a new one for another length', () => {
    const spellings = [
      'required: upper; required: digit',
      'required:Upper ;required:  digit;',
      'required: digit; required: upper',
      'required: upper; required: digit; required: upper, digit',
    ];
    const plans = spellings.map((text) => cachedPlanRules({ text, length: 12 }));
    assert.ok(isRulesPlan(plans[0]));
    // The order of required sets is kept, so the third spelling is its own canonical text.
    assert.equal(plans[1], plans[0]);
    assert.equal(plans[3], plans[0]);
    assert.notEqual(plans[2], plans[0]);
    assert.notEqual(cachedPlanRules({ text: spellings[0], length: 13 }), plans[0]);
  });

  it('many rules in turn, each right; without a store every request plans afresh, to the same plan', () => {
    for (let i = 0; i < 700; i++) {
      const plan = cachedPlanRules({
        text: `minlength: ${8 + (i % 100)}; required: [${String.fromCharCode(33 + (i % 90))}]; allowed: lower`,
        length: undefined,
      });
      assert.ok(isRulesPlan(plan));
      assert.equal(plan.metadata.length, Math.max(24, 8 + (i % 100)));
    }
    // An exact-sampler plan (a table of its own) is kept in the same store and found there again.
    const sparse = { text: 'required: [a]; required: [b]; required: [c]; allowed: ascii-printable', length: 8 };
    const first = cachedPlanRules(sparse);
    assert.ok(isRulesPlan(first) && first.sampler === 'exact');
    assert.equal(cachedPlanRules(sparse), first);
    const fresh = planRulesRequest(sparse);
    const again = planRulesRequest(sparse);
    assert.ok(isRulesPlan(fresh) && isRulesPlan(again));
    assert.notEqual(fresh, again);
    assert.deepEqual(fresh.metadata, first.metadata);
    assert.equal(fresh.count, first.count);
  });

  it('a rule that said unicode and one that said ascii-printable share a canonical text but not a plan (the metadata differs)', () => {
    const unicode = accepted(rules('allowed: unicode', { length: 9 }));
    const ascii = accepted(rules('allowed: ascii-printable', { length: 9 }));
    assert.equal(unicode.metadata.passwordRules, ascii.metadata.passwordRules);
    assert.equal(unicode.metadata.unicodeAsAsciiPrintable, true);
    assert.equal(ascii.metadata.unicodeAsAsciiPrintable, false);
    assert.equal(accepted(rules('allowed: unicode', { length: 9 })).metadata.unicodeAsAsciiPrintable, true);
  });

  it('a refused rule gets the same error each time', () => {
    const e1 = generate(rules('maxlength: 6')).body;
    const e2 = generate(rules('maxlength: 6')).body;
    assert.deepEqual(e1, e2);
  });
});

describe('passwordRules: JSON', () => {
  it('makes values holding " and \\ when the rule asks for them', () => {
    for (const count of [1, 5]) {
      const body = accepted(rules('required: ["]; required: [\\]; allowed: [ab]', { length: 12 }, count));
      for (const { value } of body.results) assert.match(value, /^(?=.*")(?=.*\\)["\\ab]{12}$/);
    }
  });

  it('is seeded: the same seed gives the same passwords (rejection and exact samplers)', () => {
    for (const [text, length] of [
      [FOUR_CLASSES, 16],
      ['required: [a]; required: [b]; required: [c]; allowed: ascii-printable', 8],
    ] as const) {
      const a = accepted(rules(text, { length }, 3), seededRandom(11));
      const b = accepted(rules(text, { length }, 3), seededRandom(11));
      assert.deepEqual(a, b);
    }
  });

  it('draws nothing for a refused rule (a source that fails on first use is never called)', () => {
    const random = createRandom(scriptedFill([]));
    for (const input of [
      rules('foo: 1'),
      rules('maxlength: 6'),
      rules('minlength: 12', { length: 10 }),
      rules('minlength: 8', { includeSymbols: true }),
    ]) {
      assert.equal(generate(input, random).status, 400);
    }
  });
});
