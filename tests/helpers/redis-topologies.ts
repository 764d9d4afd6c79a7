/**
 * Private Redis topologies for a test file, on loopback, each process started and stopped by
 * its own PID:
 *
 *   const cluster = await startCluster();        // 3 masters, 3 replicas, all slots covered
 *   cluster.seeds;                               // "127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3"
 *   await cluster.masterOf(slot);                // the node serving a slot now
 *   cluster.kill(node);                          // SIGKILL: a crash, no goodbye
 *
 *   const group = await startSentinelGroup();    // 1 master, 1 replica, 3 sentinels
 *   group.sentinels; group.masterName;
 *   await group.waitForPromotion();              // after killing group.master
 *
 * Ports: Redis cannot listen on port 0, so every port (a cluster node's bus port too, which
 * is set explicitly rather than left at port + 10000) is drawn at random below the OS's
 * ephemeral range (tests/helpers/redis-server.ts says why); another file's Redis may already
 * have it, so a node that cannot bind is started again on other ports.
 *
 * Without redis-server, redis-cli or redis-sentinel, `redisToolsMissing()` says why; the test
 * files skip loudly then, and fail instead under CI=true (.ci/run installs the packages).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createClient } from 'redis';
import { portBelowEphemeralRange as redisPort } from './ports.ts';
import { REDIS_SERVER } from './redis-server.ts';

const TOOLS_DIR = dirname(REDIS_SERVER);
export const REDIS_CLI = join(TOOLS_DIR, 'redis-cli');
export const REDIS_SENTINEL = join(TOOLS_DIR, 'redis-sentinel');

/** Why these tests cannot run here, or null when they can. */
export function redisToolsMissing(tools: readonly ('redis-server' | 'redis-cli' | 'redis-sentinel')[]): string | null {
  const paths = { 'redis-server': REDIS_SERVER, 'redis-cli': REDIS_CLI, 'redis-sentinel': REDIS_SENTINEL };
  const absent = tools.filter((tool) => !existsSync(paths[tool]));
  if (absent.length === 0) return null;
  const why = `${absent.join(', ')} not found next to ${REDIS_SERVER} (Debian packages redis-server, redis-tools, redis-sentinel)`;
  if (process.env.CI === 'true') throw new Error(`${why}. In CI the Redis tests must run, not skip.`);
  return why;
}

/** How long a poll for a topology state may take before the test fails: it only bounds a
 * failure (a cluster that never agrees, a promotion that never comes), so it is set for a
 * machine at load average 20. */
export const TOPOLOGY_TIMEOUT_MS = 90_000;

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface RedisNode {
  readonly port: number;
  readonly pid: number;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  output(): string;
}

/** Starts one redis-server (or sentinel) with `args(port, busPort)` until it binds; null when
 * its ports were taken (the caller draws others). */
function launch(program: string, args: string[]): Promise<{ child: ChildProcess; output: () => string } | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let out = '';
    let settled = false;
    const onData = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      if (!settled && /Ready to accept connections|Sentinel ID is/.test(out)) {
        settled = true;
        resolve({ child, output: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      running.delete(child);
      if (settled) return;
      settled = true;
      if (/Address already in use/.test(out)) resolve(null);
      else reject(new Error(`${program} exited (${code ?? signal}) before it was ready:\n${out}`));
    });
  });
}

async function startNode(program: string, args: (port: number, busPort: number) => string[]): Promise<RedisNode> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = redisPort();
    const busPort = redisPort();
    if (busPort === port) continue;
    const started = await launch(program, args(port, busPort));
    if (started === null) continue;
    const { child, output } = started;
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    return { port, pid: child.pid!, exited, output };
  }
  throw new Error(`${program} could not bind free ports in 20 attempts`);
}

const BASE_ARGS = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'];

/** One command to the node on `port`, on a fresh connection (the nodes come and go). */
export async function nodeCommand(port: number, ...args: string[]): Promise<unknown> {
  const client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false, connectTimeout: 5_000 } });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    client.destroy();
  }
}

/** Polls `check` every 100 ms until it returns a value other than undefined. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = TOPOLOGY_TIMEOUT_MS,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (performance.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs} ms (last error: ${String(last)})`);
    await delay(100);
  }
}

function stop(node: RedisNode, signal: NodeJS.Signals): Promise<void> {
  try {
    process.kill(node.pid, signal);
  } catch {
    // already gone
  }
  return node.exited;
}

/** `INFO <section>` of a node as a map of its fields. */
export async function info(port: number, section: string): Promise<Map<string, string>> {
  const text = String(await nodeCommand(port, 'INFO', section));
  return new Map(
    text
      .split(/\r?\n/)
      .filter((line) => line.includes(':') && !line.startsWith('#'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)] as [string, string]),
  );
}

/** The counts of error replies a node has sent, by error code (INFO errorstats). */
export async function errorCounts(port: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [field, value] of await info(port, 'errorstats')) {
    const code = /^errorstat_(.+)$/.exec(field)?.[1];
    if (code !== undefined) counts[code] = Number(/count=(\d+)/.exec(value)?.[1] ?? 0);
  }
  return counts;
}

export interface RedisCluster {
  readonly nodes: readonly RedisNode[];
  /** The seed list for RATE_LIMIT_REDIS_CLUSTER_NODES: the three nodes that started as masters. */
  readonly seeds: string;
  /** The node serving `slot` now, as the surviving nodes see it. */
  masterOf(slot: number): Promise<RedisNode>;
  /** The same for every slot at once, from one look at the cluster. */
  slotMap(): Promise<(slot: number) => RedisNode | undefined>;
  /** The nodes that are masters now (and alive). */
  masters(): Promise<RedisNode[]>;
  /** The replica of `master` (the node that replicates it). */
  replicaOf(master: RedisNode): Promise<RedisNode>;
  /** SIGKILL to that node's PID; resolves when it has exited. */
  kill(node: RedisNode): Promise<void>;
  close(): Promise<void>;
}

/** CLUSTER NODES of a live node: per node its port, flags and, for a replica, its master's id. */
async function clusterNodes(nodes: readonly RedisNode[], dead: ReadonlySet<RedisNode>) {
  const alive = nodes.find((n) => !dead.has(n))!;
  const text = String(await nodeCommand(alive.port, 'CLUSTER', 'NODES'));
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, master, , , , , ...slots] = line.split(' ');
      return { id, port: Number(/:(\d+)@/.exec(address)![1]), flags: flags.split(','), master, slots };
    });
}

/** Whether every node says the cluster is ok with all slots served, and every replica is in
 * sync with its master (a replica that is not cannot stand in for it). */
async function clusterSettled(nodes: readonly RedisNode[]): Promise<true | undefined> {
  for (const node of nodes) {
    const state = String(await nodeCommand(node.port, 'CLUSTER', 'INFO'));
    if (!/cluster_state:ok/.test(state) || !/cluster_slots_ok:16384/.test(state)) return undefined;
    const replication = await info(node.port, 'replication');
    if (replication.get('role') === 'slave' && replication.get('master_link_status') !== 'up') return undefined;
  }
  return true;
}

/** 3 masters with one replica each, all 16,384 slots covered, every node agreeing. A node
 * whose master stops answering for `nodeTimeoutMs` is marked failed and its replica takes over. */
export async function startCluster(options: { nodeTimeoutMs?: number } = {}): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'cg-redis-cluster-'));
  const dead = new Set<RedisNode>();
  const nodes: RedisNode[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      nodes.push(
        await startNode(REDIS_SERVER, (port, busPort) => [
          '--port', String(port), '--cluster-port', String(busPort), ...BASE_ARGS,
          '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 3_000), '--dir', dir,
        ]), // prettier-ignore
      );
    }
    await new Promise<void>((resolve, reject) => {
      execFile(
        REDIS_CLI,
        ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'],
        { timeout: TOPOLOGY_TIMEOUT_MS },
        (error, stdout, stderr) =>
          error === null ? resolve() : reject(new Error(`${error.message}\n${stdout}${stderr}`)),
      );
    });
    await until('cluster state ok on every node', () => clusterSettled(nodes));
  } catch (error) {
    for (const n of nodes) await stop(n, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const byPort = (port: number): RedisNode => nodes.find((n) => n.port === port)!;
  const cluster: RedisCluster = {
    nodes,
    seeds: '',
    async masterOf(slot) {
      const master = (await cluster.slotMap())(slot);
      if (master === undefined) throw new Error(`no live master serves slot ${slot}`);
      return master;
    },
    async slotMap() {
      const owners = new Array<RedisNode | undefined>(16_384);
      for (const row of await clusterNodes(nodes, dead)) {
        if (!row.flags.includes('master') || row.flags.includes('fail')) continue;
        for (const range of row.slots) {
          const [from, to] = range.split('-').map(Number);
          for (let slot = from; slot <= (to ?? from); slot++) owners[slot] = byPort(row.port);
        }
      }
      return (slot) => owners[slot];
    },
    async masters() {
      const table = await clusterNodes(nodes, dead);
      return table.filter((r) => r.flags.includes('master') && !r.flags.includes('fail')).map((r) => byPort(r.port));
    },
    async replicaOf(master) {
      const table = await clusterNodes(nodes, dead);
      const id = table.find((r) => r.port === master.port)!.id;
      return byPort(table.find((r) => r.master === id)!.port);
    },
    async kill(node) {
      dead.add(node);
      await stop(node, 'SIGKILL');
    },
    async close() {
      for (const n of nodes) await stop(n, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const masters = await cluster.masters();
  return { ...cluster, seeds: masters.map((m) => `127.0.0.1:${m.port}`).join(',') };
}

export interface SentinelGroup {
  readonly master: RedisNode;
  readonly replica: RedisNode;
  readonly sentinels: readonly RedisNode[];
  readonly masterName: string;
  /** RATE_LIMIT_REDIS_SENTINELS */
  readonly addresses: string;
  /** The port every sentinel names as the master's. */
  masterPort(): Promise<number>;
  /** SIGKILL to the master's PID. */
  killMaster(): Promise<void>;
  close(): Promise<void>;
}

/** One master, one replica of it, three sentinels watching them (quorum 2); a master that
 * stops answering for `downAfterMs` is replaced by the replica. */
export async function startSentinelGroup(options: { downAfterMs?: number } = {}): Promise<SentinelGroup> {
  const dir = mkdtempSync(join(tmpdir(), 'cg-redis-sentinel-'));
  const masterName = 'cg-test-master';
  const started: RedisNode[] = [];
  try {
    const master = await startNode(REDIS_SERVER, (port) => ['--port', String(port), ...BASE_ARGS, '--dir', dir]);
    started.push(master);
    const replica = await startNode(REDIS_SERVER, (port) => [
      '--port', String(port), ...BASE_ARGS, '--dir', dir, '--replicaof', '127.0.0.1', String(master.port),
    ]); // prettier-ignore
    started.push(replica);
    await until('the replica in sync', async () =>
      (await info(replica.port, 'replication')).get('master_link_status') === 'up' ? true : undefined,
    );
    const sentinels: RedisNode[] = [];
    for (let i = 0; i < 3; i++) {
      const sentinel = await startNode(REDIS_SENTINEL, (port) => {
        // Sentinel rewrites its file, so each gets its own, written for the port it tries.
        const file = join(dir, `sentinel-${port}.conf`);
        writeFileSync(
          file,
          [
            `port ${port}`,
            'bind 127.0.0.1',
            `dir ${dir}`,
            `sentinel monitor ${masterName} 127.0.0.1 ${master.port} 2`,
            `sentinel down-after-milliseconds ${masterName} ${options.downAfterMs ?? 2_000}`,
            `sentinel failover-timeout ${masterName} 10000`,
            `sentinel parallel-syncs ${masterName} 1`,
            '',
          ].join('\n'),
        );
        return [file];
      });
      started.push(sentinel);
      sentinels.push(sentinel);
    }
    // Every sentinel knows the replica and the two other sentinels: a failover can get a quorum.
    for (const s of sentinels) {
      await until(`sentinel ${s.port} sees the replica and its peers`, async () => {
        // A map in RESP3 (node-redis 6's default), a flat list of names and values in RESP2.
        const reply = (await nodeCommand(s.port, 'SENTINEL', 'MASTER', masterName)) as
          string[] | Record<string, string>;
        const fields = Array.isArray(reply)
          ? Object.fromEntries(reply.flatMap((v, i) => (i % 2 === 0 ? [[v, reply[i + 1]]] : [])))
          : reply;
        return fields['num-slaves'] === '1' && fields['num-other-sentinels'] === '2' ? true : undefined;
      });
    }
    const group: SentinelGroup = {
      master,
      replica,
      sentinels,
      masterName,
      addresses: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
      async masterPort() {
        const ports = await Promise.all(
          sentinels.map(async (s) => {
            const [, port] = (await nodeCommand(s.port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as string[];
            return Number(port);
          }),
        );
        if (new Set(ports).size !== 1) throw new Error(`the sentinels disagree: ${ports.join(', ')}`);
        return ports[0];
      },
      async killMaster() {
        await stop(master, 'SIGKILL');
      },
      async close() {
        for (const n of started) await stop(n, 'SIGTERM');
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return group;
  } catch (error) {
    for (const n of started) await stop(n, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
