/**
 * POST /generate in process at a small rate limit: the 429 once a client's bucket is empty,
 * and a refusal of a request that declared no body keeping its connection (the contract suite,
 * tests/helpers/service-suite.ts, runs with a limit no request reaches).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
    assert.deepEqual(refused.json, { error: 'rate limit exceeded', status: 429 });
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 30, String(retryAfter));
  });

  it('keeps the connection of a refused request that declared no body (nothing unread to skip)', async () => {
    const port = Number(new URL(server.url).port);
    // No key: a 401 answered before any body is read; then a second request on the same
    // connection, which is answered only if the first refusal kept it.
    const reply = await rawExchange(
      port,
      'POST /generate HTTP/1.1\r\nHost: t\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n',
      30_000,
    );
    const first = parseRaw(reply.text);
    assert.equal(first.status, 401);
    assert.doesNotMatch(first.head, /\r\nconnection: close/i);
    const second = parseRaw(reply.text.slice(reply.text.indexOf(first.body) + first.body.length));
    assert.equal(second.status, 200);
    assert.equal(second.body, '{"status":"ok"}');
  });
});
