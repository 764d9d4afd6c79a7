/**
 * S2 (docs/security.md): with RATE_LIMIT_REDIS_URL, only a request that takes a token reaches
 * Redis. Script calls are counted by the real redis-server itself (`INFO commandstats`: EVALSHA
 * and EVAL), against real server processes.
 *
 * Before the fix every reply carried numbers read from Redis by a read-only script call, so 100
 * `GET /health` cost 100 calls, and a GET flood pushed the instance into its in-process
 * fallback. Replies that take no token now carry this instance's view of the client's shared
 * bucket: the state Redis last answered for that client here, refilled since
 * (docs/redis-rate-limit.md, Token-free replies).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest } from '../helpers/hardening-kit.ts';
import { post, request, type Reply } from '../helpers/http.ts';
import { redisMissing, scriptCallsFor, startRedis, type RedisServer } from '../helpers/redis-server.ts';
import { randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';

const missing = redisMissing();
const KEY = randomApiKey();
/** 6 a minute: a token comes back every 10 s, so the numbers a test reads cannot move by a
 * refill while it runs (checked on this process's clock). */
const LIMIT = 6;
const REFILL_MS = 60_000 / LIMIT;

let redis: RedisServer;
let servers: RunningServer[] = [];

before(async () => {
  if (missing !== null) return;
  redis = await startRedis();
  const env = {
    RATE_LIMIT_REDIS_URL: redis.url,
    RATE_LIMIT_REDIS_PREFIX: 'test:s2:',
    // Generous: a busy machine must not turn this into a test of the fallback, where no call
    // reaches Redis at all.
    RATE_LIMIT_REDIS_TIMEOUT_MS: '5000',
  };
  servers = await Promise.all([0, 1].map(() => startServer({ apiKey: KEY, rateLimitPerMinute: LIMIT, env })));
});

after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await redis?.close();
});

/** The script calls `requests` cost, counted by Redis. */
const callsFor = (requests: () => Promise<void>): Promise<number> => scriptCallsFor(redis, requests);

const remaining = (r: { headers: Record<string, unknown> }): number => Number(r.headers['x-ratelimit-remaining']);

describe('S2: only a request that takes a token reaches Redis', { skip: missing ?? false }, () => {
  it('S2: 100 GET /health and every other token-free reply cost 0 script calls; a POST costs exactly one', async () => {
    const [server] = servers;
    const from = '127.0.20.1';
    const health = await callsFor(async () => {
      for (let i = 0; i < 100; i++) {
        const r = await request(server.url, '/health', { localAddress: from });
        assert.equal(r.status, 200);
      }
    });
    const statuses: number[] = [];
    const others = await callsFor(async () => {
      for (const [path, method] of [
        ['/', 'GET'],
        ['/service-api.js', 'GET'],
        ['/openapi.json', 'HEAD'],
        ['/generate', 'GET'],
        ['/nope', 'GET'],
        ['/health', 'DELETE'],
      ] as const) {
        statuses.push((await request(server.url, path, { method, localAddress: from })).status);
      }
      // A 400 from the head checks, before the key: HTTP/1.1 without Host.
      const noHost = await rawRequest(server.port, 'POST /generate HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}', {
        localAddress: from,
      });
      statuses.push(noHost?.status ?? 0);
    });
    assert.deepEqual(statuses, [200, 200, 200, 200, 404, 405, 400]);
    const posted = await callsFor(async () => {
      const r = await post(server.url, KEY, { mode: 'password' }, { localAddress: from });
      assert.equal(r.status, 200);
    });
    process.stdout.write(
      `S2 script calls: 100 GET /health ${health}, 7 other token-free replies ${others}, 1 POST ${posted}\n`,
    );
    assert.equal(health, 0, 'script calls for 100 GET /health');
    assert.equal(others, 0, 'script calls for the other token-free replies');
    assert.equal(posted, 1, 'script calls for one POST');
  });

  it("S2: a GET after a client's POSTs on the same instance carries that client's remaining tokens (this instance's view)", async () => {
    const [server, other] = servers;
    for (let attempt = 1; ; attempt++) {
      // A client of its own each attempt.
      const from = `127.0.20.${1 + attempt}`;
      const started = performance.now();
      const posts: Reply[] = [];
      for (let i = 0; i < 4; i++) posts.push(await post(server.url, KEY, { mode: 'password' }, { localAddress: from }));
      const got = await request(server.url, '/health', { localAddress: from });
      const elsewhere = await request(other.url, '/health', { localAddress: from });
      const shared = await post(other.url, KEY, { mode: 'password' }, { localAddress: from });
      if (performance.now() - started >= REFILL_MS) {
        // A token may have come back in between: nothing here can be compared.
        assert.ok(attempt < 5, 'five attempts in a row took longer than a refill interval');
        continue;
      }
      assert.deepEqual(
        posts.map((r) => [r.status, remaining(r)]),
        [
          [200, LIMIT - 1],
          [200, LIMIT - 2],
          [200, LIMIT - 3],
          [200, LIMIT - 4],
        ],
      );
      // The same numbers as the last POST, from this instance's view, without a Redis call.
      assert.equal(remaining(got), LIMIT - 4);
      // Reset counts down whole seconds; a few milliseconds later it may have crossed one.
      const resetDrop = Number(posts[3].headers['x-ratelimit-reset']) - Number(got.headers['x-ratelimit-reset']);
      assert.ok(
        resetDrop === 0 || resetDrop === 1,
        `Reset ${String(got.headers['x-ratelimit-reset'])} after ${String(posts[3].headers['x-ratelimit-reset'])}`,
      );
      // Another instance that has not decided for this client shows a full bucket; the client's
      // next POST there is decided by the shared bucket.
      assert.equal(remaining(elsewhere), LIMIT);
      assert.equal(remaining(shared), LIMIT - 5);
      return;
    }
  });
});
