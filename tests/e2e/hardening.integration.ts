/**
 * The server's own limits on the real process: slow-headers clients cut at the 5 s header
 * timeout, graceful shutdown (in-flight requests finish, idle keep-alive sockets close, exit
 * 0), HTTPS with HSTS, log levels, and start-up refusal of bad configuration.
 *
 * Time bounds: a limit the server enforces on its own clock cannot end before that limit on
 * this process's monotonic clock (the server's clock started after ours), so lower bounds are
 * exact. Upper bounds add SLACK_MS for scheduling on a busy machine: on a 2-core machine at
 * load average 16 to 20, with eight servers starting as this file's concurrent tests do, an
 * idle process's timers ran up to 241 ms late (p99 40 ms), and at load 25 a slow-headers cut
 * came 6.1 s in, over 0.6 s after the 5.5 s the server promises. SLACK_MS is about six times
 * that, and each bound stays below the next limit that would end the connection instead.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LIMITS } from '../../lib/http/limits.ts';
import { selfSignedPair } from '../helpers/certificates.ts';
import { launchServer, randomApiKey, startServer } from '../helpers/server.ts';
import { Ledger, parseRaw, post, rawExchange, request } from '../helpers/http.ts';

const SLACK_MS = 3_500;

const KEY = randomApiKey();
const ledger = new Ledger();
ledger.add(KEY);
const dir = mkdtempSync(join(tmpdir(), 'cg-hard-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** What a raw socket received, and a wait for it to contain something (an event, not a poll). */
function received(socket: Socket): {
  text(): string;
  clear(): void;
  until(part: string, timeoutMs?: number): Promise<void>;
} {
  let text = '';
  const waiters = new Set<() => void>();
  socket.on('data', (c: Buffer) => {
    text += c.toString();
    for (const wake of waiters) wake();
  });
  return {
    text: () => text,
    clear: () => void (text = ''),
    until: (part, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const wake = (): void => {
          if (!text.includes(part)) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no ${JSON.stringify(part)} within ${timeoutMs} ms; got ${JSON.stringify(text)}`));
        }, timeoutMs);
        waiters.add(wake);
        wake();
      }),
  };
}

describe('hardening', { concurrency: true }, () => {
  it('cuts a slow-headers client at the 5 s header timeout with a 408', async () => {
    const server = await startServer({ apiKey: KEY });
    try {
      const result = await new Promise<{ ms: number; text: string }>((resolve) => {
        const started = performance.now();
        const socket = connect({ host: '127.0.0.1', port: server.port });
        let text = '';
        let timer: NodeJS.Timeout | undefined;
        socket.on('connect', () => {
          socket.write('GET /health HTTP/1.1\r\nHost: t\r\n');
          // One header byte every 200 ms: each byte resets no timer, the header deadline holds.
          timer = setInterval(() => socket.writable && socket.write('X'), 200);
        });
        socket.on('data', (c: Buffer) => (text += c.toString()));
        socket.on('error', () => {});
        socket.on('close', () => {
          clearInterval(timer);
          resolve({ ms: performance.now() - started, text });
        });
        setTimeout(() => socket.destroy(), 30_000).unref();
      });
      // Not before the header timeout: the server counts it from the connection or its first
      // byte, both after `started`.
      assert.ok(result.ms >= LIMITS.headersTimeout, `cut after ${Math.round(result.ms)} ms, before the header timeout`);
      // Checked every connectionsCheckingInterval, so cut 5.0 to 5.5 s in, plus scheduling;
      // below the request timeout (10 s), whose cut would also be a 408.
      const latest = LIMITS.headersTimeout + LIMITS.connectionsCheckingInterval + SLACK_MS;
      assert.ok(
        latest < LIMITS.requestTimeout,
        `headers checked too rarely: a cut may come ${latest} ms in, when the request timeout cuts too`,
      );
      assert.ok(result.ms <= latest, `cut after ${Math.round(result.ms)} ms`);
      const reply = parseRaw(result.text);
      assert.equal(reply.status, 408);
      assert.deepEqual(JSON.parse(reply.body), { error: 'request timeout', status: 408 });
      assert.match(reply.head, /\r\nCache-Control: no-store\r\n/);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it('finishes an in-flight request on SIGTERM, refuses new connections, and exits 0', async () => {
    const server = await startServer({ apiKey: KEY });
    const body = '{"mode":"passphrase","count":3}';
    const socket = connect({ host: '127.0.0.1', port: server.port });
    const got = received(socket);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // Expect: 100-continue, so the server says when it has the request: its 100 Continue.
    const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
    socket.write(
      `POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nX-Api-Key: ${KEY}\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    await got.until(CONTINUE);
    socket.write(body.slice(0, 10));
    const stopped = server.stop();
    await server.waitForOutput(/"msg":"shutting down"/);
    await assert.rejects(request(server.url, '/health'), /ECONNREFUSED/);
    socket.write(body.slice(10));
    await closed;
    assert.ok(got.text().startsWith(CONTINUE));
    const reply = parseRaw(got.text().slice(CONTINUE.length));
    assert.equal(reply.status, 200);
    assert.match(reply.head, /\r\nConnection: close\r\n/);
    ledger.addGenerated(JSON.parse(reply.body));
    assert.deepEqual(await stopped, { code: 0, signal: null });
    ledger.assertAbsentFrom(server.output());
  });

  it('keeps an idle keep-alive connection through SIGTERM and answers its next request, with Connection: close', async () => {
    const server = await startServer({ apiKey: KEY });
    const socket = connect({ host: '127.0.0.1', port: server.port });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const got = received(socket);
    socket.write('GET /health HTTP/1.1\r\nHost: t\r\n\r\n');
    await got.until('{"status":"ok",');
    assert.match(got.text(), /\r\nKeep-Alive: timeout=5\r\n/, 'the client was promised 5 s');
    const stopped = server.stop();
    await server.waitForOutput(/"msg":"shutting down"/);
    got.clear();
    // The request a pooled client sends on its idle connection after the signal.
    socket.write('GET /health HTTP/1.1\r\nHost: t\r\n\r\n');
    await closed;
    const reply = parseRaw(got.text());
    assert.equal(reply.status, 200);
    assert.match(reply.head, /\r\nConnection: close\r\n/);
    assert.deepEqual(await stopped, { code: 0, signal: null });
  });

  it('closes a silent idle keep-alive connection at the keep-alive timeout it promised, then exits 0', async () => {
    const server = await startServer({ apiKey: KEY });
    const socket = connect({ host: '127.0.0.1', port: server.port });
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now())));
    const got = received(socket);
    const sent = performance.now();
    socket.write('GET /health HTTP/1.1\r\nHost: t\r\n\r\n');
    await got.until('{"status":"ok",');
    const { code } = await server.stop();
    assert.equal(code, 0);
    const idle = (await closed) - sent;
    // Not before the promised 5 s: the server starts counting when its reply is out, after the
    // request was sent (10 ms: libuv's millisecond clock may trail the precise one by a tick).
    assert.ok(idle >= LIMITS.keepAliveTimeout - 10, `closed ${Math.round(idle)} ms after the request`);
    assert.ok(
      LIMITS.keepAliveTimeout + SLACK_MS < LIMITS.shutdownGraceMs,
      'the keep-alive close must come before the shutdown grace ends',
    );
    assert.ok(idle <= LIMITS.keepAliveTimeout + SLACK_MS, `closed ${Math.round(idle)} ms after the request`);
    // Closed by its own timeout, not cut when the 10 s shutdown grace ran out.
    assert.doesNotMatch(server.output(), /grace period over/);
  });

  it('serves HTTPS with HSTS when TLS_CERT_FILE and TLS_KEY_FILE are set', async () => {
    const { cert, key } = selfSignedPair(dir, 'hsts');
    const server = await startServer({ apiKey: KEY, env: { TLS_CERT_FILE: cert, TLS_KEY_FILE: key } });
    try {
      assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const reply = await new Promise<{ status: number; hsts: unknown; body: string }>((resolve, reject) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port: server.port,
            path: '/generate',
            method: 'POST',
            ca: readFileSync(cert),
            headers: { 'content-type': 'application/json', 'x-api-key': KEY },
            agent: false,
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () =>
              resolve({ status: res.statusCode!, hsts: res.headers['strict-transport-security'], body }),
            );
          },
        );
        req.on('error', reject);
        req.end('{"mode":"password"}');
      });
      assert.equal(reply.status, 200);
      assert.equal(reply.hsts, 'max-age=31536000');
      ledger.addGenerated(JSON.parse(reply.body));
    } finally {
      assert.equal((await server.stop()).code, 0);
      ledger.assertAbsentFrom(server.output());
    }
  });

  it('logs nothing but the listening line with LOG_LEVEL=silent, and one safe line per request with debug', async () => {
    const silent = await startServer({ apiKey: KEY, logLevel: 'silent' });
    const r = await post(silent.url, KEY, { mode: 'password' });
    ledger.addGenerated(r.json);
    await request(silent.url, '/nope');
    assert.equal((await silent.stop()).code, 0);
    const lines = silent.output().trim().split('\n');
    assert.equal(lines.length, 1);
    assert.match(lines[0], /"msg":"listening on http:\/\/127\.0\.0\.1:\d+"/);

    const debug = await startServer({ apiKey: KEY, logLevel: 'debug' });
    await post(debug.url, KEY, '{');
    const got = await post(debug.url, KEY, { mode: 'passphrase' });
    ledger.addGenerated(got.json);
    assert.equal((await debug.stop()).code, 0);
    const requests = debug
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"request"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(requests.length, 2);
    const fields = ['client', 'id', 'key', 'level', 'method', 'ms', 'msg', 'route', 'status', 'time'];
    assert.deepEqual(
      requests.map((line) => [line.status, line.reason]),
      [
        [400, 'badJson'],
        [200, undefined],
      ],
      'an error says why, in a fixed word',
    );
    for (const line of requests) {
      assert.deepEqual(Object.keys(line).sort(), line.status === 400 ? [...fields, 'reason'].sort() : fields);
      assert.equal(line.client, '127.0.0.0/24');
      assert.equal(line.key, 'env');
    }
    assert.deepEqual(
      requests.map((l) => l.status),
      [400, 200],
    );
    ledger.assertAbsentFrom(silent.output() + debug.output());
  });

  it('refuses to start on a bad variable with one line naming it', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PORT: '70000' }, /^configuration error: PORT must be an integer from 0 to 65535 \(got "70000"\)\n$/],
      [{ RATE_LIMIT_PER_MINUTE: '0' }, /^configuration error: RATE_LIMIT_PER_MINUTE must be an integer/],
      [
        { MIN_ENTROPY_BITS: 'high' },
        /^configuration error: MIN_ENTROPY_BITS must be a number of bits from 0 to 256 \(got "high"\)\n$/,
      ],
      [
        { TLS_CERT_FILE: join(dir, 'nope.pem') },
        /^configuration error: TLS_KEY_FILE must be set together with TLS_CERT_FILE\n$/,
      ],
    ];
    await Promise.all(
      cases.map(async ([env, pattern]) => {
        const launched = launchServer({ env });
        assert.equal((await launched.exited).code, 1);
        assert.match(launched.output(), pattern);
      }),
    );
  });

  it('listens on IPv6 loopback and logs the client by its /56', async () => {
    const server = await startServer({ apiKey: KEY, env: { HOST: '::1' } });
    try {
      assert.match(server.url, /^http:\/\/\[::1\]:\d+$/);
      const r = await request(server.url, '/generate');
      assert.equal(r.status, 200);
      await server.waitForOutput(/"route":"\/generate","status":200,"ms":[\d.]+,"key":null,"client":"0:0:0:0::\/56"/);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it('closes the connection instead of reading a large body sent to a GET route', async () => {
    const server = await startServer({ apiKey: KEY });
    try {
      const head = `GET /health HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n${'a'.repeat(0x400)}\r\n`;
      const { text, closed } = await rawExchange(server.port, head, 30_000);
      assert.equal(parseRaw(text).status, 200);
      assert.match(parseRaw(text).head, /\r\nConnection: close\r\n/);
      assert.ok(closed);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it('reports a port in use on one line', async () => {
    const first = await startServer({ apiKey: KEY });
    try {
      const second = launchServer({ apiKey: KEY, env: { PORT: String(first.port) } });
      assert.equal((await second.exited).code, 1);
      assert.match(second.output(), /^cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\); check PORT and HOST$/m);
    } finally {
      await first.stop();
    }
  });
});
