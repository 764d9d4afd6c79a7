import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { generate } from '../../lib/request/generate.ts';
import { validateRequest } from '../../lib/request/validate.ts';
import { requestSchema } from '../../lib/generated/schema.generated.ts';
import validateSchema from '../../lib/generated/validator.generated.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, VALIDATOR_OPTIONS } from '../../spec/build.ts';
import { ERROR_CASES } from '../helpers/error-cases.ts';
import { schemaRequest } from '../helpers/schema-requests.ts';

describe('validateRequest: the shared error table', () => {
  for (const c of ERROR_CASES) {
    it(`400 for ${c.name}`, () => {
      assert.deepEqual(generate(c.input), { status: 400, body: c.expected });
    });
  }
});

/** Every integer field, at and around the bounds the schema states. */
const integerFields = [
  { mode: 'password', path: 'count', schema: requestSchema.properties.count },
  { mode: 'password', path: 'options.length', schema: requestSchema.$defs.PasswordOptions.properties.length },
  { mode: 'passphrase', path: 'options.wordCount', schema: requestSchema.$defs.PassphraseOptions.properties.wordCount },
] as const;

function requestWith(mode: string, path: string, value: unknown): unknown {
  return path === 'count' ? { mode, count: value } : { mode, options: { [path.slice(8)]: value } };
}

describe('validateRequest: integer bounds read from the schema', () => {
  for (const { mode, path, schema } of integerFields) {
    const { minimum: min, maximum: max } = schema;
    const range = `${path} must be between ${min} and ${max}`;
    const typed = `${path} must be an integer between ${min} and ${max}`;
    it(`${path}: accepts ${min} and ${max}`, () => {
      for (const v of [min, max]) assert.equal(generate(requestWith(mode, path, v)).status, 200);
    });
    const bad: [string, unknown, string][] = [
      ['min-1', min - 1, range],
      ['max+1', max + 1, range],
      ['non-integer', min + 0.5, typed],
      ['string', String(min), typed],
      ['null', null, typed],
      ['boolean', true, typed],
      ['object', { value: min }, typed],
      ['NaN (JS only)', NaN, typed],
      ['Infinity (JS only)', Infinity, typed],
    ];
    for (const [name, value, message] of bad) {
      it(`${path}: 400 for ${name}`, () => {
        assert.deepEqual(generate(requestWith(mode, path, value)), {
          status: 400,
          body: { error: message, status: 400, field: path },
        });
      });
    }
  }
});

describe('validateRequest: defaults and normalisation', () => {
  it('fills every password default from the schema', () => {
    const r = validateRequest({ mode: 'password' });
    assert.ok(r.ok);
    assert.deepEqual(r.request, {
      mode: 'password',
      count: 1,
      minBits: 0,
      options: {
        length: 24,
        includeLowercase: true,
        includeUppercase: true,
        includeNumbers: true,
        includeSymbols: false,
        avoidAmbiguous: false,
        excludedCharacters: '',
        // No schema default: what they default to depends on other options (validate.ts).
        minLowercase: undefined,
        minUppercase: undefined,
        minNumbers: undefined,
        minSymbols: undefined,
        maxLowercase: undefined,
        maxUppercase: undefined,
        maxNumbers: undefined,
        maxSymbols: undefined,
        minClasses: undefined,
        firstCharacter: undefined,
        lastCharacter: undefined,
        maxRepeating: undefined,
        maxSequential: undefined,
        passwordRules: undefined,
        pattern: undefined,
      },
      rules: null,
      pattern: null,
    });
  });

  it('fills every passphrase default from the schema', () => {
    const r = validateRequest({ mode: 'passphrase', options: {} });
    assert.ok(r.ok);
    assert.deepEqual(r.request, {
      mode: 'passphrase',
      count: 1,
      minBits: 0,
      options: {
        wordCount: 4,
        separator: 'hyphen',
        capitalize: false,
        addNumber: false,
        wordList: 'eff-large',
        minLength: undefined,
        maxLength: undefined,
      },
    });
  });

  it('hands a passwordRules request its length exactly as given: undefined without one, not the schema default 24', () => {
    const without = validateRequest({ mode: 'password', minBits: 12.5, options: { passwordRules: 'minlength: 8' } });
    assert.ok(without.ok && without.request.mode === 'password');
    assert.deepEqual(without.request.rules, { text: 'minlength: 8', length: undefined });
    assert.equal(without.request.minBits, 12.5);
    const given = validateRequest({ mode: 'password', options: { passwordRules: 'minlength: 8', length: 24 } });
    assert.ok(given.ok && given.request.mode === 'password');
    assert.deepEqual(given.request.rules, { text: 'minlength: 8', length: 24 });
    // So the rule's own default applies: maxlength 16 gets 16, where 24 would be refused.
    const r = generate({ mode: 'password', options: { passwordRules: 'maxlength: 16' } });
    assert.equal(r.status === 200 && r.body.value.length, 16);
  });

  it('treats an undefined property (JS only) as omitted', () => {
    const r = validateRequest({ mode: 'password', count: undefined, options: { length: undefined } });
    assert.ok(r.ok && r.request.mode === 'password' && r.request.count === 1 && r.request.options.length === 24);
    // An undefined passwordRules is no rule: the class options beside it are fine.
    const rules = validateRequest({
      mode: 'password',
      minBits: undefined,
      options: { passwordRules: undefined, includeSymbols: true },
    });
    assert.ok(
      rules.ok && rules.request.mode === 'password' && rules.request.rules === null && rules.request.minBits === 0,
    );
  });

  it('never mutates the input', () => {
    const input = { mode: 'password', options: { length: 12 } };
    const copy = structuredClone(input);
    generate(input);
    assert.deepEqual(input, copy);
    const frozen = Object.freeze({ mode: 'passphrase', options: Object.freeze({}) });
    assert.equal(generate(frozen).status, 200);
  });

  it('reads a getter once, so what is validated is what is used', () => {
    let reads = 0;
    const options = {
      get length() {
        reads++;
        return reads === 1 ? 10 : 5000;
      },
    };
    const r = generate({ mode: 'password', options });
    assert.equal(r.status, 200);
    assert.equal(reads, 1);
    assert.equal(r.status === 200 && r.body.value.length, 10);
  });

  it('answers 400 for an input whose properties throw', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('boom');
        },
      },
    );
    assert.deepEqual(generate(hostile), { status: 400, body: { error: 'the request could not be read', status: 400 } });
    const getter = {
      mode: 'password',
      get options() {
        throw new Error('boom');
      },
    };
    assert.deepEqual(generate(getter), { status: 400, body: { error: 'the request could not be read', status: 400 } });
  });

  it('does not echo an unusual field name, and still says what is wrong', () => {
    const long = 'x'.repeat(100);
    assert.deepEqual(generate({ mode: 'password', [long]: 1 }).body, {
      error: 'the request has a field that is not allowed (allowed: mode, count, minBits, options, policy)',
      status: 400,
    });
    assert.deepEqual(generate({ mode: 'password', options: { 'a b"<script>': 1 } }).body, {
      error: 'options has a key that is not an option of mode password',
      status: 400,
      field: 'options',
    });
  });

  it('leaves Object.prototype untouched by __proto__ and constructor keys', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    for (const text of [
      '{"mode":"password","__proto__":{"polluted":1}}',
      '{"mode":"password","options":{"__proto__":{"polluted":1}}}',
      '{"mode":"password","constructor":{"prototype":{"polluted":1}}}',
    ]) {
      assert.equal(generate(JSON.parse(text)).status, 400);
    }
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('validateRequest: the password constraints, between option values (issue 30)', () => {
  const accepts = (options: Record<string, unknown>) => {
    const r = validateRequest({ mode: 'password', options });
    assert.ok(r.ok, JSON.stringify(r));
    assert.ok(r.request.mode === 'password');
    return r.request.options;
  };
  const refuses = (options: Record<string, unknown>, field: string, words: RegExp) => {
    const r = validateRequest({ mode: 'password', options });
    assert.ok(!r.ok, JSON.stringify(options));
    assert.equal(r.error.field, field, r.error.error);
    assert.equal(r.error.status, 400);
    assert.match(r.error.error, words);
  };

  it('hands every constraint on as given, with no value filled in (the core applies the defaults)', () => {
    const options = {
      length: 16,
      includeSymbols: true,
      minLowercase: 0,
      minUppercase: 3,
      minNumbers: 2,
      minSymbols: 2,
      maxLowercase: 9,
      maxUppercase: 3,
      maxNumbers: 4,
      maxSymbols: 2,
      minClasses: 4,
      firstCharacter: ['uppercase', 'lowercase'],
      lastCharacter: ['symbols'],
      maxRepeating: 2,
      maxSequential: 3,
    };
    assert.deepEqual(
      { ...accepts(options) },
      {
        ...options,
        avoidAmbiguous: false,
        excludedCharacters: '',
        includeLowercase: true,
        includeUppercase: true,
        includeNumbers: true,
        passwordRules: undefined,
        pattern: undefined,
      },
    );
  });

  it('accepts minimums up to length exactly, counting 1 for each included class without its own', () => {
    accepts({ length: 8, minNumbers: 6 }); // 1 + 1 + 6
    refuses(
      { length: 8, minNumbers: 7 },
      'options.minNumbers',
      /minimums to 9 \(lowercase 1, uppercase 1, numbers 7; an included class without a minimum of its own needs 1\)/,
    );
    accepts({ length: 8, minNumbers: 8, minLowercase: 0, minUppercase: 0 });
    accepts({ length: 8, minNumbers: 8, minClasses: 1 }); // the others default to 0
    refuses(
      { length: 8, minNumbers: 9, minClasses: 1 },
      'options.minNumbers',
      /at most options\.length \(8\).*cannot hold 9 digits/,
    );
  });

  it('names the last given minimum that pushes the sum over, after the defaults', () => {
    // lowercase 5 (given) + uppercase 1 (default) + numbers 3 (given) = 9 > 8: numbers pushes it over,
    // though in the pool's order uppercase's default is reached first.
    refuses(
      { length: 8, minLowercase: 5, minNumbers: 3 },
      'options.minNumbers',
      /brings the included classes' minimums to 9/,
    );
    refuses(
      { length: 8, minLowercase: 8, minNumbers: 0 },
      'options.minLowercase',
      /minimums to 9 \(lowercase 8, uppercase 1, numbers 0;/,
    );
    refuses({ length: 10, minUppercase: 6, minLowercase: 5 }, 'options.minUppercase', /minimums to 12/);
  });

  it('refuses a minimum, first or last class of a class left out, whatever the value', () => {
    for (const [option, include] of [
      ['minLowercase', 'includeLowercase'],
      ['minUppercase', 'includeUppercase'],
      ['minNumbers', 'includeNumbers'],
      ['minSymbols', 'includeSymbols'],
    ] as const) {
      for (const value of [0, 1, 5]) {
        refuses(
          { [include]: false, includeSymbols: include !== 'includeSymbols', [option]: value },
          `options.${option}`,
          new RegExp(`set options\\.${include} to true`),
        );
      }
    }
    refuses(
      { lastCharacter: ['numbers', 'symbols'] },
      'options.lastCharacter',
      /names symbols, which this request does not include/,
    );
    refuses(
      { includeUppercase: false, firstCharacter: ['uppercase'] },
      'options.firstCharacter',
      /options\.includeUppercase to true/,
    );
    accepts({
      includeSymbols: true,
      firstCharacter: ['symbols'],
      lastCharacter: ['lowercase', 'uppercase', 'numbers', 'symbols'],
    });
  });

  it('bounds minClasses by the included classes and by the room the minimums leave', () => {
    accepts({ minClasses: 3 });
    accepts({ includeSymbols: true, minClasses: 4, length: 8 });
    refuses({ minClasses: 4 }, 'options.minClasses', /includes 3 classes \(lowercase, uppercase, numbers\)/);
    // 3 of the classes at length 8 with 7 lowercase: one more class needs one more character.
    accepts({ length: 8, minClasses: 2, minLowercase: 7 });
    refuses(
      { length: 8, minClasses: 3, minLowercase: 7 },
      'options.minClasses',
      /at least 9 characters, more than options\.length \(8\)/,
    );
    accepts({ length: 8, minClasses: 3, minLowercase: 6 });
  });

  it('leaves the checks that need the pool to the core, and a request without classes to its own error', () => {
    // Every digit excluded while minNumbers is 0: no value-level contradiction here.
    accepts({ minNumbers: 0, excludedCharacters: '0123456789' });
    const none = validateRequest({
      mode: 'password',
      options: { includeLowercase: false, includeUppercase: false, includeNumbers: false, minClasses: 2 },
    });
    assert.ok(none.ok, 'no class included: the core answers "options must enable at least one"');
  });

  it('reads a list option once: what is validated is what is used', () => {
    let reads = 0;
    const list = ['lowercase'];
    const tricky = new Proxy(list, {
      get(target, key, receiver) {
        if (key === '0') reads++;
        return key === '0' && reads > 1 ? 'symbols' : Reflect.get(target, key, receiver);
      },
    });
    const options = accepts({ firstCharacter: tricky });
    assert.deepEqual(options.firstCharacter, ['lowercase']);
    assert.equal(reads, 1);
    assert.notEqual(options.firstCharacter, tricky, "a copy, not the caller's list");
  });
});

describe('the one validator: the generated code against the published schema', () => {
  type Validator = ((data: unknown) => boolean) & {
    errors?: { instancePath: string; schemaPath: string; keyword: string; params: unknown }[] | null;
  };
  const published = JSON.parse(readFileSync(join(ROOT, 'spec/generate-request.schema.json'), 'utf8')) as object;
  const reference = new Ajv2020(VALIDATOR_OPTIONS).compile(published) as Validator;
  const generated = validateSchema as unknown as Validator;
  const firstError = (v: Validator) => {
    const e = v.errors?.[0];
    return e && { instancePath: e.instancePath, schemaPath: e.schemaPath, keyword: e.keyword, params: e.params };
  };

  // 10,000 bodies (was 50,000, 4.5 s of CPU more): a disagreement that a fraction p of the
  // schema's bodies reach is found with probability 1 - (1 - p)^10,000, 95 % for p = 3e-4; the
  // core fuzz compares the two validators on every body it parses too (20,000 in npm test,
  // 300,000 in the soak), and the seed is new each run.
  it('accepts and rejects exactly what a 2020-12 compilation accepts, with the same first error (10,000 bodies from the schema)', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`fast-check seed ${seed} (FC_SEED=${seed} to replay)`);
    let accepted = 0;
    fc.assert(
      fc.property(schemaRequest, (body) => {
        const expected = reference(body);
        assert.equal(generated(body), expected, JSON.stringify(body));
        if (expected) accepted++;
        else assert.deepEqual(firstError(generated), firstError(reference), JSON.stringify(body));
      }),
      { seed, numRuns: 10_000 },
    );
    console.log(`${accepted} of 10,000 bodies accepted`);
    // About a third are (3,458 of 10,000 in one run; options are mostly of their own mode).
    assert.ok(accepted > 400, `a fair share of accepted bodies (${accepted})`);
  });

  it('has teeth: a validator compiled without one bound of the schema is caught', () => {
    const loose = JSON.parse(JSON.stringify(published)) as {
      $defs: Record<string, { properties: Record<string, Record<string, unknown>> }>;
    };
    const [def, field] = Object.entries(loose.$defs)
      .flatMap(([d, v]) => Object.keys(v.properties).map((f) => [d, f]))
      .find(([d, f]) => 'maximum' in loose.$defs[d].properties[f])!;
    delete loose.$defs[def].properties[field].maximum;
    const mutant = new Ajv2020(VALIDATOR_OPTIONS).compile(loose) as Validator;
    const outcome = fc.check(
      fc.property(schemaRequest, (body) => mutant(body) === reference(body)),
      // endOnFailure: the verdict is all this needs; shrinking the counterexample took most of
      // the test's 2.6 s.
      { seed: 1, numRuns: 50_000, endOnFailure: true },
    );
    assert.equal(outcome.failed, true, `${def}.${field} without its maximum went unnoticed`);
    process.stdout.write(`the mutant was caught at body ${outcome.numRuns} of at most 50,000\n`);
  });

  it('agrees on every input of the shared error table', () => {
    let rejected = 0;
    for (const c of ERROR_CASES) {
      const body = JSON.parse(JSON.stringify(c.input)) as unknown;
      const expected = reference(body);
      assert.equal(generated(body), expected, c.name);
      // The rest are valid to the schema and refused by the pool rules (password.ts).
      if (!expected) {
        rejected++;
        assert.deepEqual(firstError(generated), firstError(reference), c.name);
      }
    }
    assert.ok(rejected > 40, String(rejected));
  });
});

describe('generate never throws (property, fast-check, seed printed)', () => {
  it('returns a 200 or a well-formed 400 for any JSON-like value', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`fast-check seed ${seed} (FC_SEED=${seed} to replay)`);
    const field = fc.oneof(
      fc.constantFrom('mode', 'count', 'options', 'length', 'wordCount', 'separator', '__proto__'),
      fc.string(),
    );
    const value = fc.oneof(fc.anything(), fc.constantFrom('password', 'passphrase', 8, 24, 129, true, '', null));
    const request = fc.dictionary(field, fc.oneof(value, fc.dictionary(field, value)));
    fc.assert(
      fc.property(fc.oneof(request, fc.anything()), (input) => {
        const r = generate(input);
        if (r.status === 200) return r.body.results.length === r.body.count;
        return r.status === 400 && typeof r.body.error === 'string' && r.body.status === 400;
      }),
      { seed, numRuns: 3000 },
    );
  });
});
