/**
 * Two real server processes sharing one real Redis (RATE_LIMIT_REDIS_URL): from one client
 * address, alternating between them, exactly `capacity` POSTs pass and the next is a 429 with
 * the exact Retry-After, the two instances' headers agree, and a refill after the stated
 * seconds lets exactly one more through. Then Redis is stopped under load: no 5xx, each
 * instance still limits on its own, one warn line each; restarted, the limit is shared again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { redisMissing, startRedis, type RedisServer } from '../helpers/redis-server.ts';
import { randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';
import { request, type Reply } from '../http/support.ts';

const missing = redisMissing();
const KEY = randomApiKey();
/** 60 per minute: one token a second, so a refill takes a second, not three. */
const LIMIT = 60;

let redis: RedisServer;
let servers: RunningServer[] = [];

function post(server: RunningServer): Promise<Reply> {
  return request(server.url, '/generate', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: '{"mode":"passphrase"}' });
}

function numbers(r: Reply): { remaining: string; reset: string; retryAfter: string | undefined } {
  return { remaining: String(r.headers['x-ratelimit-remaining']), reset: String(r.headers['x-ratelimit-reset']), retryAfter: r.headers['retry-after'] as string | undefined };
}

before(async () => {
  if (missing !== null) return;
  redis = await startRedis();
  const env = { RATE_LIMIT_REDIS_URL: redis.url, RATE_LIMIT_REDIS_PREFIX: 'servers-test:' };
  servers = await Promise.all([0, 1].map(() => startServer({ apiKey: KEY, rateLimitPerMinute: LIMIT, env })));
});

after(async () => {
  for (const s of servers) await s.stop();
  if (missing === null) await redis.close();
});

describe('two instances, one Redis', { skip: missing ?? false }, () => {
  it('share one bucket: exactly the capacity passes, alternating, then a 429 with the exact Retry-After; both agree; one refill lets one more through', async () => {
    const replies: Reply[] = [];
    for (let i = 0; i < LIMIT; i++) replies.push(await post(servers[i % 2]!));
    assert.deepEqual(
      replies.map((r) => r.status),
      replies.map(() => 200),
    );
    // Remaining counts down across both instances: one bucket, not two.
    assert.deepEqual(
      replies.map((r) => Number(r.headers['x-ratelimit-remaining'])),
      replies.map((_, i) => LIMIT - 1 - i),
    );
    const refused = await post(servers[0]!);
    assert.equal(refused.status, 429);
    // Empty bucket at 60 per minute: the next token in at most one second.
    assert.equal(refused.headers['retry-after'], '1');
    const other = await post(servers[1]!);
    assert.equal(other.status, 429);
    assert.deepEqual(numbers(other), numbers(refused), 'both instances report the same numbers');

    await delay(Number(refused.headers['retry-after']) * 1000);
    const again = await post(servers[1]!);
    assert.equal(again.status, 200, 'the refilled token');
    assert.equal((await post(servers[0]!)).status, 429, 'exactly one');
  });

  it('Redis stopped under load: no 5xx, each instance limits on its own, one warn line each; restarted: shared again', async () => {
    await redis.stop();
    const statuses: number[] = [];
    // Alternating, 2 x LIMIT + 10 requests: each instance's in-process bucket (never used so
    // far, so full) lets LIMIT through, plus what refills while this runs (one a second).
    const started = performance.now();
    for (let i = 0; i < 2 * LIMIT + 10; i++) statuses.push((await post(servers[i % 2]!)).status);
    const refill = Math.ceil((performance.now() - started) / 1000);
    assert.ok(statuses.every((s) => s < 500), `no 5xx: ${[...new Set(statuses)].join(',')}`);
    const passed = statuses.filter((s) => s === 200).length;
    assert.ok(passed <= 2 * (LIMIT + refill), `each instance still limits (${passed} passed of ${statuses.length})`);
    assert.ok(passed >= 2 * LIMIT, `on its own bucket (${passed} passed)`);
    for (const s of servers) {
      await s.waitForOutput(/"level":"warn","msg":"rate limit: Redis unavailable/, 5_000);
      assert.equal(s.output().match(/Redis unavailable/g)?.length, 1, 'one warn line per change of state');
    }

    await redis.start();
    const since = performance.now();
    for (const s of servers) await s.waitForOutput(/"msg":"rate limit: Redis answering again/, 15_000);
    const recovered = performance.now() - since;
    assert.ok(recovered < 15_000, `shared again after ${Math.round(recovered)} ms`);
    // Shared again: a fresh Redis holds a full bucket that both instances now draw from.
    const first = await post(servers[0]!);
    const second = await post(servers[1]!);
    assert.equal(first.status, 200);
    assert.equal(Number(second.headers['x-ratelimit-remaining']), Number(first.headers['x-ratelimit-remaining']) - 1);
  });
});
