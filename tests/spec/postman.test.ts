/**
 * The Postman collection and environment in spec/: v2.1 shape, one request per endpoint and
 * mode plus the main error cases, every request with tests, the key only as {{apiKey}}, and
 * no secret in either file.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { matchPath } from '../helpers/contract.ts';
import { LIMITS } from '../helpers/limits.ts';

type Json = { [key: string]: any };
const read = (file: string): Json => JSON.parse(readFileSync(new URL(`../../spec/${file}`, import.meta.url), 'utf8'));
const collection = read('credential-generator.postman_collection.json');
const environment = read('credential-generator.postman_environment.json');

const requests = collection.item as Json[];
const bodyOf = (item: Json) => (item.request.body ? JSON.parse(item.request.body.raw) : undefined);
const testCode = (item: Json) =>
  item.event
    .filter((e: Json) => e.listen === 'test')
    .flatMap((e: Json) => e.script.exec)
    .join('\n');

describe('Postman collection', () => {
  it('is a v2.1 collection with the variables baseUrl and apiKey (empty)', () => {
    assert.equal(collection.info.schema, 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json');
    assert.match(collection.info._postman_id, /^[0-9a-f-]{36}$/);
    const vars = Object.fromEntries(collection.variable.map((v: Json) => [v.key, v.value]));
    assert.deepEqual(vars, { baseUrl: 'http://127.0.0.1:8080', apiKey: '' });
  });

  it('sends {{apiKey}} in the X-Api-Key header through collection-level apikey auth', () => {
    assert.equal(collection.auth.type, 'apikey');
    const auth = Object.fromEntries(collection.auth.apikey.map((p: Json) => [p.key, p.value]));
    assert.deepEqual(auth, { key: 'X-Api-Key', value: '{{apiKey}}', in: 'header' });
  });

  it('has one request per endpoint and mode plus the main error cases', () => {
    const seen = requests.map((item) => {
      const body = bodyOf(item);
      return [
        item.request.method,
        `/${item.request.url.path.join('/')}`,
        body?.mode ?? '',
        body?.count ?? '',
        item.request.auth?.type ?? 'inherit',
      ]
        .join(' ')
        .trim();
    });
    assert.deepEqual(seen, [
      'GET /health   noauth',
      'GET /ready   noauth',
      'GET /generate   noauth',
      'GET /openapi.json   noauth',
      'POST /generate password  inherit',
      'POST /generate passphrase  inherit',
      `POST /generate password ${LIMITS.count.maximum} inherit`,
      'POST /generate password 3 inherit',
      'POST /generate passphrase  inherit',
      'POST /generate passphrase  inherit',
      'POST /generate password  inherit',
      'POST /generate passphrase  inherit',
      'POST /generate password  noauth',
      'POST /generate password  inherit',
      'POST /generate password 3 inherit',
      'POST /generate password  inherit',
      'POST /generate password 3 inherit',
      'POST /generate password 3 inherit',
    ]);
    for (const item of requests) {
      assert.equal(item.request.url.raw, `{{baseUrl}}/${item.request.url.path.join('/')}`);
      assert.ok(matchPath(`/${item.request.url.path.join('/')}`), `${item.name}: path not in openapi.json`);
    }
    assert.equal(typeof bodyOf(requests[7]).options.passwordRules, 'string', 'a password to site rules');
    assert.equal(bodyOf(requests[8]).options.separator, 'digit', 'a passphrase with digit separators');
    assert.deepEqual(bodyOf(requests[9]).options, { wordList: 'bip39-spanish', maxLength: 24 }, 'a list and a bound');
    assert.equal(bodyOf(requests[10]).options.length, LIMITS.length.minimum - 1, 'bad length case');
    assert.equal(typeof bodyOf(requests[11]).minBits, 'number', 'a minBits 400');
    assert.equal(typeof bodyOf(requests[13]).policy, 'string', 'a named policy (unknown: a 400 on policy)');
    assert.deepEqual(
      bodyOf(requests[14]).options.firstCharacter,
      ['lowercase', 'uppercase'],
      'password constraints: minimums and a letter first',
    );
    assert.equal(bodyOf(requests[15]).options.minSymbols, 6, 'minimums above length');
    assert.equal(bodyOf(requests[16]).options.maxSymbols, 2, 'password constraints: maximums');
    assert.equal(typeof bodyOf(requests[17]).options.pattern, 'string', 'a password to a regular expression');
  });

  it('checks status and body shape in every request, and headers after every request', () => {
    for (const item of requests) {
      const code = testCode(item);
      assert.match(code, /pm\.response\.to\.have\.status\(\d{3}\)/, item.name);
      assert.match(code, /pm\.response\.json\(\)/, item.name);
      assert.match(code, /pm\.expect\(body/, item.name);
    }
    assert.match(testCode(requests[7]), /uniform-rules/);
    assert.match(testCode(requests[8]), /separator: 'digit'/);
    assert.match(
      testCode(requests[9]),
      /wordlistId: 'bip39-spanish'[^]*at\.most\(24\)|at\.most\(24\)[^]*wordlistId: 'bip39-spanish'/,
    );
    assert.match(testCode(requests[10]), /options\.length/);
    assert.match(testCode(requests[11]), /minBits: these options give/);
    assert.match(testCode(requests[12]), /WWW-Authenticate/);
    assert.match(testCode(requests[13]), /body\.field\)\.to\.eql\('policy'\)/);
    assert.match(testCode(requests[14]), /metadata\.constraints\)\.to\.eql/);
    assert.match(testCode(requests[15]), /body\.field\)\.to\.eql\('options\.minSymbols'\)/);
    assert.match(testCode(requests[16]), /maximums: \{ numbers: 3, symbols: 2 \}/);
    assert.match(testCode(requests[17]), /entropyMode: 'uniform-pattern'/);
    const common = testCode(collection);
    for (const h of [
      'Cache-Control',
      'no-store',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'RateLimit-Policy',
    ]) {
      assert.ok(common.includes(h), `collection-level test lacks ${h}`);
    }
  });

  it('sends JSON bodies with Content-Type: application/json', () => {
    for (const item of requests.filter((i) => i.request.method === 'POST')) {
      assert.deepEqual(item.request.header, [{ key: 'Content-Type', value: 'application/json' }], item.name);
      assert.equal(item.request.body.options.raw.language, 'json');
    }
  });
});

describe('Postman environment', () => {
  it('holds baseUrl and an empty secret apiKey', () => {
    assert.equal(environment._postman_variable_scope, 'environment');
    assert.deepEqual(environment.values, [
      { key: 'baseUrl', value: 'http://127.0.0.1:8080', type: 'default', enabled: true },
      { key: 'apiKey', value: '', type: 'secret', enabled: true },
    ]);
  });

  it('and neither file carries a key or a generated value', () => {
    for (const text of [JSON.stringify(collection), JSON.stringify(environment)]) {
      assert.doesNotMatch(text, /"X-Api-Key"\s*,\s*"value"\s*:\s*"(?!\{\{apiKey\}\})/);
      assert.doesNotMatch(text, /cgk_[A-Za-z0-9_]{8,}/, 'something shaped like a key (cgk_ prefix)');
      assert.doesNotMatch(text, /"response"\s*:\s*\[\s*\{/, 'saved responses');
    }
  });
});
