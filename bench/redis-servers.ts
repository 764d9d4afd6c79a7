/**
 * The Redis behind the benchmark's shared-limit scenarios: one private redis-server, or a
 * Redis Cluster of three masters (no replicas: a replica costs its master CPU but adds nothing
 * to a request's path), all on loopback without persistence, on core 1 with the load
 * generator (the server under test keeps core 0 to itself); stopped by their PIDs.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort, hasCommand, pinned, sleep } from './procs.ts';

/** redis-server on PATH: the Redis scenarios run only with it (Debian package redis-server). */
export const HAS_REDIS = hasCommand('redis-server');
/** redis-cli creates the cluster (Debian package redis-tools, a dependency of redis-server). */
export const HAS_REDIS_CLUSTER = HAS_REDIS && hasCommand('redis-cli');

export interface RedisProcesses {
  /** The environment that points the service at them. */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}

/** One command over a raw socket: its reply's first line and what follows, or null on error. */
function ask(port: number, command: string): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(`${command}\r\n`);
      socket.once('data', (d: Buffer) => {
        socket.destroy();
        resolve(d.toString());
      });
    });
    socket.once('error', () => resolve(null));
  });
}

async function waitFor(port: number, command: string, answer: RegExp): Promise<void> {
  for (let i = 0; ; i++) {
    if (answer.test((await ask(port, command)) ?? '')) return;
    if (i > 400) throw new Error(`redis-server on port ${port} did not answer ${command} with ${answer}`);
    await sleep(25);
  }
}

function redisServer(args: readonly string[]): { child: ChildProcess; exited: Promise<void> } {
  const [cmd, full] = pinned(1, 'redis-server', ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args]);
  const child = spawn(cmd, full, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited };
}

function stopAll(nodes: readonly { child: ChildProcess; exited: Promise<void> }[]): Promise<void> {
  for (const n of nodes) n.child.kill('SIGTERM');
  return Promise.all(nodes.map((n) => n.exited)).then(() => undefined);
}

export async function startRedis(): Promise<RedisProcesses> {
  if (!HAS_REDIS) throw new Error('the Redis scenario needs redis-server (apt-get install redis-server)');
  const port = await freePort();
  const node = redisServer(['--port', String(port)]);
  await waitFor(port, 'PING', /^\+PONG/);
  return { env: { RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${port}` }, stop: () => stopAll([node]) };
}

export async function startRedisCluster(dir: string): Promise<RedisProcesses> {
  if (!HAS_REDIS_CLUSTER) throw new Error('the cluster scenario needs redis-server and redis-cli');
  const nodes: { port: number; child: ChildProcess; exited: Promise<void> }[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const busPort = await freePort();
    const args = ['--port', String(port), '--cluster-enabled', 'yes', '--cluster-port', String(busPort)];
    args.push('--cluster-config-file', `${dir}/nodes-${port}.conf`, '--dir', dir);
    nodes.push({ port, ...redisServer(args) });
  }
  for (const n of nodes) await waitFor(n.port, 'PING', /^\+PONG/);
  const create = spawn(
    'redis-cli',
    ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'],
    { stdio: 'ignore' },
  );
  const code = await new Promise<number | null>((resolve) => create.once('exit', resolve));
  if (code !== 0) {
    await stopAll(nodes);
    throw new Error(`redis-cli --cluster create exited ${code}`);
  }
  for (const n of nodes) await waitFor(n.port, 'CLUSTER INFO', /cluster_state:ok/);
  return {
    env: { RATE_LIMIT_REDIS_CLUSTER_NODES: nodes.map((n) => `127.0.0.1:${n.port}`).join(',') },
    stop: () => stopAll(nodes),
  };
}
