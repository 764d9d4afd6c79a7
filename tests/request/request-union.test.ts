/**
 * The request schema is a union, one `oneOf` branch per mode (docs/api.md, Validation and the
 * request union). ajv checks that union before the root's own keywords, and a body fails every
 * branch of another mode on `mode`: these are the bodies where that could change which error is
 * reported, each with the error the if/then schema before the union gave (the shared error table
 * covers single errors; these have two).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../lib/request/generate.ts';
import { requestSchema } from '../../lib/generated/schema.generated.ts';

const bad = (error: string, field?: string) => ({
  status: 400,
  body: field === undefined ? { error, status: 400 } : { error, status: 400, field },
});

describe('the request union reports the same first error as before', () => {
  const cases: [string, unknown, ReturnType<typeof bad>][] = [
    [
      'an unknown mode beside an unknown field: the field, as the root checks fields before mode',
      { mode: 'pin', extra: 1 },
      bad('extra is not a field of the request', 'extra'),
    ],
    [
      'a mode of the wrong type beside an unusual field name: the field, not echoed',
      { mode: null, 'a b': 1 },
      bad('the request has a field that is not allowed (allowed: mode, count, minBits, options, policy)'),
    ],
    [
      'no mode beside an unknown field: the field, named before the missing mode (issue 41)',
      { count: 2, extra: 1 },
      bad('extra is not a field of the request', 'extra'),
    ],
    [
      'no mode beside a bad count and no unknown field: mode is required',
      { count: 0 },
      bad('mode is required', 'mode'),
    ],
    [
      'an unknown mode beside a bad count: the mode',
      { mode: 'pin', count: 0 },
      bad('mode must be one of "password", "passphrase"', 'mode'),
    ],
    [
      'a passphrase with a bad option and a bad count: the option, as for a password',
      { mode: 'passphrase', count: 0, options: { wordCount: 3 } },
      bad('options.wordCount must be between 4 and 8', 'options.wordCount'),
    ],
    [
      'a password with a bad option and a bad count: the option',
      { mode: 'password', count: 0, options: { length: 7 } },
      bad('options.length must be between 8 and 128', 'options.length'),
    ],
    [
      'a passphrase with an option of the other mode and an unknown field: the option',
      { mode: 'passphrase', extra: 1, options: { length: 20 } },
      bad('options.length is not an option of mode passphrase: it is an option of mode password', 'options.length'),
    ],
    [
      'a password with an option of the other mode and a bad minBits: the option',
      { mode: 'password', minBits: -1, options: { wordCount: 5 } },
      bad(
        'options.wordCount is not an option of mode password: it is an option of mode passphrase',
        'options.wordCount',
      ),
    ],
    [
      'a passphrase with good options and an unknown field: the field',
      { extra: 1, mode: 'passphrase', options: { wordCount: 5 } },
      bad('extra is not a field of the request', 'extra'),
    ],
    [
      'no mode, a bad count and a bad option: mode is required',
      { count: 0, options: { wordCount: 3 } },
      bad('mode is required', 'mode'),
    ],
    [
      'a passphrase whose options are not an object, and a bad count: the options',
      { mode: 'passphrase', count: 0, options: [] },
      bad('options must be an object', 'options'),
    ],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => assert.deepEqual(generate(input), expected));
  }
});

describe('the request union in spec/generate-request.schema.json', () => {
  const { properties, oneOf } = requestSchema;

  it('has one branch per mode, in the order of mode.enum, each with the options object of its mode', () => {
    assert.deepEqual(
      oneOf.map((branch) => branch.properties.mode.const),
      properties.mode.enum,
    );
    assert.deepEqual(
      oneOf.map((branch) => branch.properties.options.$ref),
      ['#/$defs/PasswordOptions', '#/$defs/PassphraseOptions'],
    );
  });

  it("requires and checks mode first in every branch (lib/request/validate.ts finds the body's own branch by it)", () => {
    for (const branch of oneOf) {
      assert.equal(branch.type, 'object', branch.title);
      assert.deepEqual(branch.required, ['mode'], branch.title);
      assert.deepEqual(Object.keys(branch.properties), ['mode', 'options'], branch.title);
    }
  });

  it('declares every field at the root, so the root alone refuses an unknown one', () => {
    assert.equal(requestSchema.additionalProperties, false);
    for (const branch of oneOf) {
      for (const field of Object.keys(branch.properties)) assert.ok(field in properties, `${branch.title}: ${field}`);
    }
  });
});
