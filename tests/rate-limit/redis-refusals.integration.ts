/**
 * T2 (docs/security.md): with RATE_LIMIT_REDIS_URL, a refusal this instance can decide from its
 * own view costs no Redis call, and what an instance granted while Redis was out is charged to
 * Redis when it is shared again. Script calls are counted by the real redis-server itself
 * (`INFO commandstats`: EVALSHA and EVAL), against real server processes.
 *
 * Before the fix every POST /generate ran the script, so 100 keyless POSTs from one address
 * (the no-key bucket is empty after the limit) cost 100 calls; and the grants of the in-process
 * fallback were never written back, so another instance granted the same client a full bucket
 * again after the outage.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { post, type Reply } from '../helpers/http.ts';
import { command, redisMissing, startRedis, type RedisServer } from '../helpers/redis-server.ts';
import { randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';

const missing = redisMissing();
const KEY = randomApiKey();

/** Script calls Redis has run since the last reset: EVALSHA plus EVAL (after NOSCRIPT). */
async function scriptCalls(redis: RedisServer): Promise<number> {
  const info = String(await command(redis, 'INFO', 'commandstats'));
  let calls = 0;
  for (const name of ['evalsha', 'eval']) {
    const m = new RegExp(`^cmdstat_${name}:calls=(\\d+),`, 'm').exec(info);
    if (m !== null) calls += Number(m[1]);
  }
  return calls;
}

/** The script calls `requests` cost, counted by Redis. */
async function callsFor(redis: RedisServer, requests: () => Promise<void>): Promise<number> {
  await command(redis, 'CONFIG', 'RESETSTAT');
  await requests();
  return scriptCalls(redis);
}

const statuses = (replies: readonly Reply[]): number[] => replies.map((r) => r.status);

describe('T2: refusals this instance can decide cost no Redis call', { skip: missing ?? false }, () => {
  /** 20 a minute, the default: a token comes back every 3 s. */
  const LIMIT = 20;
  let redis: RedisServer;
  let server: RunningServer;

  before(async () => {
    redis = await startRedis();
    server = await startServer({
      apiKey: KEY,
      rateLimitPerMinute: LIMIT,
      env: {
        RATE_LIMIT_REDIS_URL: redis.url,
        RATE_LIMIT_REDIS_PREFIX: 'test:t2:',
        // Generous: a busy machine must not turn this into a test of the fallback, where no
        // call reaches Redis at all.
        RATE_LIMIT_REDIS_TIMEOUT_MS: '5000',
      },
    });
  });

  after(async () => {
    await server?.stop();
    await redis?.close();
  });

  it('T2: 100 keyless POSTs from one address cost fewer than 50 script calls; a keyed POST that takes a token costs exactly one', async () => {
    const from = '127.0.21.1';
    const replies: Reply[] = [];
    const keyless = await callsFor(redis, async () => {
      for (let i = 0; i < 100; i++)
        replies.push(await post(server.url, null, { mode: 'password' }, { localAddress: from }));
    });
    const keyed: Reply[] = [];
    const keyedCalls = await callsFor(redis, async () => {
      keyed.push(await post(server.url, KEY, { mode: 'password' }, { localAddress: from }));
    });
    process.stdout.write(`T2 script calls: 100 keyless POSTs ${keyless}, 1 keyed POST ${keyedCalls}\n`);
    // The no-key bucket gives 401s while it has tokens, then 429s (a token may come back in
    // between on a slow machine: a 401 then, and one more call).
    assert.deepEqual(statuses(replies.slice(0, LIMIT)), Array<number>(LIMIT).fill(401));
    assert.ok(
      replies.slice(LIMIT).every((r) => r.status === 429 || r.status === 401),
      String(statuses(replies)),
    );
    assert.ok(keyless < 50, `script calls for 100 keyless POSTs: ${keyless}`);
    // Each refusal carries the numbers this instance saw: Retry-After at most one interval.
    const last = replies.at(-1)!;
    if (last.status === 429) {
      assert.equal(last.headers['x-ratelimit-remaining'], '0');
      assert.ok(Number(last.headers['retry-after']) >= 1 && Number(last.headers['retry-after']) <= 3);
    }
    // The client's own bucket is untouched by its keyless attempts: the keyed POST is granted,
    // and it costs exactly one call.
    assert.deepEqual(statuses(keyed), [200]);
    assert.equal(keyed[0].headers['x-ratelimit-remaining'], String(LIMIT - 1));
    assert.equal(keyedCalls, 1, 'script calls for one keyed POST');
  });
});
