/**
 * What a Redis restart does to the shared limit (docs/redis-rate-limit.md, Restarts), measured
 * with a real redis-server: a client empties its bucket (20 x 200, then 429), Redis is stopped
 * (SIGTERM) and started again on the same port, and the client sends 20 more. Without
 * persistence Redis comes back empty and the client gets a full bucket again; with
 * `appendonly yes` the bucket is read back from the AOF and the client stays limited.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { post } from '../helpers/http.ts';
import { redisMissing, startRedis } from '../helpers/redis-server.ts';
import { randomApiKey, startServer } from '../helpers/server.ts';

const skip = redisMissing();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function afterRestart(persistence: 'none' | 'aof'): Promise<{ before: number[]; after: number[] }> {
  const redis = await startRedis({ persistence });
  const key = randomApiKey();
  const server = await startServer({ apiKey: key, env: { RATE_LIMIT_REDIS_URL: redis.url } });
  try {
    const before: number[] = [];
    for (let i = 0; i < 21; i++) before.push((await post(server.url, key, { mode: 'password' })).status);
    await redis.stop();
    await redis.start();
    // Let the client reconnect; a request meeting the outage would fall back to this
    // instance's own copy of the bucket (as limited) and say so in a warn line.
    await sleep(1_000);
    const from = server.output().length;
    const after: number[] = [];
    for (let i = 0; i < 20; i++) after.push((await post(server.url, key, { mode: 'password' })).status);
    assert.doesNotMatch(server.output().slice(from), /Redis unavailable/, 'every request was decided by Redis');
    return { before, after };
  } finally {
    await server.stop();
    await redis.close();
  }
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe('a Redis restart and the shared limit', { skip: skip ?? false, timeout: 120_000 }, () => {
  it('without persistence: the bucket is forgotten, a limited client gets a full one again', async (t) => {
    const { before, after } = await afterRestart('none');
    assert.deepEqual([count(before, 200), before.at(-1)], [20, 429], 'the bucket was empty before');
    t.diagnostic(`after the restart: ${count(after, 200)} x 200, ${count(after, 429)} x 429`);
    assert.ok(count(after, 200) >= 20, 'a full bucket: 20 x 200 in a row');
  });

  it('with appendonly yes: the bucket survives, the client stays limited', async (t) => {
    const { before, after } = await afterRestart('aof');
    assert.deepEqual([count(before, 200), before.at(-1)], [20, 429], 'the bucket was empty before');
    t.diagnostic(`after the restart: ${count(after, 200)} x 200, ${count(after, 429)} x 429`);
    // Only what refilled meanwhile (1 token per 3 s at 20 a minute) may pass.
    assert.ok(count(after, 200) <= 2, `${count(after, 200)} x 200`);
  });
});
