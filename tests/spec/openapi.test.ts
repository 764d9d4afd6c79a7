/**
 * spec/openapi.json: generated from the schemas and never stale, the embedded schemas are the
 * source files, every example is valid, and the document says what the contract requires.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  COMPONENTS_REF,
  DEFS_REF,
  SCHEMA_FILES,
  buildOpenApi,
  buildOpenApiJson,
  embeddedSchemas,
  rewriteRefs,
} from '../../spec/openapi.ts';
import {
  AMBIGUOUS_CHARACTERS,
  CHARACTER_CLASSES,
  DROPPED_WORDS,
  STRENGTH_LEVELS,
  WORDLIST,
  WORD_LISTS,
  passphraseBits,
} from '../../lib/core/index.ts';
import { describe as describeService } from '../../lib/service/describe.ts';
import { BODY_LIMIT_BYTES } from '../../lib/service/limits.ts';
import { documentedStatuses, openapi, validatorAt } from '../helpers/contract.ts';
import { POSTMAN_FILES } from '../../lib/http/assets.ts';
import { ROOT } from '../helpers/server.ts';
import { LIMITS, span } from '../helpers/limits.ts';

type Json = { [key: string]: unknown };

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');
const source = (file: string) => JSON.parse(read(`spec/${file}`)) as Json;
const schemas = (openapi.components as Json).schemas as Json;

/** Undoes embeddedSchemas() for one file: the file as it would read from the document. */
function reassemble(name: string, file: string): Json {
  const { $schema: _s, $id: _i, ...expected } = source(file);
  const defs = (expected.$defs ?? {}) as Json;
  const rebuilt: Json = rewriteRefs(schemas[name] as Json, COMPONENTS_REF, DEFS_REF);
  if (Object.keys(defs).length > 0) {
    rebuilt.$defs = Object.fromEntries(
      Object.keys(defs).map((d) => [d, rewriteRefs(schemas[d], COMPONENTS_REF, DEFS_REF)]),
    );
  }
  return rebuilt;
}

describe('spec/openapi.json', () => {
  it('is the committed output of spec/openapi.ts (no drift from the schemas or describe())', () => {
    assert.equal(
      read('spec/openapi.json'),
      buildOpenApiJson(),
      'stale: run `npm run build` and commit spec/openapi.json',
    );
  });

  it('embeds each schema file unchanged apart from $id/$schema and its $defs hoisted to components', () => {
    for (const [name, file] of Object.entries(SCHEMA_FILES)) {
      const { $schema: _s, $id: _i, ...expected } = source(file);
      assert.deepEqual(reassemble(name, file), expected, `${name} differs from spec/${file}`);
    }
  });

  it('detects a changed schema (the deep-equality check can fail)', () => {
    const tampered = structuredClone(schemas.PasswordOptions) as { properties: { length: { maximum: number } } };
    tampered.properties.length.maximum = LIMITS.length.maximum + 1;
    const original = source(SCHEMA_FILES.GenerateRequest).$defs as { PasswordOptions: unknown };
    assert.notDeepEqual(rewriteRefs(tampered, COMPONENTS_REF, DEFS_REF), original.PasswordOptions);
  });

  it('embeds only what embeddedSchemas() produces, plus the three service-body schemas', () => {
    assert.deepEqual(
      Object.keys(schemas).sort(),
      [...Object.keys(embeddedSchemas()), 'GeneratorDescription', 'Health', 'Readiness'].sort(),
    );
    assert.doesNotMatch(read('spec/openapi.json'), /"#\/\$defs\//, 'a #/$defs/ ref is left over');
  });

  it('is OpenAPI 3.1.0 with a server a user can change, defaulting to http://127.0.0.1:8080', () => {
    assert.equal(openapi.openapi, '3.1.0');
    const [server] = openapi.servers as { url: string; variables: Record<string, { default: string }> }[];
    const url = server.url.replace(/\{(\w+)\}/g, (_, v: string) => server.variables[v].default);
    assert.equal(url, 'http://127.0.0.1:8080');
  });

  it('documents every endpoint with every status it can return', () => {
    const expected = [
      'GET / 200',
      'GET / 405',
      'GET /health 200',
      'GET /health 405',
      'GET /ready 200',
      'GET /ready 503',
      'GET /ready 405',
      'GET /generate 200',
      'GET /generate 405',
      'POST /generate 200',
      'POST /generate 400',
      'POST /generate 401',
      'POST /generate 405',
      'POST /generate 413',
      'POST /generate 429',
      'POST /generate 503',
      'GET /openapi.json 200',
      'GET /openapi.json 405',
      'GET /postman/{file} 200',
      'GET /postman/{file} 404',
      'GET /postman/{file} 405',
    ];
    assert.deepEqual(documentedStatuses().sort(), expected.sort());
    const responses = (openapi.components as Json).responses as Json;
    assert.ok(responses.NotFound && responses.MethodNotAllowed, 'unknown paths/methods are documented');
  });

  it('requires X-Api-Key on POST /generate only', () => {
    const scheme = ((openapi.components as Json).securitySchemes as Json).ApiKey;
    assert.deepEqual(
      { ...(scheme as Json), description: undefined },
      { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: undefined },
    );
    for (const [path, item] of Object.entries(openapi.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const expected = path === '/generate' && method === 'post' ? [{ ApiKey: [] }] : [];
        assert.deepEqual((op as Json).security, expected, `${method} ${path}`);
      }
    }
  });

  it('puts the rate-limit and no-store headers on every response and Retry-After on 429 only', () => {
    const responses = (openapi.components as Json).responses as Json;
    const all: [string, Json][] = [];
    for (const [path, item] of Object.entries(openapi.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        for (const [status, r] of Object.entries((op as Json).responses as Json)) {
          const ref = (r as Json).$ref as string | undefined;
          all.push([`${method} ${path} ${status}`, ref ? (responses[ref.split('/').pop()!] as Json) : (r as Json)]);
        }
      }
    }
    for (const [name, r] of Object.entries(responses)) all.push([name, r as Json]);
    for (const [where, r] of all) {
      const names = Object.keys(r.headers as Json);
      for (const h of [
        'Cache-Control',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'RateLimit-Policy',
        'RateLimit',
      ]) {
        assert.ok(names.includes(h), `${where} lacks ${h}`);
      }
      assert.equal(
        names.includes('Retry-After'),
        where.endsWith(' 429') || where === 'TooManyRequests',
        `${where}: Retry-After`,
      );
    }
  });

  it('states the limits, the entropy method and the label table in the descriptions', () => {
    const info = (openapi.info as Json).description as string;
    for (const s of STRENGTH_LEVELS) assert.match(info, new RegExp(`\\| ${s.level} \\| ${s.label} \\|`));
    assert.match(info, new RegExp(`${BODY_LIMIT_BYTES} bytes`));
    assert.ok(info.includes(`${LIMITS.rateLimitPerMinute} per minute`), 'rate limit');
    assert.ok(info.includes(`| password length | ${span(LIMITS.length)} |`), 'password length');
    assert.ok(info.includes(`| passphrase wordCount | ${span(LIMITS.wordCount)} |`), 'wordCount');
    assert.match(info, /inclusion-exclusion/);
    assert.ok(info.includes(`log2(${LIMITS.wordlist.size})`), 'the word list size in the passphrase formula');
    const get = ((openapi.paths as Json)['/generate'] as Json).get as Json;
    for (const s of STRENGTH_LEVELS) assert.match(get.description as string, new RegExp(`\\| ${s.label} \\|`));
  });

  it("has schema descriptions whose figures are the generator's (the JSON files cannot compute them)", () => {
    const request = source(SCHEMA_FILES.GenerateRequest) as {
      $defs: Record<string, { description: string; properties: Record<string, { description: string }> }>;
    };
    const { PasswordOptions: password, PassphraseOptions: passphrase } = request.$defs;
    const words = `without its ${DROPPED_WORDS.length} hyphenated words (${WORDLIST.length.toLocaleString('en')} words)`;
    assert.ok(passphrase.description.includes(words), `PassphraseOptions: ${words}`);
    const lists = `(${WORDLIST.length.toLocaleString('en')} words, ${Math.log2(WORDLIST.length).toFixed(2)} bits each), or one of the ten BIP-39 lists (2,048 words each, ${Math.log2(WORD_LISTS['bip39-english'].words.length)} bits each)`;
    assert.ok(passphrase.properties.wordList.description.includes(lists), `wordList: ${lists}`);
    assert.equal(Object.values(WORD_LISTS).filter((l) => l.id.startsWith('bip39-')).length, 10);
    const caseless = Object.values(WORD_LISTS)
      .filter((l) => !l.letterCase)
      .map((l) => l.id);
    assert.ok(passphrase.properties.capitalize.description.includes(`(${caseless.join(', ')})`), 'capitalize');
    const numberBits = `(+${passphraseBits(WORDLIST.length, 0, true).toFixed(2)} bits)`;
    assert.ok(passphrase.properties.addNumber.description.includes(numberBits), `addNumber: ${numberBits}`);
    assert.ok(password.properties.avoidAmbiguous.description.includes(AMBIGUOUS_CHARACTERS), 'avoidAmbiguous');
    const symbols = CHARACTER_CLASSES.find((c) => c.name === 'symbols');
    assert.ok(symbols && password.properties.includeSymbols.description.includes(symbols.chars), 'includeSymbols');
    const response = source(SCHEMA_FILES.GenerateResponse) as { $defs: { Entropy: { description: string } } };
    const labels = STRENGTH_LEVELS.map((s) =>
      s.maxBits === null ? `${s.label} >= ${s.minBits}` : `${s.label} < ${s.maxBits}`,
    ).join(', ');
    assert.ok(response.$defs.Entropy.description.includes(labels), `Entropy: ${labels}`);
  });

  it('shows the live describe() body as the GET /generate example, valid against its schema', () => {
    const media = (((((openapi.paths as Json)['/generate'] as Json).get as Json).responses as Json)['200'] as Json)
      .content as Json;
    const example = ((media['application/json'] as Json).examples as Json).default as Json;
    assert.deepEqual(example.value, describeService());
  });

  it('lists the Postman files in spec/ as the values of /postman/{file}', () => {
    const param = ((((openapi.paths as Json)['/postman/{file}'] as Json).get as Json).parameters as Json[])[0];
    assert.deepEqual((param.schema as Json).enum, [...POSTMAN_FILES]);
    // Every Postman file in spec/ is listed (and so served and documented), and nothing else.
    assert.deepEqual(
      readdirSync(join(ROOT, 'spec'))
        .filter((f) => /\.postman_(collection|environment)\.json$/.test(f))
        .sort(),
      [...POSTMAN_FILES],
    );
  });

  it('has examples that all validate against their schemas (ajv, strict 2020-12)', () => {
    let checked = 0;
    const walk = (node: unknown, pointer: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${pointer}/${i}`));
      if (node === null || typeof node !== 'object') return;
      const obj = node as Json;
      // Media types and parameters: `schema` next to named `examples`.
      if (obj.schema && obj.examples && !Array.isArray(obj.examples)) {
        const v = validatorAt(`${pointer}/schema`);
        for (const [name, ex] of Object.entries(obj.examples as Json)) {
          assert.ok(v((ex as Json).value), `${pointer}/examples/${name}: ${JSON.stringify(v.errors)}`);
          checked++;
        }
      }
      // Schemas: `examples` is an array of instances.
      if (Array.isArray(obj.examples) && (obj.type || obj.$ref || obj.const)) {
        const v = validatorAt(pointer);
        for (const ex of obj.examples) {
          assert.ok(v(ex), `${pointer}/examples: ${JSON.stringify(ex)} ${JSON.stringify(v.errors)}`);
          checked++;
        }
      }
      for (const [k, v] of Object.entries(obj)) walk(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    };
    walk(openapi.paths, '/paths');
    walk(openapi.components, '/components');
    assert.ok(checked >= 25, `only ${checked} examples checked`);
  });

  it('uses `examples`, never the deprecated `example`', () => {
    const text = read('spec/openapi.json');
    assert.doesNotMatch(text, /"example"\s*:/);
    assert.deepEqual(buildOpenApi(), JSON.parse(text));
  });

  it('validates requests through the embedded copy as the server does (if/then per mode)', () => {
    const v = validatorAt('/components/schemas/GenerateRequest');
    const { count, length, wordCount } = LIMITS;
    assert.ok(v({ mode: 'password', options: { length: length.minimum } }));
    assert.ok(
      v({ mode: 'passphrase', count: count.maximum, options: { wordCount: wordCount.maximum, separator: 'space' } }),
    );
    assert.ok(!v({ mode: 'password', options: { length: length.minimum - 1 } }));
    assert.ok(!v({ mode: 'password', options: { wordCount: wordCount.minimum } }));
    assert.ok(!v({ mode: 'passphrase', count: count.maximum + 1 }));
  });
});
