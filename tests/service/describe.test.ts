import { describe as suite, it } from 'node:test';
import assert from 'node:assert/strict';
import { describe } from '../../lib/service/describe.ts';
import { requestSchema } from '../../lib/generated/schema.generated.ts';
import { STRENGTH_LEVELS } from '../../lib/core/entropy.ts';

type Json = Record<string, any>;
/** describe() typed for walking: its document's values are read as `any` and checked by asserts. */
const described = (...args: Parameters<typeof describe>): Json => describe(...args);

suite('describe()', () => {
  const d: Json = describe();

  it('lists every option of both modes with the schema type, default, bounds and enum', () => {
    for (const [mode, def] of [
      ['password', requestSchema.$defs.PasswordOptions],
      ['passphrase', requestSchema.$defs.PassphraseOptions],
    ] as const) {
      const listed = d.modes[mode].options as Json;
      assert.deepEqual(Object.keys(listed), Object.keys(def.properties));
      for (const [name, schema] of Object.entries(def.properties) as [string, Json][]) {
        for (const key of ['type', 'default', 'minimum', 'maximum', 'maxLength', 'enum', 'description']) {
          assert.deepEqual(listed[name][key], schema[key], `${mode}.${name}.${key}`);
        }
      }
    }
    assert.deepEqual(d.modes.password.options.length, {
      type: 'integer',
      default: 24,
      minimum: 8,
      maximum: 128,
      description: 'Number of characters.',
    });
  });

  it('describes the request fields, count limits and body limit', () => {
    assert.deepEqual(d.request.mode.enum, ['password', 'passphrase']);
    assert.equal(d.request.mode.required, true);
    // The root leaves options untyped (each mode's branch types it); the description still says what it is.
    assert.deepEqual(Object.keys(d.request.options), ['type', 'description']);
    assert.equal(d.request.options.type, 'object');
    assert.deepEqual([d.request.count.default, d.request.count.minimum, d.request.count.maximum], [1, 1, 20]);
    assert.deepEqual(d.limits.count, { minimum: 1, maximum: 20 });
    assert.equal(d.limits.bodyBytes, 16384);
  });

  it('publishes the character sets, the ambiguous set and every word list with its source, size and SHA-256', () => {
    assert.deepEqual(
      d.modes.password.characterClasses.map((c: Json) => [c.name, c.size]),
      [
        ['lowercase', 26],
        ['uppercase', 26],
        ['numbers', 10],
        ['symbols', 23],
      ],
    );
    assert.equal(d.modes.password.characterClasses[3].characters, '!@#$%^&*()-_=+[]{};:,.?');
    assert.equal(d.modes.password.ambiguousCharacters, '0O1Il5S8B');
    const lists = d.modes.passphrase.wordLists;
    assert.deepEqual(Object.keys(lists), requestSchema.$defs.PassphraseOptions.properties.wordList.enum);
    assert.deepEqual(lists['eff-large'], {
      name: 'EFF large wordlist',
      language: 'English',
      size: 7772,
      sourceSize: 7776,
      excludedWords: ['drop-down', 'felt-tip', 't-shirt', 'yo-yo'],
      bitsPerWord: 12.924,
      sha256: 'addd35536511597a02fa0a9ff1e5284677b8883b83e986e43f15a3db996b903e',
      letterCase: true,
      space: ' ',
      license: 'CC BY 3.0 US',
      source: 'EFF large wordlist by the Electronic Frontier Foundation, https://www.eff.org/dice',
    });
    for (const [id, list] of Object.entries<Json>(lists)) {
      if (id === 'eff-large') continue;
      assert.match(list.name, /^BIP-39 /);
      assert.deepEqual([list.size, list.sourceSize, list.bitsPerWord, list.license], [2048, 2048, 11, 'MIT'], id);
      assert.deepEqual(list.excludedWords, [], id);
      assert.match(list.sha256, /^[0-9a-f]{64}$/);
      assert.match(list.source, /bitcoin\/bips\/tree\/7fe0b034ec967b52a5a28276419117326df93263\/bip-0039$/);
    }
    assert.equal(lists['bip39-japanese'].space, '\u3000');
    assert.equal(lists['bip39-korean'].letterCase, false);
    assert.equal(lists['bip39-czech'].letterCase, true);
    // The 1.0.0 shape of the default list stays, for clients that read it.
    assert.deepEqual(d.modes.passphrase.wordlist, {
      name: 'EFF large wordlist',
      size: 7772,
      sourceSize: 7776,
      excludedWords: ['drop-down', 'felt-tip', 't-shirt', 'yo-yo'],
      bitsPerWord: 12.924,
      credit: 'EFF large wordlist by the Electronic Frontier Foundation, https://www.eff.org/dice',
      license: 'CC BY 3.0 US',
    });
    assert.match(d.modes.passphrase.lengths, /code points of the NFC output, separators and number included/);
    assert.deepEqual(d.modes.passphrase.separators, { hyphen: '-', underscore: '_', dot: '.', space: ' ' });
  });

  it('publishes the drawn separators with their sets: the digits and the symbol class', () => {
    assert.deepEqual(d.modes.passphrase.randomSeparators, { digit: '0123456789', symbol: '!@#$%^&*()-_=+[]{};:,.?' });
    assert.equal(d.modes.passphrase.randomSeparators.symbol, d.modes.password.characterClasses[3].characters);
    assert.deepEqual(
      [...Object.keys(d.modes.passphrase.separators), ...Object.keys(d.modes.passphrase.randomSeparators)],
      requestSchema.$defs.PassphraseOptions.properties.separator.enum,
      'every separator of the schema is described, once',
    );
  });

  it('describes passwordRules: limits from the parser and the plan, exclusivity from the schema', () => {
    const rules = d.modes.password.passwordRules;
    assert.equal(rules.maxLength, requestSchema.$defs.PasswordOptions.properties.passwordRules.maxLength);
    assert.deepEqual(rules.lengths, { minimum: 8, maximum: 128, default: 24 });
    assert.equal(rules.maxRequiredSets, 8);
    assert.deepEqual(rules.identifiers, ['upper', 'lower', 'digit', 'special', 'ascii-printable', 'unicode']);
    assert.deepEqual(rules.exclusiveWith, [
      'includeLowercase',
      'includeUppercase',
      'includeNumbers',
      'includeSymbols',
      'avoidAmbiguous',
      'excludedCharacters',
      'minLowercase',
      'minUppercase',
      'minNumbers',
      'minSymbols',
      'maxLowercase',
      'maxUppercase',
      'maxNumbers',
      'maxSymbols',
      'minClasses',
      'firstCharacter',
      'lastCharacter',
      'maxRepeating',
      'maxSequential',
    ]);
    assert.deepEqual(d.modes.password.options.passwordRules, {
      type: 'string',
      maxLength: 1024,
      description: requestSchema.$defs.PasswordOptions.properties.passwordRules.description,
    });
  });

  it('describes minBits and publishes the service floor (0 by default, else the setting)', () => {
    assert.deepEqual(d.request.minBits, { ...requestSchema.properties.minBits });
    assert.equal(d.limits.minEntropyBits, 0);
    assert.equal(described({ minEntropyBits: 64 }).limits.minEntropyBits, 64);
    assert.match(d.entropy.floor, /higher of its minBits and limits\.minEntropyBits/);
  });

  it('publishes the label table', () => {
    assert.deepEqual(
      d.entropy.labels,
      STRENGTH_LEVELS.map((s) => ({ ...s })),
    );
  });

  it('states the configured rate limit, 20 per minute by default', () => {
    assert.equal(d.limits.rateLimit.requestsPerMinute, 20);
    assert.equal(described({ rateLimitPerMinute: 600 }).limits.rateLimit.requestsPerMinute, 600);
  });

  it('is plain JSON (round-trips unchanged) and a fresh object per call', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(d)), d);
    const a: Json = describe();
    a.limits.bodyBytes = 1;
    a.modes.passphrase.options.separator.enum.push('tab');
    assert.equal(described().limits.bodyBytes, 16384);
    assert.deepEqual(requestSchema.$defs.PassphraseOptions.properties.separator.enum, [
      'hyphen',
      'underscore',
      'dot',
      'space',
      'digit',
      'symbol',
    ]);
  });
});
