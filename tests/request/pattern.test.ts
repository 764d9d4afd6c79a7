/**
 * `options.pattern` through the request path (`generate()`, issue 43): every value matches the
 * native `RegExp('^(?:' + pattern + ')$', 'v')` at the length, the response fits the schema, the
 * bits are log2 of the exact count, the default length, the entropy floor, the plan store, and the
 * refusal of a pattern not valid under v in words (V8's own reason, so matched, not pinned: the
 * exact bodies of the other refusals are in tests/helpers/error-cases.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { generate } from '../../lib/request/generate.ts';
import { planPatternRequest } from '../../lib/request/pattern.ts';
import { planPattern, isPatternPlan } from '../../lib/core/pattern/index.ts';
import { responseSchema } from '../../lib/generated/schema.generated.ts';
import { mapStore } from '../helpers/map-store.ts';
import { firstFailure, judgePolicies, policySetOf } from '../../lib/policies/policies.ts';
import { seededRandom } from '../helpers/seeded.ts';

const validResponse = new Ajv2020({ strict: true, allErrors: true }).compile(responseSchema);

type Body = {
  value: string;
  entropy: { bits: number };
  metadata: Record<string, unknown>;
  results: { value: string }[];
};

const request = (pattern: string, extra: Record<string, unknown> = {}, count = 20) => ({
  mode: 'password',
  count,
  options: { pattern, ...extra },
});

function accepted(input: unknown): Body {
  const r = generate(input, seededRandom(43));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(validResponse(r.body), JSON.stringify(validResponse.errors));
  return r.body as unknown as Body;
}

describe('options.pattern through generate() (issue 43)', () => {
  const cases: [string, number | undefined, number, string][] = [
    // pattern, length asked, length served, how it is counted
    ['^(?=.*[0-9])(?=.*[a-z])(?=.*[A-Z])[a-zA-Z0-9!@#$&+\\/_?\\-]{12,128}$', undefined, 24, 'the common shape'],
    ['(?=.*\\d)(?!.*(.)\\1{2})(?!.*abc)[a-z0-9]{8,64}', 40, 40, 'the automaton, with the idiom'],
    ['(?:[a-f]{4}-){3}[a-f]{4}', undefined, 19, 'the automaton, one length'],
    ['(?:[A-Z]{2}\\d{2}|[a-z]{3})+', undefined, 24, 'the automaton, two branches'],
  ];
  for (const [pattern, length, served, how] of cases)
    it(`${pattern}${length === undefined ? '' : ` at ${length}`}: length ${served}, ${how}`, () => {
      const body = accepted(request(pattern, length === undefined ? {} : { length }));
      const native = new RegExp(`^(?:${pattern})$`, 'v');
      assert.equal(body.results.length, 20);
      for (const { value } of body.results) assert.ok(native.test(value) && value.length === served, value);
      const plan = planPattern(pattern, served);
      assert.ok(isPatternPlan(plan));
      assert.equal(body.entropy.bits, Math.round(plan.bits * 100) / 100);
      assert.equal(body.metadata.entropyMode, 'uniform-pattern');
      assert.equal(body.metadata.length, served);
    });

  it('metadata.allowedSize: the characters some match uses', () => {
    assert.equal(accepted(request('(?=.*\\d)[a-z0-9]+')).metadata.allowedSize, 36);
    assert.equal(accepted(request('(?:ab|cd)+[0-3]')).metadata.allowedSize, 8);
  });

  it('a pattern not valid under v: a 400 naming options.pattern, in words, with the u hint where it applies', () => {
    const hint = 'it is valid under the older u flag, but v asks for ( ) [ ] { } / - | to be escaped in a class';
    for (const [pattern, withHint] of [
      ['[a-z-]+', true],
      ['[a-z', false],
      ['a{2,1}', false],
    ] as const) {
      const r = generate(request(pattern));
      assert.equal(r.status, 400);
      assert.equal((r.body as { field?: string }).field, 'options.pattern');
      const { error } = r.body as { error: string };
      assert.match(error, /^options\.pattern is not a valid HTML pattern \(\^\(\?:pattern\)\$ with the v flag\): \w/);
      assert.equal(error.endsWith(hint), withHint, error);
    }
  });

  it('minBits and the service floor weigh the exact bits', () => {
    const r = generate({ mode: 'password', minBits: 64, options: { pattern: '\\d{12}' } });
    assert.equal(r.status, 400);
    assert.match((r.body as { error: string }).error, /39\.86 bits/);
  });

  it('a named policy may use it: judged at load like any request, then served by its name', () => {
    const pattern = '(?=.*\\d)(?=.*[A-Z])[A-Za-z0-9]{16}';
    const file = JSON.stringify({ policies: { corp: { mode: 'password', options: { pattern } } } });
    const verdict = judgePolicies(file, 64);
    assert.equal(firstFailure(verdict), null);
    const r = generate({ mode: 'password', policy: 'corp', count: 3 }, seededRandom(1), {
      policies: policySetOf(verdict),
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const body = r.body as unknown as Body;
    assert.equal(body.metadata.policy, 'corp');
    for (const { value } of body.results) assert.ok(new RegExp(`^(?:${pattern})$`, 'v').test(value), value);
    const refused = judgePolicies(
      JSON.stringify({ policies: { bad: { mode: 'password', options: { pattern: '[a-z' } } } }),
      0,
    );
    assert.match(
      firstFailure(refused) ?? '',
      /policy "bad", field options\.pattern: options\.pattern is not a valid HTML pattern/,
    );
  });

  it('plans are kept by the text and length asked: the store serves the second request', () => {
    const store = mapStore();
    const asked = { text: '(?=.*\\d)(?!.*ab)[a-z0-9]+', length: 30 };
    const first = planPatternRequest(asked, store);
    assert.equal(planPatternRequest({ ...asked }, store), first);
    assert.notEqual(planPatternRequest({ ...asked, length: 31 }, store), first);
    const refusal = planPatternRequest({ text: '[a-z]{2}', length: undefined }, store);
    assert.equal(planPatternRequest({ text: '[a-z]{2}', length: undefined }, store), refusal);
  });
});
