/**
 * POST /generate in process at a small rate limit: the 429 once a client's bucket is empty, a
 * refusal keeping its connection when no body was declared and closing it when one was, and
 * the fixed 500 when generating throws (the contract suite, tests/helpers/service-suite.ts,
 * runs with a limit no request reaches and a generator that never throws).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultRandom } from '../../lib/core/random.ts';
import { startInProcess } from '../helpers/in-process.ts';
import { parseRaw, post, rawExchange } from '../helpers/http.ts';
import { randomApiKey, type RunningServer } from '../helpers/server.ts';

describe('POST /generate at a rate limit of 2 a minute', () => {
  const KEY = randomApiKey();
  let server: RunningServer;

  before(async () => {
    server = await startInProcess({ apiKey: KEY, rateLimitPerMinute: 2 });
  });

  after(async () => {
    assert.equal((await server.stop()).code, 0);
  });

  it('answers the third request in a minute 429 with Retry-After, and generates nothing for it', async () => {
    for (const remaining of ['1', '0']) {
      const ok = await post(server.url, KEY, { mode: 'password' });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['x-ratelimit-remaining'], remaining);
      assert.equal(ok.headers['retry-after'], undefined);
    }
    const refused = await post(server.url, KEY, { mode: 'password' });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 30, String(retryAfter));
    // T31-retry: the message gives the same wait as Retry-After.
    assert.deepEqual(refused.json, {
      error: `rate limit exceeded: retry after ${retryAfter} ${retryAfter === 1 ? 'second' : 'seconds'}`,
      status: 429,
    });
  });

  it('keeps the connection of a refused request that declared no body (nothing unread to skip)', async () => {
    const port = Number(new URL(server.url).port);
    // No key: a 401 answered before any body is read (no Content-Length, then Content-Length: 0);
    // then a request on the same connection, which is answered only if the refusals kept it.
    const reply = await rawExchange(
      port,
      'POST /generate HTTP/1.1\r\nHost: t\r\n\r\n' +
        'POST /generate HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n' +
        'GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n',
      30_000,
    );
    let rest = reply.text;
    for (const expected of [401, 401, 200]) {
      const { status, head, body } = parseRaw(rest);
      assert.equal(status, expected);
      if (expected === 401) assert.doesNotMatch(head, /\r\nconnection: close/i);
      else assert.equal(JSON.parse(body).status, 'ok');
      rest = rest.slice(rest.indexOf(body, head.length) + body.length);
    }
  });

  it('closes the connection of a refused request that declared a chunked body (its rest is never read)', async () => {
    const port = Number(new URL(server.url).port);
    const reply = await rawExchange(
      port,
      'POST /generate HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n5\r\n{"mod',
      30_000,
    );
    const { status, head } = parseRaw(reply.text);
    // No key: 401, or 429 once the keyless bucket (2 a minute) is spent; both come before any body.
    assert.ok(status === 401 || status === 429, String(status));
    assert.match(head, /\r\nconnection: close/i);
    assert.equal(reply.closed, true);
  });

  it('answers the fixed 500 when generating throws, without the error in the body, and keeps serving', async () => {
    // An own property shadows the class's method; deleting it puts the method back.
    Object.defineProperty(defaultRandom, 'below', {
      configurable: true,
      value: () => {
        throw new Error('boom in the draw');
      },
    });
    try {
      // This client's bucket of the suite's server is empty by now: a server of its own.
      const other = await startInProcess({ apiKey: KEY, rateLimitPerMinute: 100 });
      try {
        const failed = await post(other.url, KEY, { mode: 'password' });
        assert.equal(failed.status, 500);
        assert.deepEqual(failed.json, { error: 'internal error', status: 500 });
        Reflect.deleteProperty(defaultRandom, 'below');
        assert.equal((await post(other.url, KEY, { mode: 'password' })).status, 200);
      } finally {
        await other.stop();
      }
    } finally {
      Reflect.deleteProperty(defaultRandom, 'below');
    }
  });
});
