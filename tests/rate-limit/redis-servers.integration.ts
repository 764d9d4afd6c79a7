/**
 * Two real server processes sharing one real Redis (RATE_LIMIT_REDIS_URL): from one client
 * address, alternating between them, exactly `capacity` POSTs pass and the next is a 429 with
 * the exact Retry-After, the two instances' headers agree, and a refill after the stated
 * seconds lets exactly one more through. Then Redis is stopped under load: no 5xx, each
 * instance still limits on its own, one warn line each; restarted, the limit is shared again.
 * (How a claim about Redis's clock is timed: tests/helpers/shared-limits.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { redisMissing, startRedis, type RedisServer } from '../helpers/redis-server.ts';
import { randomApiKey, type RunningServer } from '../helpers/server.ts';
import { request, type Reply } from '../helpers/http.ts';
import { exactSharedLimit, onFreshBucket as onFresh, startServerPair } from '../helpers/shared-limits.ts';

const missing = redisMissing();
const KEY = randomApiKey();
/** 60 per minute: one token a second, so a refill takes a second, not three. */
const LIMIT = 60;

let redis: RedisServer;
let servers: RunningServer[] = [];

/** Source addresses with buckets nobody used (127.0.9.x; 127.0.0.1 is the outage test's). */
let sources = 0;
const freshSource = (): string => `127.0.9.${++sources}`;

function post(server: RunningServer, localAddress?: string): Promise<Reply> {
  return request(server.url, '/generate', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: '{"mode":"passphrase"}',
    ...(localAddress === undefined ? {} : { localAddress }),
  });
}

const onFreshBucket = (scenario: (from: string) => Promise<boolean>): Promise<void> =>
  onFresh('redis servers', freshSource, scenario);

before(async () => {
  if (missing !== null) return;
  redis = await startRedis();
  // The largest per-call timeout (5 s, not the production 50 ms): a busy machine must not
  // turn a slow answer into a fallback here; the stall test of redis-failover covers that.
  const env = {
    RATE_LIMIT_REDIS_URL: redis.url,
    RATE_LIMIT_REDIS_PREFIX: 'servers-test:',
    RATE_LIMIT_REDIS_TIMEOUT_MS: '5000',
  };
  servers = await startServerPair({ apiKey: KEY, rateLimitPerMinute: LIMIT, env });
});

after(async () => {
  for (const s of servers) await s.stop();
  if (missing === null) await redis.close();
});

describe('two instances, one Redis', { skip: missing ?? false }, () => {
  it('share one bucket: exactly the capacity passes, alternating, then a 429 with the exact Retry-After; both agree; one refill lets one more through', async () => {
    await onFreshBucket(async (from) => {
      const started = performance.now();
      // The capacity at once, alternating between the instances, then a 429 from each with
      // Retry-After: 1 (an empty bucket at 60 per minute).
      if (!(await exactSharedLimit(servers, (server, client) => post(server, client), from, LIMIT))) return false;

      // After those Retry-After seconds one token is back, and (within 2 s of the burst) only
      // one: one POST to each instance at once, exactly one passes.
      await delay(1_000);
      const again = await Promise.all([post(servers[1], from), post(servers[0], from)]);
      if (performance.now() - started >= 2_000) return false; // a second token may be back
      assert.deepEqual(again.map((r) => r.status).sort(), [200, 429], 'exactly one refilled token');
      return true;
    });
  });

  it('Redis stopped under load: no 5xx, each instance limits on its own, one warn line each; restarted: shared again', async () => {
    await redis.stop();
    const statuses: number[] = [];
    // Alternating, 2 x LIMIT + 10 requests: each instance's in-process bucket (never used so
    // far, so full) lets LIMIT through, plus what refills while this runs (one a second).
    const started = performance.now();
    for (let i = 0; i < 2 * LIMIT + 10; i++) statuses.push((await post(servers[i % 2])).status);
    const refill = Math.ceil((performance.now() - started) / 1000);
    assert.ok(
      statuses.every((s) => s < 500),
      `no 5xx: ${[...new Set(statuses)].join(',')}`,
    );
    const passed = statuses.filter((s) => s === 200).length;
    assert.ok(passed <= 2 * (LIMIT + refill), `each instance still limits (${passed} passed of ${statuses.length})`);
    assert.ok(passed >= 2 * LIMIT, `on its own bucket (${passed} passed)`);
    for (const s of servers) {
      await s.waitForOutput(/"level":"warn","msg":"rate limit: Redis unavailable/);
      assert.equal(s.output().match(/Redis unavailable/g)?.length, 1, 'one warn line per change of state');
    }

    await redis.start();
    const since = performance.now();
    for (const s of servers) await s.waitForOutput(/"msg":"rate limit: Redis answering again/);
    const recovered = performance.now() - since;
    // The stores probe with a backoff capped at 2 s, so well within 15 s even when busy.
    assert.ok(recovered < 15_000, `shared again after ${Math.round(recovered)} ms`);
    // Shared again: a fresh Redis holds a full bucket that both instances now draw from. One
    // POST to each at once (within a refill interval, or again on a fresh bucket).
    await onFreshBucket(async (from) => {
      const started = performance.now();
      const both = await Promise.all([post(servers[0], from), post(servers[1], from)]);
      if (performance.now() - started >= 1_000) return false;
      assert.deepEqual(
        both.map((r) => r.status),
        [200, 200],
      );
      assert.deepEqual(both.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort(), [LIMIT - 2, LIMIT - 1]);
      return true;
    });
  });
});
