/**
 * Request ids and the request log line (docs/api.md, Request ids; docs/deploy.md, Logs): every
 * reply, raw ones included, carries X-Request-Id; an incoming id is kept only from a trusted
 * proxy and only in its safe form; the log line of the request has the same id, and an error's
 * line its reason and field, never the value.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { INCOMING_REQUEST_ID, newRequestId, requestIdOf } from '../../lib/http/request-id.ts';
import { parseRaw, post, rawExchange, request, type Reply } from '../helpers/http.ts';
import { startInProcess } from '../helpers/in-process.ts';
import { randomApiKey, type RunningServer } from '../helpers/server.ts';

const FRESH = /^[A-Za-z0-9_-]{16}$/;

const withHeader = (value: string | undefined): IncomingMessage =>
  ({ headers: value === undefined ? {} : { 'x-request-id': value } }) as unknown as IncomingMessage;

/** The request log lines of a server's output, by id. */
function linesById(output: string): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const text of output.split('\n')) {
    if (!text.includes('"msg":"request"')) continue;
    const line = JSON.parse(text) as Record<string, unknown>;
    out.set(String(line.id), line);
  }
  return out;
}

describe('request ids', () => {
  it('are 96 random bits in base64url, never repeated', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const id = newRequestId();
      assert.match(id, FRESH);
      assert.equal(Buffer.from(id, 'base64url').length, 12);
      ids.add(id);
    }
    assert.equal(ids.size, 2_000, 'across several refills of the random pool');
  });

  it('keep an incoming id only from a trusted proxy, and only in the safe form', () => {
    assert.match(requestIdOf(withHeader('from-a-client'), 0), FRESH, 'no trusted proxy: ignored');
    assert.equal(requestIdOf(withHeader('lb-7f3a.9_Z-1'), 1), 'lb-7f3a.9_Z-1');
    assert.equal(requestIdOf(withHeader('x'.repeat(128)), 2), 'x'.repeat(128));
    for (const bad of ['', 'x'.repeat(129), 'a b', 'a/b', 'id\u00e9', 'a, b', '{"level":"error"}', 'a\tb']) {
      assert.doesNotMatch(bad, INCOMING_REQUEST_ID);
      assert.match(requestIdOf(withHeader(bad), 1), FRESH, JSON.stringify(bad));
    }
    assert.match(requestIdOf(withHeader(undefined), 1), FRESH);
  });
});

describe('X-Request-Id on every reply, and in the log line', () => {
  const key = randomApiKey();
  let server: RunningServer;
  let proxied: RunningServer;

  before(async () => {
    [server, proxied] = await Promise.all([
      startInProcess({ apiKey: key, rateLimitPerMinute: 2, logLevel: 'debug' }),
      startInProcess({ apiKey: key, env: { TRUST_PROXY_HOPS: '1' } }),
    ]);
  });
  after(async () => {
    await Promise.all([server.stop(), proxied.stop()]);
  });

  it('every reply carries a fresh id, raw replies on a socket node has let go of included', async () => {
    const base = server.url;
    const replies: Reply[] = [
      await request(base, '/health'),
      await request(base, '/generate', { method: 'HEAD' }),
      await request(base, '/nope'),
      await request(base, '/generate', { method: 'PUT' }),
      await post(base, key, { mode: 'password' }),
      await post(base, key, '{'),
      await post(base, `${key}x`, { mode: 'password' }),
      await post(base, key, { mode: 'password' }, { headers: { expect: 'something-else' } }),
      await request(base, '/health', {
        headers: Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`x-h${i}`, 'v'])),
      }),
    ];
    const raw = [
      await rawExchange(server.port, 'NOT HTTP\r\n\r\n', 30_000),
      await rawExchange(server.port, `GET / HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(9_000)}\r\n\r\n`, 30_000),
      await rawExchange(
        server.port,
        'GET / HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
        30_000,
      ),
    ].map((r) => parseRaw(r.text));
    assert.deepEqual(
      replies.map((r) => r.status),
      [200, 200, 404, 405, 200, 400, 401, 417, 431],
    );
    assert.deepEqual(
      raw.map((r) => r.status),
      [400, 431, 400],
    );
    const ids = [
      ...replies.map((r) => String(r.headers['x-request-id'])),
      ...raw.map((r) => /\r\nX-Request-Id: ([^\r]*)\r\n/.exec(r.head)?.[1] ?? 'missing'),
    ];
    for (const id of ids) assert.match(id, FRESH);
    assert.equal(new Set(ids).size, ids.length, 'one id per request');
    // The raw parser error is logged at debug with its id; the upgrade has a request line.
    await server.waitForOutput(new RegExp(`"msg":"client error","id":"${ids[9]}"`));
    await server.waitForOutput(new RegExp(`"id":"${ids[11]}","method":"GET","route":"unmatched","status":400`));
  });

  it('ignores an id a client sends to a server with no trusted proxy', async () => {
    const forged = 'forged-by-the-client';
    const r = await request(server.url, '/health', { headers: { 'x-request-id': forged } });
    assert.match(String(r.headers['x-request-id']), FRESH);
    assert.ok(!server.output().includes(forged));
  });

  it("keeps the trusted proxy's id when it is well formed, and replaces one that is not", async () => {
    const kept = await request(proxied.url, '/nope', { headers: { 'x-request-id': 'edge-01.req_42' } });
    assert.equal(kept.headers['x-request-id'], 'edge-01.req_42');
    await proxied.waitForOutput(/"id":"edge-01\.req_42","method":"GET","route":"unmatched","status":404/);
    const replaced = await request(proxied.url, '/nope', { headers: { 'x-request-id': 'has space' } });
    assert.match(String(replaced.headers['x-request-id']), FRESH);
    const twice = await request(proxied.url, '/nope', { headers: { 'x-request-id': ['a', 'b'] } });
    assert.match(String(twice.headers['x-request-id']), FRESH, 'sent twice: node joins them, which is refused');
  });

  it('logs each request under its id with method, route, status, key id, and for an error its reason and field', async () => {
    const from = { localAddress: '127.0.0.9' };
    const ok = await post(server.url, key, { mode: 'passphrase' }, from);
    const invalid = await post(server.url, key, { mode: 'password', options: { length: 7 } }, from);
    const limited = await post(server.url, key, { mode: 'password' }, from);
    const missing = await post(server.url, null, { mode: 'password' }, { localAddress: '127.0.0.10' });
    const twice = await post(
      server.url,
      null,
      { mode: 'password' },
      { localAddress: '127.0.0.10', headers: { 'x-api-key': [key, key] } },
    );
    const statuses = [ok, invalid, limited, missing, twice].map((r) => r.status);
    assert.deepEqual(statuses, [200, 400, 429, 401, 401]);
    const last = String(twice.headers['x-request-id']);
    await server.waitForOutput(new RegExp(`"id":"${last}"`));
    const lines = linesById(server.output());
    const line = (r: Reply) => lines.get(String(r.headers['x-request-id']));
    assert.deepEqual(
      [ok, invalid, limited, missing, twice].map((r) => {
        const { method, route, status, key: keyId, reason, field } = line(r)!;
        return { method, route, status, keyId, reason, field };
      }),
      [
        { method: 'POST', route: '/generate', status: 200, keyId: 'env', reason: undefined, field: undefined },
        {
          method: 'POST',
          route: '/generate',
          status: 400,
          keyId: 'env',
          reason: 'invalidRequest',
          field: 'options.length',
        },
        // The key was checked before its own bucket refused: its id is logged (issue 41).
        { method: 'POST', route: '/generate', status: 429, keyId: 'env', reason: 'rateLimited', field: undefined },
        { method: 'POST', route: '/generate', status: 401, keyId: null, reason: 'missingKey', field: undefined },
        { method: 'POST', route: '/generate', status: 401, keyId: null, reason: 'duplicateKey', field: undefined },
      ],
    );
    assert.ok(typeof line(ok)!.ms === 'number');
    // A 429 of the failed-key bucket names no key: no key was accepted.
    const wrong = { localAddress: '127.0.0.11', headers: { 'x-api-key': `${key}x` } };
    const refused = [];
    for (let i = 0; i < 3; i++) refused.push(await post(server.url, null, { mode: 'password' }, wrong));
    assert.deepEqual(
      refused.map((r) => r.status),
      [401, 401, 429],
    );
    const lastRefused = String(refused[2].headers['x-request-id']);
    await server.waitForOutput(new RegExp(`"id":"${lastRefused}"`));
    const limitedLine = linesById(server.output()).get(lastRefused)!;
    assert.deepEqual([limitedLine.status, limitedLine.key, limitedLine.reason], [429, null, 'rateLimited']);
    assert.ok(!server.output().includes((ok.json as { value: string }).value), 'never a generated value');
    assert.ok(!server.output().includes(key), 'never a key');
  });
});
