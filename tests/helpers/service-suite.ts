/**
 * The service over real sockets: every endpoint, every status of the contract (docs/api.md, Endpoints;
 * docs/api.md, Errors) with its exact body, the headers on every response, the
 * body reader's limits. Written once, run twice: against the service started in-process
 * (tests/http/service.test.ts, npm test) and against the real server process
 * (tests/e2e/server.integration.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { describe as describeOptions } from '../../lib/service/describe.ts';
import { ERROR_CASES } from './error-cases.ts';
import { LIMITS } from '../../lib/http/limits.ts';
import { randomApiKey, ROOT, type RunningServer, type StartOptions } from './server.ts';

const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
import { assertCommonHeaders, Ledger, parseRaw, post, rawExchange, request } from './http.ts';

/** Registers the suite against the server `start` gives. */
export function serviceSuite(start: (options: StartOptions) => Promise<RunningServer>): void {
  const KEY = randomApiKey();
  const ledger = new Ledger();
  ledger.add(KEY);
  let server: RunningServer;
  let base: string;

  before(async () => {
    // A high limit keeps this suite's many POSTs clear of 429 (rate-limit.test.ts covers it).
    server = await start({ apiKey: KEY, rateLimitPerMinute: 100_000 });
    base = server.url;
  });

  after(async () => {
    const { code, signal } = await server.stop();
    assert.equal(signal, null);
    assert.equal(code, 0);
    assert.ok(ledger.size > 20, 'the suite saw generated values');
    ledger.assertAbsentFrom(server.output());
  });

  const UNAUTHORIZED = { error: 'missing or invalid API key', status: 401 };
  /** Run from the sources (in-process or `node server.ts`): no single-file digest. */
  const HEALTH = { status: 'ok', version: PACKAGE_VERSION, sha256: null };

  describe('GET endpoints', () => {
    it('GET /health answers {"status":"ok"} with the version, and the common headers', async () => {
      const r = await request(base, '/health');
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, HEALTH);
      assertCommonHeaders(r);
    });

    it('GET /ready answers 200 with the limiter store while a key is configured', async () => {
      const r = await request(base, '/ready');
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, { status: 'ready', rateLimitStore: 'in-process' });
      assertCommonHeaders(r);
    });

    it('GET /generate answers describe() with the configured rate limit', async () => {
      const r = await request(base, '/generate');
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, describeOptions({ rateLimitPerMinute: 100_000 }));
      assertCommonHeaders(r);
    });

    it('GET /openapi.json serves spec/openapi.json as read at start', async () => {
      const r = await request(base, '/openapi.json');
      const file = join(ROOT, 'spec', 'openapi.json');
      assert.ok(existsSync(file), 'spec/openapi.json exists in this checkout');
      assert.equal(r.status, 200);
      assert.equal(r.text, readFileSync(file, 'utf8'));
      assertCommonHeaders(r);
    });

    it('serves the Postman collection and environment from spec/ as downloads', async () => {
      const names = readdirSync(join(ROOT, 'spec')).filter((n) => /\.postman_(collection|environment)\.json$/.test(n));
      assert.ok(names.length >= 2);
      for (const name of names) {
        const r = await request(base, `/postman/${name}`);
        assert.equal(r.status, 200, name);
        assert.equal(r.text, readFileSync(join(ROOT, 'spec', name), 'utf8'));
        assert.equal(r.headers['content-disposition'], `attachment; filename="${name}"`);
        assertCommonHeaders(r);
      }
      assert.equal((await request(base, '/postman/package.json')).status, 404);
      assert.equal((await request(base, '/postman/')).status, 404);
    });

    it('serves the home page from dist/browser with its strict CSP, or 404 when it is not built', async () => {
      const dir = join(ROOT, 'dist', 'browser');
      const r = await request(base, '/');
      if (!existsSync(join(dir, 'index.html'))) {
        assert.equal(r.status, 404);
        assertCommonHeaders(r);
        return;
      }
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(
        r.headers['content-security-policy'],
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      );
      assertCommonHeaders(r, false);
      for (const name of readdirSync(dir)) {
        // The build's compressed copies are served at the file's own path (below), not at theirs.
        if (/\.(gz|br)$/.test(name)) {
          assert.equal((await request(base, `/${name}`)).status, 404, name);
          continue;
        }
        const file = await request(base, `/${name}`);
        assert.equal(file.status, 200, name);
        assert.equal(file.text, readFileSync(join(dir, name), 'utf8'), name);
        assert.equal(file.headers['content-encoding'], undefined, name);
        assert.equal(file.headers.vary, 'Accept-Encoding', name);
        if (name.endsWith('.js')) assert.equal(file.headers['content-type'], 'text/javascript; charset=utf-8');
        if (name.endsWith('.css')) assert.equal(file.headers['content-type'], 'text/css; charset=utf-8');
        for (const [coding, suffix, decode] of [
          ['br', 'br', brotliDecompressSync],
          ['gzip', 'gz', gunzipSync],
        ] as const) {
          const packed = await request(base, `/${name}`, { headers: { 'accept-encoding': coding } });
          assert.equal(packed.status, 200, name);
          assert.equal(packed.headers['content-encoding'], coding, name);
          assert.equal(packed.headers.vary, 'Accept-Encoding', name);
          assert.equal(packed.headers['cache-control'], 'no-store', name);
          assert.equal(Number(packed.headers['content-length']), packed.bytes.length, name);
          assert.equal(decode(packed.bytes).toString('utf8'), file.text, `${name} ${coding}`);
          // As built, except the home page, which the server writes to and compresses itself.
          if (!name.endsWith('.html') && existsSync(join(dir, `${name}.${suffix}`)))
            assert.deepEqual(packed.bytes, readFileSync(join(dir, `${name}.${suffix}`)), `${name}.${suffix}`);
        }
      }
    });

    it('HEAD works for every GET: same status and headers, no body', async () => {
      for (const path of ['/health', '/generate', '/openapi.json']) {
        const get = await request(base, path);
        const head = await request(base, path, { method: 'HEAD' });
        assert.equal(head.status, 200, path);
        assert.equal(head.text, '');
        assert.equal(head.headers['content-length'], get.headers['content-length']);
        assert.equal(head.headers['content-type'], get.headers['content-type']);
        assertCommonHeaders(head);
      }
      const missing = await request(base, '/nope', { method: 'HEAD' });
      assert.equal(missing.status, 404);
      assertCommonHeaders(missing);
    });

    it('never logs a query string (a key pasted into a URL stays out of the log)', async () => {
      const secret = `cgk_QueryKey_${'q'.repeat(38)}`;
      ledger.add(secret);
      assert.equal((await request(base, `/health?api_key=${secret}`)).status, 200);
      assert.equal((await request(base, `/nope?api_key=${secret}`)).status, 404);
      await server.waitForOutput(/"route":"unmatched","status":404/);
    });

    it('ignores query strings', async () => {
      assert.deepEqual((await request(base, '/health?probe=1&x')).json, HEALTH);
      const r = await post(base, KEY, { mode: 'password' }, {}).then(() =>
        request(base, '/generate?mode=password', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': KEY },
          body: '{"mode":"passphrase"}',
        }),
      );
      assert.equal(r.status, 200);
      assert.equal((r.json as { mode: string }).mode, 'passphrase');
      ledger.addGenerated(r.json);
    });
  });

  describe('routing errors', () => {
    it('answers 404 with the error body for unknown paths, matching paths exactly', async () => {
      for (const path of [
        '/nope',
        '/generate/',
        '/GENERATE',
        '/health/',
        '/generate/x',
        '/%2e%2e/package.json',
        '/../package.json',
      ]) {
        const r = await request(base, path);
        assert.equal(r.status, 404, path);
        assert.deepEqual(r.json, { error: 'not found', status: 404 });
        assertCommonHeaders(r);
      }
    });

    it('answers 405 with Allow for a known path and another method, and sends no CORS headers', async () => {
      const cases: [string, string, string][] = [
        ['PUT', '/generate', 'GET, HEAD, POST'],
        ['DELETE', '/generate', 'GET, HEAD, POST'],
        ['OPTIONS', '/generate', 'GET, HEAD, POST'],
        ['PATCH', '/generate', 'GET, HEAD, POST'],
        ['POST', '/health', 'GET, HEAD'],
        ['POST', '/ready', 'GET, HEAD'],
        ['POST', '/openapi.json', 'GET, HEAD'],
      ];
      for (const [method, path, allow] of cases) {
        const r = await request(base, path, {
          method,
          headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
        });
        assert.equal(r.status, 405, `${method} ${path}`);
        assert.equal(r.headers.allow, allow);
        assert.deepEqual(r.json, { error: 'method not allowed', status: 405 });
        assertCommonHeaders(r);
      }
    });
  });

  describe('POST /generate', () => {
    it('generates a password with the contract shape', async () => {
      const r = await post(base, KEY, { mode: 'password', options: { length: 32, includeSymbols: true } });
      assert.equal(r.status, 200);
      assertCommonHeaders(r);
      const body = r.json as {
        mode: string;
        count: number;
        value: string;
        entropy: { bits: number; label: string; level: number };
        metadata: { poolSize: number; length: number };
        results: { value: string }[];
      };
      ledger.addGenerated(body);
      assert.equal(body.mode, 'password');
      assert.equal(body.count, 1);
      assert.equal(body.value.length, 32);
      assert.equal(body.results.length, 1);
      assert.equal(body.results[0].value, body.value);
      assert.equal(body.metadata.poolSize, 85);
      assert.equal(body.entropy.label, 'Excellent');
    });

    it('generates 20 passwords to options.pattern, each matching the pattern as a browser reads it (issue 43)', async () => {
      const pattern = '^(?=.*\\d)(?=.*[a-z])(?=.*[A-Z])(?!.*(.)\\1{2})[a-zA-Z\\d!#]{12,20}$';
      const r = await post(base, KEY, { mode: 'password', count: 20, options: { pattern } });
      assert.equal(r.status, 200);
      assertCommonHeaders(r);
      const body = r.json as { entropy: { bits: number }; metadata: object; results: { value: string }[] };
      ledger.addGenerated(body);
      const native = new RegExp(`^(?:${pattern})$`, 'v');
      for (const { value } of body.results) assert.ok(native.test(value) && value.length === 20, value);
      assert.deepEqual(body.metadata, { entropyMode: 'uniform-pattern', allowedSize: 64, length: 20 });
      assert.ok(body.entropy.bits > 115 && body.entropy.bits < 20 * Math.log2(64), String(body.entropy.bits));
    });

    it('generates a batch of 20 passphrases in one request', async () => {
      const r = await post(base, KEY, { mode: 'passphrase', count: 20, options: { wordCount: 5, separator: 'dot' } });
      assert.equal(r.status, 200);
      const body = r.json as { count: number; results: { value: string }[] };
      ledger.addGenerated(body);
      assert.equal(body.count, 20);
      assert.equal(body.results.length, 20);
      for (const { value } of body.results) assert.equal(value.split('.').length, 5);
    });

    it('accepts media type parameters and any case in Content-Type', async () => {
      for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset="UTF-8"']) {
        const r = await post(base, KEY, { mode: 'password' }, { headers: { 'content-type': type } });
        assert.equal(r.status, 200, type);
        ledger.addGenerated(r.json);
      }
    });

    for (const c of ERROR_CASES) {
      it(`answers 400 with the shared body: ${c.name}`, async () => {
        const r = await post(base, KEY, JSON.stringify(c.input));
        assert.equal(r.status, 400);
        assert.deepEqual(r.json, c.expected);
        assertCommonHeaders(r);
      });
    }

    it('answers 400 for a missing or wrong Content-Type, and for a duplicated one', async () => {
      const body = '{"mode":"password"}';
      const wrong = [
        undefined,
        'text/plain',
        'application/jsonx',
        'multipart/form-data',
        'application/x-www-form-urlencoded',
      ];
      for (const type of wrong) {
        const headers: Record<string, string> = { 'x-api-key': KEY };
        if (type !== undefined) headers['content-type'] = type;
        const r = await request(base, '/generate', { method: 'POST', headers, body });
        assert.equal(r.status, 400, String(type));
        assert.deepEqual(r.json, { error: 'Content-Type must be application/json', status: 400 });
        assertCommonHeaders(r);
      }
      // A JSON type with another charset: the answer names the charset, not the type.
      for (const type of ['application/json; charset=latin1', 'application/json;charset="ISO-8859-1"']) {
        const r = await request(base, '/generate', {
          method: 'POST',
          headers: { 'x-api-key': KEY, 'content-type': type },
          body,
        });
        assert.equal(r.status, 400, type);
        assert.deepEqual(r.json, {
          error: 'Content-Type charset is not supported: send the JSON as UTF-8',
          status: 400,
        });
      }
      const dup = await request(base, '/generate', {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': ['application/json', 'application/json'] },
        body,
      });
      assert.equal(dup.status, 400);
      assert.deepEqual(dup.json, { error: 'Content-Type must be sent once', status: 400 });
    });

    it('answers 400 for a body that is not JSON, is empty, or is not UTF-8', async () => {
      // The position of the first error (line, column), never the text around it.
      for (const [body, line, column] of [
        ['{"mode":', 1, 9],
        ['', 1, 1],
        ['mode=password', 1, 1],
        ['{"mode":"password"}x', 1, 20],
        ["{'mode':'password'}", 1, 2],
        ['{\n  "mode": "password",\n  "count": 2,\n}', 4, 1],
      ] as const) {
        const r = await post(base, KEY, body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.deepEqual(
          r.json,
          { error: `request body must be valid JSON: error at line ${line}, column ${column}`, status: 400 },
          JSON.stringify(body),
        );
      }
      const latin1 = await request(base, '/generate', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEY },
        body: Buffer.from('{"mode":"password","x":"\xe9"}', 'latin1'),
      });
      assert.equal(latin1.status, 400);
      assert.deepEqual(latin1.json, { error: 'request body must be UTF-8', status: 400 });
    });

    it('keeps __proto__ and constructor keys harmless', async () => {
      for (const body of [
        '{"mode":"password","__proto__":{"isAdmin":true}}',
        '{"__proto__":{"mode":"password"}}',
        '{"mode":"password","options":{"__proto__":{"length":8}}}',
        '{"mode":"password","constructor":{"prototype":{"x":1}}}',
      ]) {
        const r = await post(base, KEY, body);
        assert.equal(r.status, 400, body);
        assert.equal((r.json as { status: number }).status, 400);
      }
      assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
      assert.equal((await request(base, '/health')).status, 200);
    });

    it('answers 401 with one body and WWW-Authenticate for missing, wrong, malformed or duplicated keys', async () => {
      const variants: (string | string[] | null)[] = [
        null,
        '',
        'wrong',
        `${KEY}x`,
        KEY.slice(0, -1),
        KEY.toUpperCase(),
        'cgk_AAAAAAAA_' + 'A'.repeat(38),
        [KEY, KEY],
        [KEY, 'other'],
      ];
      for (const key of variants) {
        const headers: Record<string, string | string[]> = { 'content-type': 'application/json' };
        if (key !== null) headers['x-api-key'] = key;
        const r = await request(base, '/generate', { method: 'POST', headers, body: '{"mode":"password"}' });
        assert.equal(r.status, 401, JSON.stringify(key));
        assert.deepEqual(r.json, UNAUTHORIZED);
        assert.equal(r.headers['www-authenticate'], 'ApiKey realm="credential-generator", header="X-Api-Key"');
        assertCommonHeaders(r);
      }
    });

    it('checks the key before the content type and the body', async () => {
      const r = await request(base, '/generate', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'x'.repeat(20_000),
      });
      assert.equal(r.status, 401);
    });
  });

  describe('body size limit (16,384 bytes)', () => {
    const exactly = (size: number): string => {
      const json = '{"mode":"password"}';
      return json + ' '.repeat(size - json.length);
    };

    it('accepts a body of exactly 16,384 bytes and refuses 16,385 with 413 and Connection: close', async () => {
      const ok = await post(base, KEY, exactly(16_384));
      assert.equal(ok.status, 200);
      ledger.addGenerated(ok.json);
      const over = await post(base, KEY, exactly(16_385));
      assert.equal(over.status, 413);
      assert.deepEqual(over.json, { error: 'request body larger than 16384 bytes', status: 413 });
      assert.equal(over.headers.connection, 'close');
      assertCommonHeaders(over);
    });

    it('refuses a Content-Length over the limit before reading any body', async () => {
      // The body is never sent: a reply that waited for it would come from the request timeout
      // (10 s), as a 408. How fast the 413 comes depends on the machine, so no tighter bound.
      const head = `POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-Api-Key: ${KEY}\r\nContent-Length: 1000000\r\n\r\n`;
      const { text, closed, ms } = await rawExchange(server.port, head, 30_000);
      const reply = parseRaw(text);
      assert.equal(reply.status, 413);
      assert.match(reply.head, /\r\nConnection: close/i);
      assert.ok(closed, 'the server closes the connection');
      assert.ok(ms < LIMITS.requestTimeout, `answered in ${Math.round(ms)} ms`);
      assert.deepEqual(JSON.parse(reply.body), { error: 'request body larger than 16384 bytes', status: 413 });
    });

    it('cuts a chunked body that keeps coming at the limit and closes the connection', async () => {
      const { connect } = await import('node:net');
      const result = await new Promise<{ text: string; sent: number }>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: server.port });
        let text = '';
        let sent = 0;
        let timer: NodeJS.Timeout | undefined;
        const chunk = `400\r\n${'a'.repeat(0x400)}\r\n`;
        socket.on('connect', () => {
          socket.write(
            `POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-Api-Key: ${KEY}\r\nTransfer-Encoding: chunked\r\n\r\n`,
          );
          timer = setInterval(() => {
            if (socket.writable) {
              socket.write(chunk);
              sent += 0x400;
            }
          }, 2);
        });
        socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
        socket.on('error', () => {});
        socket.on('close', () => {
          clearInterval(timer);
          resolve({ text, sent });
        });
        // Only a failure waits this long: a server that kept reading would take 15 MB by then.
        setTimeout(() => socket.destroy(), 30_000).unref();
      });
      const reply = parseRaw(result.text);
      assert.equal(reply.status, 413);
      assert.match(reply.head, /\r\nConnection: close/i);
      assert.deepEqual(JSON.parse(reply.body), { error: 'request body larger than 16384 bytes', status: 413 });
      assert.ok(
        result.sent < 4_000_000,
        `the server stopped the upload (client sent ${result.sent} bytes before the close)`,
      );
    });

    it('also counts a body whose Content-Length was small but whose chunks are not', async () => {
      // Content-Length and Transfer-Encoding together is a smuggling pattern: node refuses it.
      const head = `POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-Api-Key: ${KEY}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n`;
      const { text } = await rawExchange(server.port, head, 30_000);
      const reply = parseRaw(text);
      assert.equal(reply.status, 400);
      assertRawCommonHeaders(reply.head);
    });

    it('answers Expect: 100-continue with 100 only when the request passes the checks', async () => {
      const body = '{"mode":"passphrase"}';
      const head = `POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-Api-Key: ${KEY}\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
      const { connect } = await import('node:net');
      const text = await new Promise<string>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: server.port });
        let got = '';
        socket.on('connect', () => socket.write(head));
        socket.on('data', (c: Buffer) => {
          got += c.toString('utf8');
          if (got.startsWith('HTTP/1.1 100 Continue\r\n\r\n') && !got.includes('200 OK')) socket.write(body);
        });
        socket.on('close', () => resolve(got));
      });
      assert.ok(text.startsWith('HTTP/1.1 100 Continue\r\n\r\n'), text.slice(0, 40));
      const final = parseRaw(text.slice('HTTP/1.1 100 Continue\r\n\r\n'.length));
      assert.equal(final.status, 200);
      ledger.addGenerated(JSON.parse(final.body));

      const big = `POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-Api-Key: ${KEY}\r\nContent-Length: 20000\r\nExpect: 100-continue\r\n\r\n`;
      const refused = await rawExchange(server.port, big, 30_000);
      assert.ok(!refused.text.includes('100 Continue'));
      assert.equal(parseRaw(refused.text).status, 413);
      assert.ok(refused.closed);

      const noKey = `POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n`;
      const unauthorized = await rawExchange(server.port, noKey, 30_000);
      assert.ok(!unauthorized.text.includes('100 Continue'));
      assert.equal(parseRaw(unauthorized.text).status, 401);
      assert.ok(unauthorized.closed, 'the unread body cannot be mistaken for the next request');
    });

    it('answers 417 to an Expect it does not know', async () => {
      const { text } = await rawExchange(
        server.port,
        `POST /generate HTTP/1.1\r\nHost: t\r\nExpect: something-else\r\nContent-Length: 0\r\n\r\n`,
        30_000,
      );
      const reply = parseRaw(text);
      assert.equal(reply.status, 417);
      assert.deepEqual(JSON.parse(reply.body), { error: 'expectation failed', status: 417 });
      assertRawCommonHeaders(reply.head);
    });

    it('survives a client that disconnects mid-body or sends more than its Content-Length', async () => {
      const { connect } = await import('node:net');
      await new Promise<void>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: server.port }, () => {
          socket.write(
            `POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-Api-Key: ${KEY}\r\nContent-Length: 1000\r\n\r\n{"mode":`,
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50);
        });
      });
      const longer = await rawExchange(
        server.port,
        `POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-Api-Key: ${KEY}\r\nContent-Length: 19\r\n\r\n{"mode":"password"}GARBAGE\r\n\r\n`,
        30_000,
      );
      assert.equal(parseRaw(longer.text).status, 200);
      assert.ok(longer.closed, 'the connection is closed after the reply');
      ledger.addGenerated(JSON.parse(parseRaw(longer.text).body));
      assert.equal((await request(base, '/health')).status, 200);
    });
  });

  describe('request targets', () => {
    it('accepts the absolute form of a request target', async () => {
      const { text } = await rawExchange(
        server.port,
        `GET http://127.0.0.1:${server.port}/health?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
        30_000,
      );
      assert.equal(parseRaw(text).status, 200);
      assert.deepEqual(JSON.parse(parseRaw(text).body), HEALTH);
    });
  });

  describe('malformed requests', () => {
    it('answers 431 to headers over 8 KB and 400 to a broken request line, with the usual headers', async () => {
      const big = await rawExchange(
        server.port,
        `GET /health HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(9_000)}\r\n\r\n`,
        30_000,
      );
      const reply = parseRaw(big.text);
      assert.equal(reply.status, 431);
      assert.deepEqual(JSON.parse(reply.body), { error: 'request header fields too large', status: 431 });
      assertRawCommonHeaders(reply.head);
      assert.ok(big.closed);

      const broken = await rawExchange(server.port, 'GARBAGE\r\n\r\n', 30_000);
      assert.equal(parseRaw(broken.text).status, 400);
      assert.deepEqual(JSON.parse(parseRaw(broken.text).body), { error: 'bad request', status: 400 });
      assert.ok(broken.closed);

      const noHost = await rawExchange(server.port, 'GET /health HTTP/1.1\r\n\r\n', 30_000);
      assert.equal(parseRaw(noHost.text).status, 400);
    });
  });
}

function assertRawCommonHeaders(head: string): void {
  for (const line of [
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    'Referrer-Policy: no-referrer',
    "Content-Security-Policy: default-src 'none'; frame-ancestors 'none'",
  ]) {
    assert.ok(head.includes(`\r\n${line}\r\n`), `${line} in\n${head}`);
  }
  assert.match(head, /\r\nX-RateLimit-Remaining: \d+\r\n/);
  assert.match(head, /\r\nRateLimit: "client";r=\d+;t=\d+\r\n/);
}
