/**
 * The store on a Redis Cluster and on Sentinel, with scripted stand-ins for node-redis's
 * `createCluster` and `createSentinel` (the real servers are in redis-cluster.integration.ts and
 * redis-sentinel.integration.ts): the client options asked for, where each call goes (the
 * node that holds its key's slot), a probe that proves every master, NOSCRIPT answered on the
 * node that sent it, a slot map with a hole, and a first connection that fails or hangs
 * (replaced by a fresh client).
 */
/* eslint-disable @typescript-eslint/require-await -- the scripted answers stand in for
   node-redis's async calls: as async functions, a throw becomes a rejection, as it does there. */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gcraArgs } from '../../lib/rate-limit/gcra.ts';
import { keySlot } from '../../lib/rate-limit/redis-keys.ts';
import { clusterLink, sentinelLink, type RedisModuleLike } from '../../lib/rate-limit/redis-links.ts';
import { RedisRateLimitStore } from '../../lib/rate-limit/redis-store.ts';
import { RateLimiter } from '../../lib/rate-limit/token-bucket.ts';
import { parseRedisConfig } from '../../lib/server/redis-config.ts';
import { captureLogger } from '../helpers/log-capture.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-redis-links-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const NOW = 1_800_000_000_000_000;
function grant(limit = 10): unknown[] {
  const [, q, r] = gcraArgs(limit).map(Number);
  return [1, NOW + q, r, NOW, 0];
}

type ConnectBehaviour = 'resolve' | 'reject' | 'hang';

/** What one scripted call saw: the node it went to and the command. */
interface Sent {
  node: string;
  args: string[];
}

/** Three masters over the slot range, as node-redis lays out `slots` and `masters`. */
const THREE = [
  [0, 5460, '10.0.0.1:7000'],
  [5461, 10922, '10.0.0.2:7001'],
  [10923, 16383, '10.0.0.3:7002'],
] as const;

class FakeCluster extends EventEmitter {
  isReady = false;
  destroyed = false;
  slots: ({ master: { address: string } } | undefined)[] = [];
  masters: { address: string }[] = [];
  readonly options: Record<string, unknown>;
  private readonly behaviour: ConnectBehaviour;
  answer: (sent: Sent) => Promise<unknown>;
  readonly sent: Sent[];

  constructor(
    options: Record<string, unknown>,
    behaviour: ConnectBehaviour,
    answer: (sent: Sent) => Promise<unknown>,
    sent: Sent[],
  ) {
    super();
    this.options = options;
    this.behaviour = behaviour;
    this.answer = answer;
    this.sent = sent;
    this.layout(THREE);
  }

  layout(ranges: readonly (readonly [number, number, string])[], extraMasters: string[] = []): void {
    this.slots = new Array<{ master: { address: string } } | undefined>(16_384);
    this.masters = [];
    for (const [from, to, address] of ranges) {
      const master = { address };
      this.masters.push(master);
      for (let s = from; s <= to; s++) this.slots[s] = { master };
    }
    for (const address of extraMasters) this.masters.push({ address });
  }

  connect(): Promise<unknown> {
    if (this.behaviour === 'reject') return Promise.reject(new Error('Root nodes unavailable'));
    if (this.behaviour === 'hang') {
      this.emit('error', new Error("NOPERM this user has no permissions to run the 'cluster|slots' command"));
      return new Promise(() => undefined);
    }
    this.isReady = true;
    this.emit('node-ready');
    this.emit('connect');
    return Promise.resolve(this);
  }

  sendCommand(firstKey: string, isReadonly: boolean, args: string[]): Promise<unknown> {
    assert.equal(isReadonly, false, 'the script writes: never sent to a replica');
    const node = this.slots[keySlot(firstKey)]?.master.address ?? 'none';
    const sent = { node, args };
    this.sent.push(sent);
    this.emit('sent');
    return this.answer(sent);
  }

  destroy(): void {
    this.destroyed = true;
    this.isReady = false;
  }
}

/** A `redis` module whose createCluster hands out FakeClusters, one behaviour per call. */
function clusterModule(
  behaviours: ConnectBehaviour[],
  answer: (sent: Sent) => Promise<unknown> = async () => grant(),
  ranges: readonly (readonly [number, number, string])[] = THREE,
): { module: RedisModuleLike; made: FakeCluster[]; sent: Sent[] } {
  const made: FakeCluster[] = [];
  const sent: Sent[] = [];
  const module = {
    createCluster(options: Record<string, unknown>) {
      const cluster = new FakeCluster(options, behaviours[made.length] ?? 'resolve', answer, sent);
      cluster.layout(ranges);
      made.push(cluster);
      return cluster;
    },
  } as unknown as RedisModuleLike;
  return { module, made, sent };
}

async function openCluster(
  module: RedisModuleLike,
  env: Record<string, string> = {},
  extra: { connectWaitMs?: number; connectAttemptMs?: number } = {},
) {
  const log = captureLogger('warn');
  const store = await RedisRateLimitStore.open({
    config: parseRedisConfig({ RATE_LIMIT_REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7001', ...env }, dir)!,
    limit: 10,
    fallback: new RateLimiter({ perMinute: 10, sweepIntervalMs: 0 }),
    logger: log.logger,
    connectWaitMs: extra.connectWaitMs ?? 2_000,
    backoffMinMs: 10,
    backoffMaxMs: 40,
    ...(extra.connectAttemptMs === undefined ? {} : { connectAttemptMs: extra.connectAttemptMs }),
    importRedis: async () => module,
  });
  return { store, log };
}

/** The keys of an EVALSHA or EVAL command. */
const keysOf = (args: string[]): string[] => args.slice(3, 3 + Number(args[2]));

describe('Redis Cluster link (scripted cluster)', () => {
  it('without the redis package, the start-up error names the variable that asked for it', async () => {
    const notFound = Object.assign(new Error("Cannot find package 'redis'"), { code: 'ERR_MODULE_NOT_FOUND' });
    await assert.rejects(
      RedisRateLimitStore.open({
        config: parseRedisConfig({ RATE_LIMIT_REDIS_CLUSTER_NODES: 'h:1' }, dir)!,
        limit: 10,
        fallback: new RateLimiter({ perMinute: 10, sweepIntervalMs: 0 }),
        logger: captureLogger('warn').logger,
        importRedis: () => Promise.reject(notFound),
      }),
      /^RedisPackageMissingError: RATE_LIMIT_REDIS_CLUSTER_NODES is set but the redis package is not installed: run npm install --save-exact redis@6\.3\.1 next to the server$/,
    );
  });

  it('asks node-redis for the seeds, masters only, credentials and TLS on every node, a quick slot-map refresh', async () => {
    writeFileSync(join(dir, 'pw'), 'cluster-secret\n');
    const { module, made } = clusterModule(['resolve']);
    const { store } = await openCluster(module, {
      RATE_LIMIT_REDIS_CLUSTER_NODES: 'rediss://svc@10.0.0.1:7000,rediss://svc@[2001:db8::2]:7001',
      RATE_LIMIT_REDIS_PASSWORD_FILE: 'pw',
    });
    const options = made[0].options as {
      rootNodes: { socket: Record<string, unknown> }[];
      defaults: Record<string, unknown> & {
        socket: Record<string, unknown> & { reconnectStrategy: (n: number) => number };
      };
      useReplicas: boolean;
      topologyRefreshOnReconnectionAttemptStrategy: number;
    };
    assert.deepEqual(
      options.rootNodes.map((n) => n.socket),
      [
        { host: '10.0.0.1', port: 7000 },
        { host: '2001:db8::2', port: 7001 },
      ],
    );
    assert.equal(options.defaults.username, 'svc');
    assert.equal(options.defaults.password, 'cluster-secret');
    assert.equal(options.defaults.disableOfflineQueue, true);
    assert.equal(options.defaults.socket.tls, true);
    assert.equal(options.defaults.socket.connectTimeout, 1_000);
    const delay = options.defaults.socket.reconnectStrategy(1_000);
    assert.ok(delay >= 40 && delay <= 44, `capped backoff: ${delay}`);
    assert.equal(options.useReplicas, false);
    assert.equal(options.topologyRefreshOnReconnectionAttemptStrategy, 1_000);
    assert.equal(JSON.stringify(options).includes('url'), false, 'no URL text handed over');
    await store.close();
    assert.equal(made[0].destroyed, true, 'close() drops the cluster client');
  });

  it('sends each call to the master of its slot, gate and bucket in one call; the probe proves every master', async () => {
    const { module, sent } = clusterModule(['resolve']);
    const { store, log } = await openCluster(module);
    assert.equal(store.isShared, true);
    // The start-up probe: one key per master, each on its own master.
    const probes = sent.filter((s) => keysOf(s.args)[0].includes(' probe '));
    assert.deepEqual(probes.map((s) => s.node).sort(), THREE.map(([, , address]) => address).sort());
    for (const p of probes) assert.match(keysOf(p.args)[0], /^cg:rl:\{ probe \d+\}$/);
    sent.length = 0;
    for (let i = 0; i < 60; i++) await store.consume(`198.51.100.${i}`, `badkey:198.51.100.${i}`);
    for (const s of sent) {
      const [gate, bucket] = keysOf(s.args);
      assert.match(gate, /^cg:rl:badkey:\{198\.51\.100\.\d+\}$/);
      assert.equal(bucket, gate.replace('badkey:', ''));
      assert.equal(keySlot(gate), keySlot(bucket), 'one slot: never CROSSSLOT');
      assert.equal(s.node, THREE.find(([from, to]) => keySlot(bucket) >= from && keySlot(bucket) <= to)![2]);
    }
    assert.equal(new Set(sent.map((s) => s.node)).size, 3, '60 clients reach all three masters');
    assert.equal(log.lines('warn').length, 0);
    await store.close();
  });

  it('NOSCRIPT from one node: EVAL to that same node, once; no fallback', async () => {
    const loaded = new Set<string>();
    const { module, sent } = clusterModule(['resolve'], async ({ node, args }) => {
      if (args[0] === 'EVAL') loaded.add(node);
      else if (!loaded.has(node)) throw new Error('NOSCRIPT No matching script. Please use EVAL.');
      return grant();
    });
    const { store, log } = await openCluster(module);
    assert.equal(store.isShared, true);
    for (let i = 0; i < 30; i++) await store.consume(`203.0.113.${i}`);
    const evals = sent.filter((s) => s.args[0] === 'EVAL');
    assert.deepEqual(evals.map((s) => s.node).sort(), [...loaded].sort(), 'loaded once per node, where it was missing');
    assert.equal(evals.length, 3);
    for (const e of evals) {
      // The EVALSHA it retries: the last one before it on the same keys.
      const before = sent
        .slice(0, sent.indexOf(e))
        .filter((s) => s.args[0] === 'EVALSHA' && keysOf(s.args).join() === keysOf(e.args).join())
        .at(-1)!;
      assert.equal(before.node, e.node, 'the retry goes where the NOSCRIPT came from');
    }
    assert.equal(log.lines('warn').length, 0);
    await store.close();
  });

  it('a slot without a master keeps it on the fallback, with that reason; a node coming up switches back', async () => {
    const { module, made } = clusterModule(
      ['resolve'],
      async ({ node }) => {
        if (node === 'none') throw new Error('The client is offline');
        return grant();
      },
      [THREE[0], THREE[2]],
    );
    const { store, log } = await openCluster(module, { RATE_LIMIT_REDIS_CLUSTER_NODES: 'h:1' }, { connectWaitMs: 100 });
    const cluster = made[0];
    assert.equal(store.isShared, false);
    await log.waitFor(/Redis unavailable/);
    assert.match(String(log.lines('warn')[0].reason), /^cluster slot 5461 has no master$/);
    cluster.layout(THREE);
    cluster.emit('node-ready');
    await log.waitFor(/Redis answering again/);
    assert.equal(store.isShared, true);
    // The master goes away again: a call for one of its slots fails and falls back.
    cluster.layout([THREE[0], THREE[2]]);
    const client = Array.from({ length: 100 }, (_, i) => `192.0.2.${i}`).find(
      (c) => keySlot(`{${c}}`) >= 5461 && keySlot(`{${c}}`) <= 10922,
    )!;
    const from = log.text().length;
    assert.equal((await store.consume(client)).remaining, 9, 'answered by the fallback');
    assert.equal(store.isShared, false);
    await log.waitFor(/Redis unavailable/, undefined, from);
    assert.equal(log.lines('warn').length, 3, 'one line per change of state');
    assert.match(String(log.lines('warn')[2].reason), /The client is offline/);
    await store.close();
  });

  it('a first connection that fails or hangs is replaced by a fresh client until one connects', async () => {
    const { module, made } = clusterModule(['reject', 'hang', 'resolve']);
    const { store, log } = await openCluster(module, {}, { connectWaitMs: 5_000, connectAttemptMs: 100 });
    assert.equal(store.isShared, true);
    assert.equal(made.length, 3);
    assert.deepEqual(
      made.map((c) => c.destroyed),
      [true, true, false],
    );
    assert.equal(log.lines('warn').length, 0, 'connected within the start-up wait: nothing to report');
    made[0].emit('connect'); // a late event from a dropped client changes nothing
    await store.close();
    assert.equal(made[2].destroyed, true);
  });

  it('a cluster not reachable at start: in-process limits, one line; shared once a fresh client connects', async () => {
    const { module, made } = clusterModule(['hang', 'resolve']);
    const { store, log } = await openCluster(module, {}, { connectWaitMs: 50, connectAttemptMs: 400 });
    assert.equal(store.isShared, false);
    assert.equal((await store.consume('c')).remaining, 9, 'answered in-process');
    await log.waitFor(/Redis answering again/);
    assert.equal(made.length, 2);
    assert.equal(store.isShared, true);
    // The cluster client's own error, which the store keeps for this line.
    assert.match(
      String(log.lines('warn')[0].reason),
      /^not reachable within 50 ms of start-up \(NOPERM this user has no permissions to run the 'cluster\|slots' command\)$/,
    );
    assert.equal(log.lines('warn').length, 2);
    await store.close();
  });

  it('before it connects, a call is refused and the probe says why; a master without slots cannot be probed', async () => {
    const { module, made } = clusterModule(['hang']);
    const config = parseRedisConfig({ RATE_LIMIT_REDIS_CLUSTER_NODES: 'h:1' }, dir)!;
    assert.ok(config.mode === 'cluster');
    const link = clusterLink(module, config, { backoffMinMs: 10, backoffMaxMs: 10, connectAttemptMs: 60_000 });
    await assert.rejects(link.send('k', ['PING']), /^Error: not connected$/);
    assert.throws(() => link.probeKeys('p:'), /not connected/);
    link.connect();
    assert.throws(() => link.probeKeys('p:'), /^Error: not connected: NOPERM/);
    made[0].isReady = true;
    made[0].layout(THREE, ['10.0.0.9:7009']);
    assert.throws(() => link.probeKeys('p:'), /no probe key found for 1 cluster master/);
    link.destroy();
    link.connect(); // after destroy(): nothing more is made
    assert.equal(made.length, 1);
  });
});

class FakeSentinel extends EventEmitter {
  isReady = false;
  destroyed = 0;
  readonly options: Record<string, unknown>;
  readonly sent: string[][] = [];
  private readonly behaviour: ConnectBehaviour;
  answer: (args: string[]) => Promise<unknown> = async () => grant();

  constructor(options: Record<string, unknown>, behaviour: ConnectBehaviour) {
    super();
    this.options = options;
    this.behaviour = behaviour;
  }

  connect(): Promise<unknown> {
    if (this.behaviour === 'reject') return Promise.reject(new Error('no sentinel answered'));
    if (this.behaviour === 'hang') return new Promise(() => undefined);
    this.isReady = true;
    this.emit('ready');
    return Promise.resolve(this);
  }

  sendCommand(isReadonly: boolean, args: string[]): Promise<unknown> {
    assert.equal(isReadonly, false, 'to the master');
    this.sent.push(args);
    return this.answer(args);
  }

  destroy(): Promise<void> {
    this.destroyed++;
    this.isReady = false;
    return Promise.resolve();
  }
}

function sentinelModule(behaviours: ConnectBehaviour[]): { module: RedisModuleLike; made: FakeSentinel[] } {
  const made: FakeSentinel[] = [];
  const module = {
    createSentinel(options: Record<string, unknown>) {
      const sentinel = new FakeSentinel(options, behaviours[made.length] ?? 'resolve');
      made.push(sentinel);
      return sentinel;
    },
  } as unknown as RedisModuleLike;
  return { module, made };
}

describe('Sentinel link (scripted sentinel)', () => {
  it('asks for the master by name from the sentinels: their credentials for them, the password file for the data nodes', async () => {
    writeFileSync(join(dir, 'data-pw'), 'data-secret\n');
    const { module, made } = sentinelModule(['resolve']);
    const log = captureLogger('warn');
    const store = await RedisRateLimitStore.open({
      config: parseRedisConfig(
        {
          RATE_LIMIT_REDIS_SENTINELS: 'rediss://watch:sentinel-secret@s1:26380,rediss://watch:sentinel-secret@s2',
          RATE_LIMIT_REDIS_SENTINEL_MASTER: 'cg-master',
          RATE_LIMIT_REDIS_PASSWORD_FILE: 'data-pw',
        },
        dir,
      )!,
      limit: 10,
      fallback: new RateLimiter({ perMinute: 10, sweepIntervalMs: 0 }),
      logger: log.logger,
      importRedis: async () => module,
    });
    const options = made[0].options as {
      name: string;
      sentinelRootNodes: unknown;
      masterPoolSize: number;
      nodeClientOptions: Record<string, unknown> & { socket: Record<string, unknown> };
      sentinelClientOptions: Record<string, unknown> & { socket: Record<string, unknown> };
    };
    assert.equal(options.name, 'cg-master');
    assert.deepEqual(options.sentinelRootNodes, [
      { host: 's1', port: 26380 },
      { host: 's2', port: 26379 },
    ]);
    assert.equal(options.masterPoolSize, 1);
    assert.equal(options.nodeClientOptions.password, 'data-secret');
    assert.equal('username' in options.nodeClientOptions, false);
    assert.equal(options.nodeClientOptions.disableOfflineQueue, true);
    assert.equal(options.nodeClientOptions.socket.tls, true);
    assert.equal(options.sentinelClientOptions.username, 'watch');
    assert.equal(options.sentinelClientOptions.password, 'sentinel-secret');
    assert.equal(options.sentinelClientOptions.socket.tls, true);
    assert.equal(store.isShared, true);
    assert.deepEqual(keysOf(made[0].sent[0]), ['cg:rl:{ probe 0}'], 'the start-up probe');
    await store.consume('203.0.113.5', 'badkey:203.0.113.5');
    assert.deepEqual(keysOf(made[0].sent[1]), ['cg:rl:badkey:{203.0.113.5}', 'cg:rl:{203.0.113.5}']);
    await store.close();
    assert.equal(made[0].destroyed, 1);
  });

  it('a master that stops answering falls back; the promotion it follows ("ready") switches back, one line each', async () => {
    const { module, made } = sentinelModule(['reject', 'resolve']);
    const log = captureLogger('warn');
    const store = await RedisRateLimitStore.open({
      config: parseRedisConfig({ RATE_LIMIT_REDIS_SENTINELS: 's1', RATE_LIMIT_REDIS_SENTINEL_MASTER: 'm' }, dir)!,
      limit: 10,
      fallback: new RateLimiter({ perMinute: 10, sweepIntervalMs: 0 }),
      logger: log.logger,
      backoffMinMs: 10,
      backoffMaxMs: 10_000,
      importRedis: async () => module,
    });
    assert.equal(made.length, 2, 'the first client failed to connect and was replaced');
    assert.equal(store.isShared, true);
    const sentinel = made[1];
    // During a failover node-redis holds commands until it has found the new master: the
    // per-call deadline (50 ms by default) answers in-process meanwhile.
    sentinel.answer = () => new Promise(() => undefined);
    assert.equal((await store.consume('c')).remaining, 9);
    assert.equal(store.isShared, false);
    await log.waitFor(/Redis unavailable/);
    assert.match(String(log.lines('warn')[0].reason), /no answer within 50 ms/);
    sentinel.answer = async () => grant();
    sentinel.emit('ready');
    await log.waitFor(/Redis answering again/);
    assert.equal(store.isShared, true);
    assert.equal(log.lines('warn').length, 2);
    await store.close();
  });

  it('before it connects, a call is refused and the probe says why', async () => {
    const { module } = sentinelModule([]);
    const config = parseRedisConfig({ RATE_LIMIT_REDIS_SENTINELS: 's1', RATE_LIMIT_REDIS_SENTINEL_MASTER: 'm' }, dir)!;
    assert.ok(config.mode === 'sentinel');
    const link = sentinelLink(module, config, { backoffMinMs: 10, backoffMaxMs: 10 });
    await assert.rejects(link.send('k', ['PING']), /not connected/);
    assert.throws(() => link.probeKeys('p:'), /not connected/);
    link.destroy();
  });
});
