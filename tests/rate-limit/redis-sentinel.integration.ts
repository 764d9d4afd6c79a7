/**
 * Two real server processes sharing their limits through Redis behind Sentinel (1 master, 1
 * replica, 3 sentinels on loopback; RATE_LIMIT_REDIS_SENTINELS and _SENTINEL_MASTER), clients
 * told apart by X-Forwarded-For (TRUST_PROXY_HOPS=1):
 * - exactly the capacity passes across both instances, then a 429 with the exact Retry-After;
 * - the master killed under load: the sentinels promote the replica, no 5xx, one warn line per
 *   change of state, and shared limiting resumes on the new master.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { redisKey } from '../../lib/rate-limit/redis-keys.ts';
import { request, type Reply } from '../helpers/http.ts';
import {
  nodeCommand,
  redisToolsMissing,
  startSentinelGroup,
  TOPOLOGY_TIMEOUT_MS,
  until,
  type SentinelGroup,
} from '../helpers/redis-topologies.ts';
import { randomApiKey, type RunningServer } from '../helpers/server.ts';
import { exactSharedLimit, onFreshBucket, steadyLoad, startServerPair } from '../helpers/shared-limits.ts';

const missing = redisToolsMissing(['redis-server', 'redis-sentinel']);
const KEY = randomApiKey();
const PREFIX = 'sentinel-test:';
const LIMIT = 20;
const UNAVAILABLE = /"level":"warn","msg":"rate limit: Redis unavailable/g;
const AGAIN = /"level":"warn","msg":"rate limit: Redis answering again/g;

let group: SentinelGroup;
let servers: RunningServer[] = [];

function post(server: RunningServer, client: string): Promise<Reply> {
  return request(server.url, '/generate', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'x-forwarded-for': client },
    body: '{"mode":"passphrase"}',
  });
}

let fresh = 0;
const freshClient = (): string => `198.19.${(++fresh >> 8) & 255}.${fresh & 255}`;

before(async () => {
  if (missing !== null) return;
  group = await startSentinelGroup();
  const env = {
    RATE_LIMIT_REDIS_SENTINELS: group.addresses,
    RATE_LIMIT_REDIS_SENTINEL_MASTER: group.masterName,
    RATE_LIMIT_REDIS_PREFIX: PREFIX,
    // Generous, so a busy machine never turns a slow answer into a fallback here.
    RATE_LIMIT_REDIS_TIMEOUT_MS: '2000',
    TRUST_PROXY_HOPS: '1',
  };
  servers = await startServerPair({ apiKey: KEY, rateLimitPerMinute: LIMIT, env });
});

after(async () => {
  for (const s of servers) await s.stop();
  if (missing === null) await group?.close();
});

describe('two instances on Redis behind Sentinel', { skip: missing ?? false }, () => {
  it('share one bucket on the master: exactly the capacity passes across both, then a 429 with the exact Retry-After', async () => {
    let client = '';
    await onFreshBucket('redis sentinel', freshClient, (c) => {
      client = c;
      return exactSharedLimit(servers, post, c, LIMIT);
    });
    assert.equal(await nodeCommand(group.master.port, 'EXISTS', redisKey(PREFIX, client)), 1, 'on the master');
    for (const s of servers) assert.equal(s.output().match(UNAVAILABLE), null, 'never fell back');
  });

  it('the master killed under load: the replica is promoted, no 5xx, shared again on the new master', async () => {
    const load = steadyLoad(
      servers,
      post,
      Array.from({ length: 1_000 }, (_, i) => `10.66.${i >> 8}.${i & 255}`),
      6,
    );
    const marks = servers.map((s) => s.output().length);
    const killedAt = performance.now();
    await group.killMaster();
    await until('the sentinels promote the replica', async () =>
      (await group.masterPort()) === group.replica.port ? true : undefined,
    );
    const promotedAt = performance.now();
    for (const [i, s] of servers.entries()) await s.waitForOutput(/Redis unavailable/, TOPOLOGY_TIMEOUT_MS, marks[i]);
    for (const [i, s] of servers.entries())
      await s.waitForOutput(/Redis answering again/, TOPOLOGY_TIMEOUT_MS, marks[i]);
    const sharedAgainAt = performance.now();
    const statuses = await load.stop();
    process.stdout.write(
      `redis sentinel: master killed; promoted after ${Math.round(promotedAt - killedAt)} ms, both instances shared again after ${Math.round(sharedAgainAt - killedAt)} ms; ${statuses.length} requests under load\n`,
    );

    assert.ok(statuses.length > 0);
    assert.deepEqual(
      statuses.filter((s) => s >= 500),
      [],
      'no 5xx',
    );
    for (const [i, s] of servers.entries()) {
      const since = s.output().slice(marks[i]);
      assert.equal(since.match(UNAVAILABLE)?.length, 1, 'one warn line per change of state');
      assert.equal(since.match(AGAIN)?.length, 1, 'one warn line per change of state');
    }
    let client = '';
    await onFreshBucket('redis sentinel after failover', freshClient, (c) => {
      client = c;
      return exactSharedLimit(servers, post, c, LIMIT);
    });
    assert.equal(
      await nodeCommand(group.replica.port, 'EXISTS', redisKey(PREFIX, client)),
      1,
      'on the promoted replica',
    );
  });
});
