/**
 * Contract tests: every endpoint and every status of the real server, each reply validated
 * against spec/openapi.json (status by status: body schema with ajv, Content-Type, required
 * headers). At the end, every status the document lists must have been seen and validated,
 * so the document cannot promise a reply the server never gives either.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe as describeService } from '../../lib/service/describe.ts';
import { BODY_LIMIT_BYTES } from '../../lib/service/limits.ts';
import { contractErrors, documentedStatuses, matchPath, openapi } from '../helpers/contract.ts';
import { ROOT, randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';
import { LIMITS } from '../helpers/limits.ts';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: unknown;
}

interface Call {
  method?: string;
  path: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** Send the body chunked (no Content-Length). */
  chunked?: boolean;
}

/** One request on a fresh connection (a 413 closes it), read whole; never throws on a status. */
function call(base: string, c: Call): Promise<Reply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: c.method ?? 'GET',
        path: c.path,
        headers: c.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const json = /^application\/json/.test(String(res.headers['content-type'] ?? ''));
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            text,
            body: json && text !== '' ? JSON.parse(text) : text,
          });
        });
        res.on('error', reject);
      },
    );
    // The server may answer (413, 401 ...) and close before it has read the whole body.
    req.on('error', (e: NodeJS.ErrnoException) =>
      e.code === 'EPIPE' || e.code === 'ECONNRESET' ? undefined : reject(e),
    );
    if (c.chunked) req.setHeader('Transfer-Encoding', 'chunked');
    if (c.body !== undefined) req.end(c.body);
    else req.end();
  });
}

const seen = new Set<string>();

/** Sends, validates against the contract, records the documented status it exercised. */
async function checked(base: string, c: Call, expectedStatus: number): Promise<Reply> {
  const method = c.method ?? 'GET';
  const reply = await call(base, c);
  assert.equal(reply.status, expectedStatus, `${method} ${c.path}: ${reply.text.slice(0, 300)}`);
  const errors = contractErrors({
    method,
    path: c.path,
    status: reply.status,
    headers: reply.headers,
    body: reply.body,
  });
  assert.deepEqual(errors, [], `${method} ${c.path} ${reply.status} departs from openapi.json`);
  // Retry-After on 429 only (the document marks it so; absence elsewhere is checked here).
  assert.equal('retry-after' in reply.headers, reply.status === 429, `${method} ${c.path}: Retry-After`);
  const template = matchPath(c.path);
  if (template === undefined) seen.add(`unknown-path ${reply.status}`);
  else if (reply.status === 405) {
    // The 405 each operation documents is the reply to the path's other methods.
    for (const m of Object.keys((openapi.paths as Record<string, object>)[template]))
      seen.add(`${m.toUpperCase()} ${template} 405`);
  } else seen.add(`${method === 'HEAD' ? 'GET' : method} ${template} ${reply.status}`);
  return reply;
}

const json = (obj: unknown, key?: string) => ({
  method: 'POST',
  path: '/generate',
  headers: { 'Content-Type': 'application/json', ...(key ? { 'X-Api-Key': key } : {}) },
  body: JSON.stringify(obj),
});

const HOME_BUILT = existsSync(join(ROOT, 'dist', 'browser', 'index.html'));
const RATE = 1000;

describe('contract: the real server against spec/openapi.json', () => {
  const key = randomApiKey();
  let main: RunningServer; // a key, a high rate limit
  let bare: RunningServer; // no key configured, 2 requests per minute

  before(async () => {
    // Both started at once; should one fail, the other is still kept for `after` to stop (left
    // running, its pipes would keep this file's process alive).
    const [m, b] = await Promise.allSettled([
      startServer({ apiKey: key, rateLimitPerMinute: RATE, logLevel: 'error' }),
      startServer({ rateLimitPerMinute: 2, logLevel: 'error' }),
    ]);
    if (m.status === 'fulfilled') main = m.value;
    if (b.status === 'fulfilled') bare = b.value;
    for (const s of [m, b]) if (s.status === 'rejected') throw s.reason;
  });
  after(async () => {
    await Promise.all([main?.stop(), bare?.stop()]);
  });

  it('GET /health, GET /ready, GET /generate, GET /openapi.json answer 200 as documented, and HEAD too', async () => {
    const health = await checked(main.url, { path: '/health' }, 200);
    assert.equal((health.body as { status: string }).status, 'ok');
    const ready = await checked(main.url, { path: '/ready' }, 200);
    assert.deepEqual(ready.body, { status: 'ready', rateLimitStore: 'in-process' });
    const description = await checked(main.url, { path: '/generate' }, 200);
    assert.deepEqual(description.body, describeService({ rateLimitPerMinute: RATE }), 'GET /generate is describe()');
    const doc = await checked(main.url, { path: '/openapi.json?x=1' }, 200);
    assert.deepEqual(doc.body, openapi, 'GET /openapi.json serves spec/openapi.json');
    for (const path of ['/health', '/ready', '/generate', '/openapi.json']) {
      const head = await checked(main.url, { method: 'HEAD', path }, 200);
      assert.equal(head.text, '');
    }
    assert.equal(health.headers['x-ratelimit-limit'], String(RATE));
  });

  it('GET / serves the home page (text/html) when the browser bundle is built', async (t) => {
    if (!HOME_BUILT) {
      // test:integration always builds first; only a hand-run file may lack the page, never CI.
      assert.ok(process.env.CI !== 'true', 'dist/browser/index.html missing in CI: the build did not run');
      return t.skip('dist/browser/index.html not built (npm run build:dist)');
    }
    const page = await checked(main.url, { path: '/' }, 200);
    assert.match(page.text, /<!doctype html/i);
    assert.match(
      page.text,
      /\/postman\/credential-generator\.postman_collection\.json/,
      'home page links the collection',
    );
  });

  it('GET /postman/{file} serves both files byte for byte, and 404 for another name', async () => {
    for (const file of [
      'credential-generator.postman_collection.json',
      'credential-generator.postman_environment.json',
    ]) {
      const reply = await checked(main.url, { path: `/postman/${file}` }, 200);
      assert.equal(reply.text, readFileSync(join(ROOT, 'spec', file), 'utf8'));
    }
    await checked(main.url, { path: '/postman/keys.json' }, 404);
    await checked(main.url, { path: '/postman/..%2Fpackage.json' }, 404);
  });

  it(`POST /generate answers 200 for each mode and a batch of ${LIMITS.count.maximum}`, async () => {
    const { count, length, wordCount } = LIMITS;
    const password = await checked(
      main.url,
      json({ mode: 'password', options: { length: 40, includeSymbols: true } }, key),
      200,
    );
    assert.equal((password.body as { value: string }).value.length, 40);
    const passphrase = await checked(
      main.url,
      json({ mode: 'passphrase', options: { wordCount: wordCount.maximum, separator: 'space', addNumber: true } }, key),
      200,
    );
    assert.equal(
      (passphrase.body as { value: string }).value.split(' ').length,
      wordCount.maximum + 1,
      'the words, then the number',
    );
    const batch = await checked(main.url, json({ mode: 'passphrase', count: count.maximum }, key), 200);
    assert.equal((batch.body as { results: unknown[] }).results.length, count.maximum);
    // The longest possible value still fits the documented schema.
    await checked(
      main.url,
      json({ mode: 'password', count: count.maximum, options: { length: length.maximum, includeSymbols: true } }, key),
      200,
    );
  });

  it('POST /generate answers 400 for bad values, wrong Content-Type and bad JSON', async () => {
    const { count, length } = LIMITS;
    const bad = await checked(main.url, json({ mode: 'password', options: { length: length.minimum - 1 } }, key), 400);
    const message = `options.length must be between ${length.minimum} and ${length.maximum}`;
    assert.deepEqual(bad.body, { error: message, status: 400, field: 'options.length' });
    await checked(main.url, json({ mode: 'password', count: count.maximum + 1 }, key), 400);
    await checked(main.url, json({ mode: 'passphrase', options: { length: 12 } }, key), 400);
    await checked(
      main.url,
      { ...json({ mode: 'password' }, key), headers: { 'Content-Type': 'text/plain', 'X-Api-Key': key } },
      400,
    );
    await checked(main.url, { ...json({}, key), body: '{"mode":' }, 400);
  });

  it('POST /generate answers 401 with WWW-Authenticate for a missing or wrong key', async () => {
    const missing = await checked(main.url, json({ mode: 'password' }), 401);
    assert.ok(missing.headers['www-authenticate']);
    await checked(main.url, json({ mode: 'password' }, 'wrong-key-0000000000000000'), 401);
  });

  it(`POST /generate answers 413 for a body over ${BODY_LIMIT_BYTES} bytes, declared or chunked`, async () => {
    const big = JSON.stringify({ mode: 'password', options: { excludedCharacters: 'x'.repeat(BODY_LIMIT_BYTES) } });
    await checked(main.url, { ...json({}, key), body: big }, 413);
    await checked(main.url, { ...json({}, key), body: big, chunked: true }, 413);
  });

  it('answers 404 for unknown paths and 405 with Allow for other methods', async () => {
    await checked(main.url, { path: '/nope' }, 404);
    await checked(main.url, { path: '/generate/' }, 404);
    const cases: [string, string, string][] = [
      ['DELETE', '/generate', 'GET, HEAD, POST'],
      ['POST', '/health', 'GET, HEAD'],
      ['DELETE', '/ready', 'GET, HEAD'],
      ['PUT', '/openapi.json', 'GET, HEAD'],
      ['PATCH', '/postman/credential-generator.postman_collection.json', 'GET, HEAD'],
    ];
    if (HOME_BUILT) cases.push(['POST', '/', 'GET, HEAD']);
    for (const [method, path, allow] of cases) {
      const r = await checked(main.url, { method, path }, 405);
      assert.equal(r.headers.allow, allow, `${method} ${path}`);
    }
  });

  it('answers 503 on a server with no key configured, then 429 with Retry-After once its 2 slots are used', async () => {
    await checked(bare.url, { path: '/health' }, 200);
    const notReady = await checked(bare.url, { path: '/ready' }, 503);
    assert.deepEqual(notReady.body, { status: 'no-key', rateLimitStore: 'in-process' });
    await checked(bare.url, json({ mode: 'password' }, 'any-key-000000000000000000'), 503);
    await checked(bare.url, json({ mode: 'password' }), 503);
    const limited = await checked(bare.url, json({ mode: 'password' }), 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');
    // GETs use no slot and carry the address's own bucket, which POSTs without a usable key
    // (here: every POST, as no key is configured) never spend.
    const after429 = await checked(bare.url, { path: '/generate' }, 200);
    assert.equal(after429.headers['x-ratelimit-remaining'], '2');
  });

  it('flags a reply that departs from the document (the checks can fail)', () => {
    const headers = { 'content-type': 'application/json', 'cache-control': 'no-store' };
    assert.notDeepEqual(
      contractErrors({ method: 'GET', path: '/health', status: 200, headers, body: { status: 'ok' } }),
      [],
    );
    assert.notDeepEqual(contractErrors({ method: 'GET', path: '/health', status: 201, headers, body: {} }), []);
    assert.notDeepEqual(contractErrors({ method: 'DELETE', path: '/health', status: 200, headers, body: {} }), []);
    assert.notDeepEqual(contractErrors({ method: 'GET', path: '/nope', status: 200, headers, body: {} }), []);
    const errors = contractErrors({
      method: 'POST',
      path: '/generate',
      status: 400,
      headers,
      body: { error: 'x', status: 400, extra: 1 },
    });
    assert.ok(
      errors.some((e) => /additional properties/.test(e)),
      errors.join('\n'),
    );
    assert.ok(
      errors.some((e) => /X-RateLimit-Limit missing/.test(e)),
      errors.join('\n'),
    );
  });

  it('has exercised and validated every status the document lists', () => {
    const missing = documentedStatuses().filter((s) => !seen.has(s) && !(s.startsWith('GET / ') && !HOME_BUILT));
    assert.deepEqual(missing, []);
    assert.ok(seen.has('unknown-path 404'));
  });
});
