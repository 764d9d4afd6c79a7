/**
 * The browser bundle outside the browser: dist/browser/service-api.js is run in a bare
 * `node:vm` context that has no `require`, no `process`, no `module` — only Web Crypto and a
 * `window` — which catches a bundling mistake (a leftover `require`, a Node import, an ESM
 * export in an IIFE) before Chromium does, and fast. On shared seeds it gives the server's
 * body, byte for byte, so the page and the service are one generator (issue 42: in `npm test`,
 * as nanoid runs one suite over both builds). The Chromium suite is home.integration.ts.
 *
 * Reads dist/browser/ only, which `npm test` builds first (build:page, the same bytes as
 * `npm run build:dist`); run alone, it needs one of the two first.
 */
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import vm from 'node:vm';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ERROR_CASES } from '../helpers/error-cases.ts';
import { WORD_LISTS } from '../../lib/core/index.ts';
import { generate as coreGenerate } from '../../lib/request/index.ts';
import { describe as coreDescribe } from '../../lib/service/describe.ts';
import { HOME_CSP } from '../../lib/http/headers.ts';
import { outcomeJson } from '../../lib/http/response-json.ts';
import { LIMITS } from '../helpers/limits.ts';
import { seededFill, seededRandom } from '../helpers/seeded.ts';

const DIST = new URL('../../dist/browser/', import.meta.url);
const BUNDLE = new URL('service-api.js', DIST);
const APP = new URL('app.js', DIST);

/** Budgets with headroom over today's sizes (docs/api.md, The home page, gives them, and
 * tests/deploy/docs-figures.integration.ts holds that table to the build); a jump means the ajv
 * compiler, a word list twice or a Node polyfill got pulled in. Most of service-api.js is the
 * eleven word lists (the page has no network after load, so every list is in the bundle), then
 * the request validator, the passwordrules module (parser, plan, the core's exact engine and
 * its two samplers). app.js, the page's UI, grew with issue 41 (the rule in words, every
 * refusal at its control, the step to Strong). The pattern tier (issue 43: its parser, automata,
 * count and walk, and its request path) added 55.6 KB raw and 13.6 KB gzipped to service-api.js
 * (482,919 and 161,113 bytes before, 538,552 and 174,722 after). */
const BUDGET = { serviceApiRaw: 560_000, serviceApiGzip: 185_000, appRaw: 90_000 };

function readBundle(url: URL): string {
  assert.ok(existsSync(url), `${url.pathname} is missing: run \`npm run build:page\` (or build:dist) first`);
  return readFileSync(url, 'utf8');
}

let serviceApi: string | undefined;
/** A fresh bare context (bareContext's arguments) with service-api.js run in it. */
function withServiceApi(...args: Parameters<typeof bareContext>): ReturnType<typeof bareContext> {
  const context = bareContext(...args);
  context.run((serviceApi ??= readBundle(BUNDLE)));
  return context;
}

type Sandbox = Record<string, unknown>;

/** A fresh context with only what a page would offer the generator: crypto and window/self
 * (a given crypto, e.g. a seeded one, or none; and optionally a document). */
function bareContext(
  withCrypto: boolean | { getRandomValues(b: Uint32Array): Uint32Array } = true,
  document?: object,
): { sandbox: Sandbox; run: (code: string) => unknown } {
  const sandbox: Sandbox =
    withCrypto === true ? { crypto: globalThis.crypto } : withCrypto === false ? {} : { crypto: withCrypto };
  if (document !== undefined) sandbox.document = document;
  sandbox.window = sandbox;
  sandbox.self = sandbox;
  const context = vm.createContext(sandbox, { codeGeneration: { strings: false, wasm: false } });
  // The timeout stops a script that never ends; it counts wall time, so it is sized for a
  // loaded machine (the largest script here takes milliseconds of CPU).
  const run = (code: string): unknown => vm.runInContext(code, context, { timeout: 60_000 });
  return { sandbox, run };
}

/** Runs `expression` inside the context and brings the result out as plain JSON, so that
 * deepEqual compares values and not the other realm's prototypes. */
function jsonIn(run: (code: string) => unknown, expression: string): unknown {
  return JSON.parse(run(`JSON.stringify(${expression})`) as string);
}

const responseSchema = JSON.parse(
  readFileSync(new URL('../../spec/generate-response.schema.json', import.meta.url), 'utf8'),
);
const validateResponse = new Ajv2020({ strict: true, allErrors: true }).compile(responseSchema);

describe('dist/browser/service-api.js (static)', () => {
  let code = '';
  before(() => {
    code = readBundle(BUNDLE);
  });

  it('is a single IIFE with no import, export or require call', () => {
    // After the BIP-39 lists' MIT notice, one comment block (browser/rollup.config.mjs).
    assert.match(
      code,
      /^\/\*!\nThe ten word lists in this folder are part of BIP-39,[^]*?\n\*\/\n\(function \(\) \{\n\s+'use strict';/,
    );
    assert.ok(code.includes('Permission is hereby granted, free of charge'), 'the MIT permission notice');
    assert.doesNotMatch(code, /^\s*(import|export)\s/m);
    assert.doesNotMatch(code, /\bimport\s*\(/);
    // ajv's runtime helper carries its own source as a string ('require("ajv/...")'); that
    // literal is data, not a call. Any other require( is a bundling mistake.
    const calls = code.replace(/'require\("ajv\/dist\/runtime\/ucs2length"\)\.default'/g, "''");
    assert.doesNotMatch(calls, /\brequire\s*\(/);
  });

  it('contains no eval, no Function constructor and no ajv compiler (the CSP forbids them)', () => {
    assert.doesNotMatch(code, /\beval\s*\(/);
    assert.doesNotMatch(code, /\bnew\s+Function\b|\bFunction\s*\(/);
    assert.doesNotMatch(code, /ajv\/dist\/(compile|core|2020)|new Ajv|addSchema|standaloneCode/i);
  });

  it('stays within its size budget (raw and gzip)', () => {
    const raw = Buffer.byteLength(code);
    const gzip = gzipSync(code, { level: 9 }).length;
    const app = Buffer.byteLength(readBundle(APP));
    console.log(`# bundle sizes: service-api.js ${raw} B raw, ${gzip} B gzip; app.js ${app} B raw`);
    assert.ok(raw < BUDGET.serviceApiRaw, `service-api.js is ${raw} B`);
    assert.ok(gzip < BUDGET.serviceApiGzip, `service-api.js is ${gzip} B gzipped`);
    assert.ok(app < BUDGET.appRaw, `app.js is ${app} B`);
  });

  it('index.html requests nothing after load: the icon is a data: URL, which the page CSP allows', () => {
    const html = readBundle(new URL('index.html', DIST));
    const icons = [...html.matchAll(/<link rel="icon"[^>]*>/g)].map((m) => m[0]);
    assert.equal(icons.length, 1, 'one icon link, so the browser asks for no /favicon.ico');
    assert.match(icons[0], /href="data:image\/svg\+xml,%3Csvg /);
    assert.match(HOME_CSP, /img-src 'self' data:;/);
    // What the page loads: its stylesheet and two scripts, nothing else.
    assert.deepEqual(
      [...html.matchAll(/\b(?:href|src)="(\/[^"]*)"/g)]
        .map((m) => m[1])
        .filter((u) => !u.startsWith('/postman/') && u !== '/openapi.json' && u !== '/generate'),
      ['/styles.css', '/service-api.js', '/app.js'],
    );
  });

  it('leaves only servable files in dist/browser (no tsc intermediate entry.js)', () => {
    assert.equal(existsSync(new URL('entry.js', DIST)), false);
    for (const name of ['index.html', 'styles.css', 'app.js', 'service-api.js']) {
      assert.ok(existsSync(new URL(name, DIST)), `${name} is missing from dist/browser`);
    }
  });
});

describe('dist/browser/app.js (static)', () => {
  let code = '';
  before(() => {
    code = readBundle(APP);
  });

  it('is a single IIFE with every page module bundled in: no import, export or require', () => {
    assert.match(code, /^\(function \(\) \{\n\s+'use strict';/);
    assert.doesNotMatch(code, /^\s*(import|export)\s/m);
    assert.doesNotMatch(code, /\bimport\s*\(|\brequire\s*\(/);
  });

  it('contains no eval and no Function constructor (the CSP forbids them)', () => {
    assert.doesNotMatch(code, /\beval\s*\(/);
    assert.doesNotMatch(code, /\bnew\s+Function\b|\bFunction\s*\(/);
  });

  it('leaves no tsc intermediate of the page in dist/browser (only the bundle is served)', () => {
    const entries = readdirSync(DIST, { withFileTypes: true });
    assert.deepEqual(
      entries.filter((e) => e.isDirectory()).map((e) => e.name),
      [],
      'a module directory is left over',
    );
    assert.deepEqual(
      entries
        .filter((e) => e.name.endsWith('.js'))
        .map((e) => e.name)
        .sort(),
      ['app.js', 'service-api.js'],
    );
  });
});

describe('window.ServiceAPI in a bare vm context (no require, no process)', () => {
  let run: (code: string) => unknown;
  let sandbox: Sandbox;

  before(() => {
    ({ run, sandbox } = bareContext());
    assert.equal(
      run('typeof require + typeof process + typeof module + typeof Buffer'),
      'undefinedundefinedundefinedundefined',
    );
    run(readBundle(BUNDLE));
  });

  it('defines a frozen window.ServiceAPI with generate and describe', () => {
    assert.equal(run('typeof window.ServiceAPI.generate + typeof window.ServiceAPI.describe'), 'functionfunction');
    assert.equal(run('Object.isFrozen(window.ServiceAPI)'), true);
    assert.ok(sandbox.ServiceAPI, 'ServiceAPI is on the global object (window === globalThis here, as in a page)');
  });

  for (const mode of ['password', 'passphrase'] as const) {
    it(`returns {ok: true, data} valid against the response schema for mode ${mode}`, () => {
      const batch = LIMITS.count.maximum;
      const result = jsonIn(run, `ServiceAPI.generate({mode: ${JSON.stringify(mode)}, count: ${batch}})`) as {
        ok: boolean;
        data: unknown;
      };
      assert.equal(result.ok, true);
      assert.ok(validateResponse(result.data), JSON.stringify(validateResponse.errors));
      const data = result.data as { mode: string; results: { value: string }[] };
      assert.equal(data.mode, mode);
      assert.equal(data.results.length, batch);
      assert.equal(new Set(data.results.map((r) => r.value)).size, batch, `${batch} fresh values`);
    });
  }

  it('gives the same entropy and metadata as the core for the same options', () => {
    const input = {
      mode: 'password',
      options: { length: LIMITS.length.minimum, includeSymbols: true, avoidAmbiguous: true },
    };
    const result = jsonIn(run, `ServiceAPI.generate(${JSON.stringify(input)})`) as {
      data: { entropy: unknown; metadata: unknown };
    };
    const core = coreGenerate(input);
    assert.equal(core.status, 200);
    if (core.status !== 200) return;
    assert.deepEqual(result.data.entropy, { ...core.body.entropy });
    assert.deepEqual(result.data.metadata, JSON.parse(JSON.stringify(core.body.metadata)));
  });

  it('answers every shared error case with {ok: false, error} equal to the expected 400 body', () => {
    assert.ok(ERROR_CASES.length > 20, 'the shared table is there');
    for (const c of ERROR_CASES) {
      // Parsed inside the context, as the table asks, so own __proto__ keys survive.
      const result = jsonIn(run, `ServiceAPI.generate(JSON.parse(${JSON.stringify(JSON.stringify(c.input))}))`);
      assert.deepEqual(result, { ok: false, error: c.expected }, c.name);
    }
  });

  it('describe() equals the core describe() with default settings (what GET /generate serves)', () => {
    assert.deepEqual(jsonIn(run, 'ServiceAPI.describe()'), JSON.parse(JSON.stringify(coreDescribe())));
  });

  it('never throws, whatever it is given', () => {
    const hostile = [
      'undefined',
      'Symbol("x")',
      '10n',
      '() => 1',
      'new Proxy({}, { ownKeys() { throw new Error("boom") }, get() { throw new Error("boom") } })',
      '({ mode: "password", get options() { throw new Error("boom") } })',
      '({ mode: "password", options: new Proxy({}, { ownKeys() { throw new Error("boom") } }) })',
      'Object.create(null)',
      '(() => { const o = { mode: "password" }; o.options = o; return o })()',
      '{ mode: "password", options: { length: 2 ** 53 } }',
    ];
    for (const expression of hostile) {
      const result = jsonIn(
        run,
        `(() => { try { return ServiceAPI.generate(${expression}) } catch (e) { return { threw: String(e) } } })()`,
      ) as Record<string, unknown>;
      assert.equal(result.ok, false, `${expression}: ${JSON.stringify(result)}`);
      const error = result.error as { status: number; error: string };
      assert.equal(error.status, 400, expression);
      assert.equal(typeof error.error, 'string', expression);
    }
    assert.equal(run('ServiceAPI.generate().ok'), false, 'no argument at all');
  });

  it('hands out copies: mutating a result or a description changes nothing later', () => {
    const tooMany = LIMITS.count.maximum + 1;
    run(`(() => {
      const d = ServiceAPI.describe();
      d.modes.passphrase.options.separator.enum.push('comma');
      d.request.count.maximum = ${tooMany};
      const r = ServiceAPI.generate({ mode: 'password' });
      r.data.metadata.classes.length = 0;
      r.data.entropy.bits = 1;
    })()`);
    assert.deepEqual(jsonIn(run, 'ServiceAPI.describe()'), JSON.parse(JSON.stringify(coreDescribe())));
    assert.deepEqual(
      jsonIn(run, 'ServiceAPI.generate({mode: "passphrase", options: {separator: "comma"}}).error.field'),
      'options.separator',
    );
    assert.deepEqual(jsonIn(run, `ServiceAPI.generate({mode: "password", count: ${tooMany}}).error.field`), 'count');
    const again = jsonIn(run, 'ServiceAPI.generate({ mode: "password" }).data') as {
      entropy: unknown;
      metadata: { classes: unknown[] };
    };
    const core = coreGenerate({ mode: 'password' });
    assert.equal(core.status, 200);
    if (core.status !== 200) return;
    const { metadata } = core.body;
    assert.ok('classes' in metadata && metadata.classes.length > 0);
    assert.deepEqual(again.metadata.classes, JSON.parse(JSON.stringify(metadata.classes)));
    assert.deepEqual(again.entropy, { ...core.body.entropy });
  });

  it('publishes no service floor without a document (0 in describe(), nothing refused for it)', () => {
    assert.equal(
      (jsonIn(run, 'ServiceAPI.describe()') as { limits: { minEntropyBits: number } }).limits.minEntropyBits,
      0,
    );
    assert.equal(jsonIn(run, 'ServiceAPI.generate({ mode: "passphrase" }).ok'), true);
  });

  it('returns a 500-style body instead of throwing when the environment has no Web Crypto', () => {
    const bare = withServiceApi(false);
    assert.deepEqual(jsonIn(bare.run, 'ServiceAPI.generate({ mode: "password" })'), {
      ok: false,
      error: { error: 'internal error: the generator could not run', status: 500 },
    });
    // Validation needs no randomness, so a bad input still gets its exact 400.
    assert.deepEqual(
      (jsonIn(bare.run, 'ServiceAPI.generate({ mode: "pin" })') as { error: unknown }).error,
      ERROR_CASES.find((c) => c.name === 'mode unknown')?.expected,
    );
  });
});

/** A crypto whose getRandomValues is the seeded sfc32 stream of tests/helpers/seeded.ts. */
function seededCrypto(seed: number): { getRandomValues(b: Uint32Array): Uint32Array } {
  const fill = seededFill(seed);
  return {
    getRandomValues(b) {
      fill(b);
      return b;
    },
  };
}

/** A document whose only element is the page's floor `<meta>`, with this content. */
function pageWithFloor(content: string): object {
  return {
    querySelector: (selector: string) =>
      selector === 'meta[name="min-entropy-bits"]'
        ? { getAttribute: (name: string) => (name === 'content' ? content : null) }
        : null,
  };
}

/** `input` generated on one seed by the page's ServiceAPI (in a fresh context) and by the
 * server's generate() as the server writes it (outcomeJson), both parsed. */
function pageAndServer(
  input: unknown,
  seed: number,
): { page: { ok: boolean; data?: unknown; error?: unknown }; server: { ok: boolean; body: unknown } } {
  const { run } = withServiceApi(seededCrypto(seed));
  const page = jsonIn(run, `ServiceAPI.generate(${JSON.stringify(input)})`) as { ok: boolean };
  const server = coreGenerate(input, seededRandom(seed));
  return { page, server: { ok: server.status === 200, body: JSON.parse(outcomeJson(server)) } };
}

describe('server and browser give the same body for the same input and seed', () => {
  const inputs: [string, unknown][] = [
    [
      'a rule on the rejection sampler',
      {
        mode: 'password',
        options: { length: 16, passwordRules: 'required: upper; required: lower; required: digit; required: special' },
      },
    ],
    [
      'a rule on the exact sampler, a batch',
      {
        mode: 'password',
        count: 5,
        options: { length: 8, passwordRules: 'required: [a]; required: [b]; required: [c]; allowed: ascii-printable' },
      },
    ],
    [
      'a rule whose passwords hold " and \\',
      { mode: 'password', count: 3, options: { passwordRules: 'required: ["]; required: [\\]; allowed: [ab]' } },
    ],
    [
      'a rule without a length (its own default)',
      { mode: 'password', options: { passwordRules: 'maxlength: 16; required: lower, upper; required: digit' } },
    ],
    [
      'max-consecutive (repeats and sequences) on the rejection sampler',
      {
        mode: 'password',
        count: 3,
        options: {
          passwordRules: 'minlength: 8; maxlength: 20; max-consecutive: 2; required: lower, upper; required: digit',
        },
      },
    ],
    [
      'max-repeating and max-sequential on the exact sampler',
      {
        mode: 'password',
        count: 3,
        options: {
          length: 8,
          passwordRules:
            'max-repeating: 1; max-sequential: 1; required: [a]; required: [b]; required: [c]; allowed: lower',
        },
      },
    ],
    [
      'max-sequential on the exact sampler, no required set',
      { mode: 'password', count: 3, options: { length: 32, passwordRules: 'max-consecutive: 1; allowed: digit' } },
    ],
    [
      'max-sequential on the exact sampler, one password only',
      { mode: 'password', options: { length: 12, passwordRules: 'max-sequential: 1; required: [b]; allowed: [abc]' } },
    ],
    [
      'a rule max-sequential leaves no password',
      { mode: 'password', options: { passwordRules: 'required: [b]; allowed: [abc]; max-consecutive: 1' } },
    ],
    [
      'digit separators with a number',
      { mode: 'passphrase', count: 4, options: { separator: 'digit', capitalize: true, addNumber: true } },
    ],
    ['symbol separators', { mode: 'passphrase', options: { separator: 'symbol', wordCount: 8 } }],
    ['the classes', { mode: 'password', count: 2, options: { length: 30, includeSymbols: true } }],
    ['a floor the options meet', { mode: 'passphrase', minBits: 51.7, options: { wordCount: 4 } }],
    [
      'a floor the options miss',
      {
        mode: 'password',
        minBits: 128,
        options: { length: 20, passwordRules: 'required: lower, upper; required: digit' },
      },
    ],
  ];
  for (const [name, input] of inputs) {
    it(name, () => {
      for (const seed of [1, 2]) {
        const { page, server } = pageAndServer(input, seed);
        assert.deepEqual(page.ok ? page.data : page.error, server.body, `seed ${seed}`);
        assert.equal(page.ok, server.ok);
      }
    });
  }

  // Each of the eleven word lists, with and without a length bound, and a refusal.
  for (const list of Object.values(WORD_LISTS)) {
    it(`word list ${list.id}: a batch, a batch within 24 characters, and the same 400s`, () => {
      const inputs = [
        { mode: 'passphrase', count: 3, options: { wordList: list.id, separator: 'space', addNumber: true } },
        { mode: 'passphrase', count: 3, options: { wordList: list.id, maxLength: 24, separator: 'symbol' } },
        { mode: 'passphrase', options: { wordList: list.id, capitalize: true, minLength: 60 } },
        { mode: 'passphrase', options: { wordList: list.id, maxLength: 6 } },
      ];
      for (const [i, input] of inputs.entries()) {
        const { page, server } = pageAndServer(input, 11 + i);
        assert.deepEqual(page.ok ? page.data : page.error, server.body, JSON.stringify(input));
        assert.equal(page.ok, i < 2, JSON.stringify(input));
        assert.equal(server.ok, page.ok, JSON.stringify(input));
      }
    });
  }

  it('and different seeds give different values (the seed is really used)', () => {
    const values = [1, 2].map((seed) => {
      const { run } = withServiceApi(seededCrypto(seed));
      return jsonIn(
        run,
        'ServiceAPI.generate({ mode: "password", options: { passwordRules: "minlength: 12" } }).data.value',
      );
    });
    assert.notEqual(values[0], values[1]);
  });
});

describe('the service floor from the page', () => {
  it('is read once from <meta name="min-entropy-bits">: describe() publishes it and generate() applies it, as the core does', () => {
    const { run } = withServiceApi(seededCrypto(5), pageWithFloor('60'));
    assert.deepEqual(
      jsonIn(run, 'ServiceAPI.describe()'),
      JSON.parse(JSON.stringify(coreDescribe({ minEntropyBits: 60 }))),
    );
    const input = { mode: 'passphrase' };
    const refused = jsonIn(run, `ServiceAPI.generate(${JSON.stringify(input)})`);
    assert.deepEqual(refused, { ok: false, error: coreGenerate(input, seededRandom(5), { minEntropyBits: 60 }).body });
    assert.deepEqual(
      (refused as { error: { error: string } }).error.error,
      'this service requires at least 60 bits; these options give 51.70 bits',
    );
    assert.equal(jsonIn(run, 'ServiceAPI.generate({ mode: "passphrase", options: { wordCount: 5 } }).ok'), true);
  });

  it('ignores a <meta> the server did not write (not a number of bits): no floor', () => {
    for (const content of ['abc', '-5', '1e3', '300', '']) {
      const { run } = withServiceApi(true, pageWithFloor(content));
      assert.equal(
        (jsonIn(run, 'ServiceAPI.describe()') as { limits: { minEntropyBits: number } }).limits.minEntropyBits,
        0,
        content,
      );
    }
  });
});
