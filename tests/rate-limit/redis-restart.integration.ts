/**
 * What a Redis restart does to the shared limit (docs/redis-rate-limit.md, Restarts), measured
 * with a real redis-server: a client empties its bucket (20 x 200, then 429), Redis is stopped
 * (SIGTERM) and started again on the same port, and the client sends 20 more through a second
 * instance started after the restart (the first one keeps its own view of the empty bucket and
 * refuses locally until that view refills: security finding T2). Without persistence Redis
 * comes back empty and the client gets a full bucket again; with `appendonly yes` the bucket is
 * read back from the AOF and the client stays limited.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { post } from '../helpers/http.ts';
import { redisMissing, startRedis } from '../helpers/redis-server.ts';
import { randomApiKey, startServer } from '../helpers/server.ts';

const skip = redisMissing();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function afterRestart(
  persistence: 'none' | 'aof',
): Promise<{ before: number[]; after: number[]; sameInstance: number[] }> {
  const redis = await startRedis({ persistence });
  const key = randomApiKey();
  const env = { RATE_LIMIT_REDIS_URL: redis.url };
  const servers = [await startServer({ apiKey: key, env })];
  try {
    const before: number[] = [];
    for (let i = 0; i < 21; i++) before.push((await post(servers[0].url, key, { mode: 'password' })).status);
    await redis.stop();
    await redis.start();
    // Let the first instance reconnect; a request meeting the outage would fall back to its
    // own copy of the bucket (as limited) and say so in a warn line.
    await sleep(1_000);
    servers.push(await startServer({ apiKey: key, env }));
    const from = servers.map((s) => s.output().length);
    const after: number[] = [];
    for (let i = 0; i < 20; i++) after.push((await post(servers[1].url, key, { mode: 'password' })).status);
    // The instance that saw the bucket empty refuses from its own view, whatever Redis forgot.
    const sameInstance = [(await post(servers[0].url, key, { mode: 'password' })).status];
    servers.forEach((s, i) => {
      assert.doesNotMatch(s.output().slice(from[i]), /Redis unavailable/, 'every request was decided by Redis');
    });
    return { before, after, sameInstance };
  } finally {
    for (const s of servers) await s.stop();
    await redis.close();
  }
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe('a Redis restart and the shared limit', { skip: skip ?? false, timeout: 120_000 }, () => {
  it('without persistence: the bucket is forgotten, a limited client gets a full one again', async (t) => {
    const { before, after, sameInstance } = await afterRestart('none');
    assert.deepEqual([count(before, 200), before.at(-1)], [20, 429], 'the bucket was empty before');
    t.diagnostic(`after the restart: ${count(after, 200)} x 200, ${count(after, 429)} x 429`);
    assert.ok(count(after, 200) >= 20, 'a full bucket: 20 x 200 in a row');
    // The instance that saw the bucket empty still refuses from its own view (T2).
    assert.deepEqual(sameInstance, [429]);
  });

  it('with appendonly yes: the bucket survives, the client stays limited', async (t) => {
    const { before, after, sameInstance } = await afterRestart('aof');
    assert.deepEqual(sameInstance, [429]);
    assert.deepEqual([count(before, 200), before.at(-1)], [20, 429], 'the bucket was empty before');
    t.diagnostic(`after the restart: ${count(after, 200)} x 200, ${count(after, 429)} x 429`);
    // Only what refilled meanwhile (1 token per 3 s at 20 a minute) may pass.
    assert.ok(count(after, 200) <= 2, `${count(after, 200)} x 200`);
  });
});
