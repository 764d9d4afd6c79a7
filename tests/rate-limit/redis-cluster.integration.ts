/**
 * Two real server processes sharing their limits through a real Redis Cluster (3 masters, 3
 * replicas on loopback, RATE_LIMIT_REDIS_CLUSTER_NODES), clients told apart by X-Forwarded-For
 * (TRUST_PROXY_HOPS=1):
 * - exactly the capacity passes across both instances, then a 429 with the exact Retry-After;
 *   the failed-key gate holds across both (gate and bucket in one script call, one slot);
 * - 1,000 clients' buckets land on all three masters, and no MOVED, ASK, CROSSSLOT or NOSCRIPT
 *   error reaches a client or a fallback (each node's own error counts say so);
 * - a master killed under load: its replica takes over, no 5xx, a client that was out of
 *   tokens stays out, one warn line per change of state, and shared limiting resumes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { keySlot, redisKey } from '../../lib/rate-limit/redis-keys.ts';
import { request, type Reply } from '../helpers/http.ts';
import {
  errorCounts,
  info,
  nodeCommand,
  redisToolsMissing,
  startCluster,
  TOPOLOGY_TIMEOUT_MS,
  until,
  type RedisCluster,
} from '../helpers/redis-topologies.ts';
import { randomApiKey, type RunningServer } from '../helpers/server.ts';
import { exactSharedLimit, onFreshBucket, steadyLoad, startServerPair } from '../helpers/shared-limits.ts';

const missing = redisToolsMissing(['redis-server', 'redis-cli']);
const KEY = randomApiKey();
const PREFIX = 'cluster-test:';
const UNAVAILABLE = /"level":"warn","msg":"rate limit: Redis unavailable/g;
const AGAIN = /"level":"warn","msg":"rate limit: Redis answering again/g;
/** What must never be the reason of a fallback on a healthy cluster. */
const ROUTING_ERRORS = ['MOVED', 'ASK', 'CROSSSLOT', 'TRYAGAIN', 'NOSCRIPT'];

let cluster: RedisCluster;
let servers: RunningServer[] = [];

function post(server: RunningServer, client: string, key = KEY): Promise<Reply> {
  return request(server.url, '/generate', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-forwarded-for': client },
    body: '{"mode":"passphrase"}',
  });
}

/** Two instances on the cluster with this limit (any earlier pair is stopped first). */
async function startPair(limit: number): Promise<void> {
  for (const s of servers) await s.stop();
  servers = [];
  const env = {
    RATE_LIMIT_REDIS_CLUSTER_NODES: cluster.seeds,
    RATE_LIMIT_REDIS_PREFIX: PREFIX,
    // Generous, so a busy machine never turns a slow answer into a fallback here (the fallback
    // on a deadline is redis-failover's subject); a dead node answers at once anyway.
    RATE_LIMIT_REDIS_TIMEOUT_MS: '2000',
    TRUST_PROXY_HOPS: '1',
  };
  servers = await startServerPair({ apiKey: KEY, rateLimitPerMinute: limit, env });
  // Both have proved every master with their start-up probe.
  for (const s of servers) assert.equal(s.output().match(UNAVAILABLE), null, s.output());
}

let fresh = 0;
const freshClient = (): string => `198.18.${(++fresh >> 8) & 255}.${fresh & 255}`;

before(async () => {
  if (missing !== null) return;
  cluster = await startCluster();
});

after(async () => {
  for (const s of servers) await s.stop();
  if (missing === null) await cluster?.close();
});

/** Checks that no live node has answered a routing error so far (node-redis would follow a
 * MOVED or ASK, but each one is a call sent to the wrong node first); returns how often the
 * nodes answered NOSCRIPT. */
async function noRoutingErrors(): Promise<number> {
  const sums: Record<string, number> = Object.fromEntries(ROUTING_ERRORS.map((code) => [code, 0]));
  for (const node of cluster.nodes) {
    const counts: Record<string, number> = await errorCounts(node.port).catch(() => ({})); // a killed node
    for (const code of ROUTING_ERRORS) sums[code] += counts[code] ?? 0;
  }
  assert.deepEqual({ ...sums, NOSCRIPT: 0 }, { MOVED: 0, ASK: 0, CROSSSLOT: 0, TRYAGAIN: 0, NOSCRIPT: 0 });
  return sums.NOSCRIPT;
}

describe('two instances on a Redis Cluster', { skip: missing ?? false }, () => {
  it('share one bucket: exactly the capacity passes across both, then a 429 with the exact Retry-After', async () => {
    await startPair(20);
    await onFreshBucket('redis cluster', freshClient, (client) => exactSharedLimit(servers, post, client, 20));
  });

  it('the failed-key gate holds across both instances: gate and bucket in one call, on one slot', async () => {
    const wrong = randomApiKey();
    await onFreshBucket('redis cluster gate', freshClient, async (client) => {
      const started = performance.now();
      const failed = await Promise.all(Array.from({ length: 20 }, (_, i) => post(servers[i % 2], client, wrong)));
      const right = await Promise.all([post(servers[0], client), post(servers[1], client)]);
      if (performance.now() - started >= 3_000) return false;
      assert.deepEqual(
        failed.map((r) => r.status),
        failed.map(() => 401),
      );
      // The failed-key bucket is empty: the right key is refused with its numbers, on both.
      assert.deepEqual(
        right.map((r) => r.status),
        [429, 429],
      );
      assert.deepEqual(
        right.map((r) => r.headers['retry-after']),
        ['3', '3'],
      );
      return true;
    });
    await noRoutingErrors();
    for (const s of servers) assert.equal(s.output().match(UNAVAILABLE), null, 'never fell back');
  });

  it('1,000 clients: buckets on all three masters; no MOVED, ASK, CROSSSLOT or NOSCRIPT reaches a client or a fallback', async () => {
    // Two per minute from here on (the next test's limit): one grant keeps a key for 30 s.
    await startPair(2);
    const masters = await cluster.masters();
    assert.equal(masters.length, 3);
    const calls = async (): Promise<number[]> =>
      Promise.all(
        masters.map(async (m) =>
          Number(/calls=(\d+)/.exec((await info(m.port, 'commandstats')).get('cmdstat_evalsha') ?? '')?.[1] ?? 0),
        ),
      );
    const before = await calls();
    const started = performance.now();
    const clients = Array.from({ length: 1_000 }, (_, i) => `10.77.${i >> 8}.${i & 255}`);
    const statuses: number[] = [];
    for (let i = 0; i < clients.length; i += 20) {
      const batch = clients.slice(i, i + 20);
      statuses.push(...(await Promise.all(batch.map((c, j) => post(servers[j % 2], c)))).map((r) => r.status));
    }
    const tookMs = performance.now() - started;
    assert.deepEqual(new Set(statuses), new Set([200]));

    // Each request is one script call, sent to the master of its client's slot.
    const perMaster = (await calls()).map((n, i) => n - before[i]);
    assert.equal(
      perMaster.reduce((a, b) => a + b),
      1_000,
      `one call per request: ${perMaster.join(', ')}`,
    );
    // 333 expected on each (slots split in thirds); fewer than 200 is 9 standard deviations
    // away (false alarm rate below 1e-18), while a layout without the client's hash tag (the
    // prefix hashed, or one shared tag) would put all 1,000 on one master.
    for (const n of perMaster) assert.ok(n >= 200, `spread over the masters: ${perMaster.join(', ')}`);
    // And the buckets are there, each on the master of its slot.
    let found = 0;
    const owner = await cluster.slotMap();
    for (const master of masters) {
      let cursor = '0';
      do {
        const [next, keys] = (await nodeCommand(
          master.port,
          'SCAN',
          cursor,
          'MATCH',
          `${PREFIX}{10.77.*`,
          'COUNT',
          '1000',
        )) as [string, string[]];
        cursor = next;
        found += keys.length;
        for (const key of keys) assert.equal(owner(keySlot(key)), master, `${key} on its slot's master`);
      } while (cursor !== '0');
    }
    // A key lives until its bucket is full again: 30 s after its one grant.
    if (performance.now() - started < 25_000) assert.equal(found, 1_000, 'one bucket per client');
    process.stdout.write(
      `redis cluster: 1,000 clients in ${Math.round(tookMs)} ms, calls per master ${perMaster.join(', ')}\n`,
    );

    // The script is loaded once per node: at most one NOSCRIPT per master and instance (both
    // instances' first calls may reach a fresh master at the same moment; the first pair of
    // instances, stopped by now, loaded it too).
    const noscript = await noRoutingErrors();
    assert.ok(noscript <= 3 * 2, `NOSCRIPT answered ${noscript} times`);
    for (const master of masters) {
      const evals = Number(
        /calls=(\d+)/.exec((await info(master.port, 'commandstats')).get('cmdstat_eval') ?? '')?.[1] ?? 0,
      );
      assert.ok(evals <= 2, `EVAL on ${master.port}: ${evals} calls`);
    }
    for (const s of servers) assert.equal(s.output().match(UNAVAILABLE), null, 'never fell back');
  });

  it('a master killed under load: its replica takes over, no 5xx, a client out of tokens stays out, shared again', async () => {
    // Two per minute (the pair of the test before), a token every 30 s: a client emptied just
    // before the kill cannot have earned one back, anywhere, for 25 s, which the failover
    // takes much less than.
    const LIMIT = 2;
    const drained = '10.88.0.1';
    const slot = keySlot(redisKey(PREFIX, drained));
    const victim = await cluster.masterOf(slot);
    const heir = await cluster.replicaOf(victim);

    const drainedAt = performance.now();
    const granted = [await post(servers[0], drained), await post(servers[1], drained)];
    const refused = [await post(servers[0], drained), await post(servers[1], drained)];
    assert.deepEqual(
      [...granted, ...refused].map((r) => r.status),
      [200, 200, 429, 429],
    );
    // Redis replicates asynchronously: a write the master acknowledged but had not yet sent to
    // its replica is lost in a failover (docs/redis-rate-limit.md). Wait until the replica has
    // everything, so what follows checks the store, not replication.
    await until('the replica has every write', async () => {
      const sent = Number((await info(victim.port, 'replication')).get('master_repl_offset'));
      const got = Number((await info(heir.port, 'replication')).get('slave_repl_offset'));
      return got >= sent ? true : undefined;
    });

    const load = steadyLoad(
      servers,
      post,
      Array.from({ length: 1_000 }, (_, i) => `10.99.${i >> 8}.${i & 255}`),
      6,
    );
    const drainedReplies: { at: number; status: number }[] = [];
    let watching = true;
    const watcher = (async () => {
      for (let i = 0; watching; i++) {
        const reply = await post(servers[i % 2], drained);
        drainedReplies.push({ at: performance.now(), status: reply.status });
        await delay(100);
      }
    })();

    const marks = servers.map((s) => s.output().length);
    const killedAt = performance.now();
    await cluster.kill(victim);
    for (const [i, s] of servers.entries()) await s.waitForOutput(/Redis unavailable/, TOPOLOGY_TIMEOUT_MS, marks[i]);
    for (const [i, s] of servers.entries())
      await s.waitForOutput(/Redis answering again/, TOPOLOGY_TIMEOUT_MS, marks[i]);
    const sharedAgainAt = performance.now();
    watching = false;
    await watcher;
    const statuses = await load.stop();
    process.stdout.write(
      `redis cluster: master killed; both instances shared again after ${Math.round(sharedAgainAt - killedAt)} ms; ${statuses.length} requests under load\n`,
    );

    assert.equal(
      await until('the replica serves the slot', async () =>
        (await cluster.masterOf(slot)) === heir ? true : undefined,
      ),
      true,
    );
    assert.ok(statuses.length > 0);
    assert.deepEqual(
      statuses.filter((s) => s >= 500),
      [],
      'no 5xx',
    );
    const window = drainedReplies.filter((r) => r.at - drainedAt < 25_000);
    assert.ok(
      window.some((r) => r.at > killedAt && r.at < sharedAgainAt),
      'the emptied client asked during the failover',
    );
    assert.deepEqual(
      window.map((r) => r.status).filter((s) => s !== 429),
      [],
      'a client out of tokens stays out',
    );
    for (const [i, s] of servers.entries()) {
      const since = s.output().slice(marks[i]);
      assert.equal(since.match(UNAVAILABLE)?.length, 1, 'one warn line per change of state');
      assert.equal(since.match(AGAIN)?.length, 1, 'one warn line per change of state');
      for (const code of ROUTING_ERRORS) assert.ok(!since.includes(`"reason":"${code}`), `${code} reached a fallback`);
    }
    // Shared again: one bucket across both instances, now on the promoted replica too.
    await onFreshBucket('redis cluster after failover', freshClient, (client) =>
      exactSharedLimit(servers, post, client, LIMIT),
    );
  });
});
