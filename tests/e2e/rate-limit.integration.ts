/**
 * The rate limit as a client sees it, on the real server: countdown, 429 with Retry-After,
 * every keyed attempt counts, a batch is one slot, per-client buckets by source address,
 * keyless and failed-key attempts in buckets of their own, refill, X-Forwarded-For only with
 * TRUST_PROXY_HOPS.
 *
 * The servers run on a stepped clock (tests/helpers/stepped-clock.mjs): the limiter's time
 * stands still between requests and moves only when a test steps it, so every number below is
 * exact however long a busy machine takes to get the requests through (at 20 per minute a
 * token comes back every 3 s, and a loaded machine can take that long for a few requests).
 * One test checks the refill on the server's real clock as well.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';
import { assertCommonHeaders, Ledger, post, request, sleep, type Reply } from '../helpers/http.ts';

const KEY = randomApiKey();
const ledger = new Ledger();
ledger.add(KEY);
const servers: RunningServer[] = [];

async function start(options: Parameters<typeof startServer>[0]): Promise<RunningServer> {
  const server = await startServer({ apiKey: KEY, steppedClock: true, ...options });
  servers.push(server);
  return server;
}

after(async () => {
  for (const server of servers) {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
    ledger.assertAbsentFrom(server.output());
  }
});

const remaining = (r: Reply): number => Number(r.headers['x-ratelimit-remaining']);
const reset = (r: Reply): number => Number(r.headers['x-ratelimit-reset']);

describe('rate limit at the default 20 per minute', () => {
  let base: string;
  before(async () => {
    base = (await start({})).url;
  });

  it('counts every keyed POST /generate attempt down from 20, whatever its outcome, and 429s the 21st', async () => {
    const first = await request(base, '/health');
    assert.equal(first.headers['x-ratelimit-limit'], '20');
    assert.equal(remaining(first), 20);
    assert.equal(reset(first), 0);

    const seen: number[] = [];
    for (let i = 0; i < 20; i++) {
      // A mix of outcomes after the key: 200, a batch (one slot), 400, 413, wrong content type.
      let r: Reply;
      if (i === 0) r = await post(base, KEY, { mode: 'password', count: 20 });
      else if (i % 5 === 1) r = await post(base, KEY, '{');
      else if (i % 5 === 2) r = await post(base, KEY, { mode: 'password', options: { length: 7 } });
      else if (i % 5 === 3) r = await post(base, KEY, ' '.repeat(17_000));
      else if (i % 5 === 4)
        r = await request(base, '/generate', { method: 'POST', headers: { 'x-api-key': KEY }, body: 'x' });
      else r = await post(base, KEY, { mode: 'passphrase' });
      if (r.status === 200) ledger.addGenerated(r.json);
      assertCommonHeaders(r);
      seen.push(remaining(r));
      // 20 per 60 s: one token every 3 s, so n tokens missing are back in 3n s.
      assert.equal(reset(r), 3 * (i + 1), `reset after ${i + 1} attempts`);
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 20 }, (_, i) => 19 - i),
    );

    const limited = await post(base, KEY, { mode: 'password' });
    assert.equal(limited.status, 429);
    // The message gives the wait that Retry-After gives.
    assert.deepEqual(limited.json, { error: 'rate limit exceeded: retry after 3 seconds', status: 429 });
    assertCommonHeaders(limited);
    assert.equal(remaining(limited), 0);
    assert.equal(limited.headers['retry-after'], '3', 'the next token in 3 s');
    assert.equal(reset(limited), 60, 'the bucket full again in 60 s');
  });

  it('keeps keyless and failed-key attempts in buckets of their own', async () => {
    // The keyed bucket of 127.0.0.1 is empty now; neither of these touches it, nor it them.
    const keyless = await post(base, null, { mode: 'password' });
    assert.equal(keyless.status, 401);
    assert.equal(remaining(keyless), 19);
    const wrong = await post(base, `${KEY}x`, { mode: 'password' });
    assert.equal(wrong.status, 401);
    assert.equal(remaining(wrong), 19);
    assertCommonHeaders(wrong);
  });

  it('does not count a 429 or a GET against the client', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await post(base, KEY, { mode: 'password' })).status, 429);
    const get = await request(base, '/generate');
    assert.equal(get.status, 200);
    assert.equal(remaining(get), 0);
    assert.equal(get.headers['retry-after'], undefined, 'Retry-After only on a 429');
    assertCommonHeaders(get);
    const notFound = await request(base, '/nope');
    assert.equal(remaining(notFound), 0);
  });

  it('keeps a bucket per client: other source addresses are untouched', async () => {
    for (const localAddress of ['127.0.0.2', '127.0.0.3']) {
      const before = await request(base, '/health', { localAddress });
      assert.equal(remaining(before), 20, localAddress);
      const r = await post(base, KEY, { mode: 'password' }, { localAddress });
      assert.equal(r.status, 200, localAddress);
      ledger.addGenerated(r.json);
      assert.equal(remaining(r), 19);
      assert.equal(reset(r), 3, 'one token refills in 3 s');
    }
    const again = await post(base, KEY, { mode: 'password' }, { localAddress: '127.0.0.2' });
    assert.equal(remaining(again), 18);
    ledger.addGenerated(again.json);
    assert.equal((await post(base, KEY, { mode: 'password' })).status, 429, '127.0.0.1 is still limited');
  });

  it('ignores X-Forwarded-For when TRUST_PROXY_HOPS is 0', async () => {
    const r = await post(base, KEY, { mode: 'password' }, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    assert.equal(r.status, 429);
  });
});

describe('rate limit refill (RATE_LIMIT_PER_MINUTE=1200, one token per 50 ms)', () => {
  it('refills continuously and resets to full', async () => {
    const server = await start({ rateLimitPerMinute: 1200 });
    // 1200 per minute = 20 per second. Use 3 slots: full again in 150 ms, reported as 1 s.
    let last: Reply | undefined;
    for (let i = 0; i < 3; i++) {
      last = await post(server.url, KEY, { mode: 'password', options: { length: 7 } });
      assert.equal(last.status, 400);
    }
    assert.equal(remaining(last!), 1197);
    assert.equal(reset(last!), 1);
    // Continuous: 50 ms bring back one token, not a whole bucket.
    await server.setClock(50);
    const partly = await request(server.url, '/health');
    assert.equal(remaining(partly), 1198);
    assert.equal(reset(partly), 1);
    await server.setClock(149);
    assert.equal(remaining(await request(server.url, '/health')), 1199, 'the third token not yet back');
    await server.setClock(150);
    const full = await request(server.url, '/health');
    assert.equal(remaining(full), 1200);
    assert.equal(reset(full), 0);
  });

  it('lets a limited client back in after Retry-After seconds, not before', async () => {
    // 60 per minute: 60 at once empty the bucket, then one token per second.
    const server = await start({ rateLimitPerMinute: 60 });
    const statuses = await Promise.all(
      Array.from({ length: 61 }, () => post(server.url, KEY, {}).then((r) => r.status)),
    );
    assert.equal(statuses.filter((s) => s === 400).length, 60);
    assert.equal(statuses.filter((s) => s === 429).length, 1);
    const limited = await post(server.url, KEY, {});
    assert.equal(limited.status, 429);
    const retry = Number(limited.headers['retry-after']);
    assert.equal(retry, 1);
    assert.equal(reset(limited), 60);
    await server.setClock(retry * 1_000 - 1);
    assert.equal((await post(server.url, KEY, {})).status, 429, '1 ms before Retry-After');
    await server.setClock(retry * 1_000);
    const back = await post(server.url, KEY, { mode: 'password' });
    assert.equal(back.status, 200);
    ledger.addGenerated(back.json);
    assert.equal(remaining(back), 0);
  });

  it("refills on the server's own clock too", async () => {
    // The one test on real time: only what a wait guarantees is checked. After a 429 the
    // client waits the Retry-After it was given, so the token it names is back, however slow
    // the machine (the wait is a lower bound, and the server's clock ran at least as long).
    const server = await start({ rateLimitPerMinute: 60, steppedClock: false });
    let limited: Reply | undefined;
    for (let i = 0; i < 200 && limited === undefined; i++) {
      const r = await post(server.url, KEY, {});
      if (r.status === 429) limited = r;
      else assert.equal(r.status, 400);
    }
    assert.ok(limited !== undefined, 'limited within 200 requests');
    await sleep(Number(limited.headers['retry-after']) * 1_000);
    assert.equal((await post(server.url, KEY, {})).status, 400, 'let back in (a 400: the body is empty)');
  });
});

describe('TRUST_PROXY_HOPS=1', () => {
  it('keys clients by the right-most X-Forwarded-For entry', async () => {
    const { url } = await start({ rateLimitPerMinute: 2, env: { TRUST_PROXY_HOPS: '1' } });
    const as = (xff: string) => post(url, null, {}, { headers: { 'x-forwarded-for': xff } });
    assert.equal(remaining(await as('198.51.100.7')), 1);
    assert.equal(remaining(await as('10.0.0.1, 198.51.100.7')), 0, 'a spoofed left entry does not help');
    assert.equal((await as('192.0.2.1, 198.51.100.7')).status, 429);
    assert.equal(remaining(await as('198.51.100.8')), 1, 'another client');
    assert.equal(remaining(await as('2001:db8:aa:bb01::1')), 1);
    assert.equal(remaining(await as('2001:db8:aa:bbff::2')), 0, 'same /56');
    assert.equal(remaining(await post(url, null, {})), 1, 'no header: the socket address');
  });
});
