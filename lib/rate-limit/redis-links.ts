/**
 * The connection to the Redis that holds the shared buckets, in one of three topologies
 * (docs/redis-rate-limit.md), behind one small interface the store uses (`RedisLink`):
 *
 * - standalone: one node-redis client (`createClient`), which reconnects by itself;
 * - cluster: `createCluster` on the seed nodes; each command goes to the master of its key's
 *   slot (node-redis follows MOVED and ASK, and refreshes the slot map while a node is away,
 *   so a replica promoted by a failover is found);
 * - Sentinel: `createSentinel`, which asks the sentinels for the master and follows its
 *   promotions.
 *
 * The link says which keys a probe must touch to prove every node that holds buckets (one per
 * master of a cluster), and keeps (re)connecting until it is destroyed. Only the standalone
 * link reports connection errors to the store: a cluster or Sentinel client also reports
 * errors of nodes or sentinels that hold nothing of ours (a seed that is down, one sentinel of
 * three), which must not switch the store to its fallback; a failed call does that instead.
 * @module
 */
import { randomInt } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { CLUSTER_SLOTS, keySlot, probeKey } from './redis-keys.ts';

export interface RedisEndpoint {
  readonly host: string;
  readonly port: number;
}

/** Where the buckets live (parsed from RATE_LIMIT_REDIS_* by lib/server/redis-config.ts). */
export type RedisTopology =
  | { readonly mode: 'standalone'; readonly host: string; readonly port: number; readonly database: number }
  | { readonly mode: 'cluster'; readonly nodes: readonly RedisEndpoint[] }
  | {
      readonly mode: 'sentinel';
      readonly sentinels: readonly RedisEndpoint[];
      readonly masterName: string;
      /** The sentinels' own credentials (Sentinel's requirepass or ACL), from their entries. */
      readonly sentinelUsername: string | undefined;
      readonly sentinelPassword: string | undefined;
    };

/** A topology with the credentials of the nodes that hold the buckets. */
export type RedisConnectionConfig = RedisTopology & {
  readonly tls: boolean;
  /** ACL user, or undefined for the default user. */
  readonly username: string | undefined;
  /** From a URL or from RATE_LIMIT_REDIS_PASSWORD_FILE; never logged. */
  readonly password: string | undefined;
  /** Scheme, hosts and ports (and the Sentinel master's name), for log lines: never credentials. */
  readonly target: string;
  /** The variable that named it, for the "not installed" line. */
  readonly setting: string;
};

/** The part of a node-redis client the standalone link uses. */
export interface RedisClientLike {
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  sendCommand(args: string[]): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  destroy(): void;
}

/** The part of a node-redis cluster client the cluster link uses. */
export interface RedisClusterLike {
  readonly isReady: boolean;
  readonly masters: readonly { readonly address: string }[];
  /** Indexed by slot; a hole is a slot no master serves. */
  readonly slots: readonly ({ readonly master: { readonly address: string } } | undefined)[];
  connect(): Promise<unknown>;
  sendCommand(firstKey: string, isReadonly: boolean, args: string[]): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  destroy(): void;
}

/** The part of a node-redis Sentinel client the Sentinel link uses. */
export interface RedisSentinelLike {
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  sendCommand(isReadonly: boolean, args: string[]): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  destroy(): unknown;
}

/** The part of the `redis` module the links use. */
export interface RedisModuleLike {
  createClient(options: Record<string, unknown>): RedisClientLike;
  createCluster(options: Record<string, unknown>): RedisClusterLike;
  createSentinel(options: Record<string, unknown>): RedisSentinelLike;
}

/** What the store needs of a connection, whatever the topology. Emits 'ready' whenever a probe
 * may now succeed (a connection or a node came up) and, standalone only, 'error'. */
export interface RedisLink {
  /** Connected (for a cluster: to the nodes of its slot map). */
  readonly isReady: boolean;
  /** The last error a cluster or Sentinel client reported (for the start-up line's reason:
   * `WRONGPASS`, `NOPERM`, a refused connection), which it does not emit as 'error'. */
  readonly lastError: Error | undefined;
  /** Sends one command to the node that holds `key`. */
  send(key: string, args: string[]): Promise<unknown>;
  /** The keys a probe touches so that, together, they reach every node holding buckets (one
   * per cluster master). Throws, with the reason for the log, while some slot has no master. */
  probeKeys(prefix: string): string[];
  /** Starts connecting; keeps at it, with backoff, until destroy(). */
  connect(): void;
  /** Drops every connection at once, rejecting what is in flight. */
  destroy(): void;
  on(event: 'ready', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export interface LinkOptions {
  /** Reconnection backoff: first delay and cap, milliseconds. */
  readonly backoffMinMs: number;
  readonly backoffMaxMs: number;
  /** How long a cluster or Sentinel client may take to connect; default CONNECT_ATTEMPT_MS. */
  readonly connectAttemptMs?: number;
}

/** How long a cluster or Sentinel client may take to connect before it is replaced by a fresh
 * one: node-redis's cluster `connect()` waits for every master of the slot map, so one that
 * died before its replica took over would hold it forever (seen with node-redis 6.3.1); a
 * fresh client asks the seeds again and finds the promoted replica. */
export const CONNECT_ATTEMPT_MS = 10_000;

/** Doubling from `min` to `max`, plus up to 10 % jitter so instances that lost the same Redis
 * do not reconnect in lock step. Never gives up: the store's fallback covers the gap. */
export function backoff(options: LinkOptions): (retries: number) => number {
  return (retries) => {
    const delay = Math.min(options.backoffMinMs * 2 ** Math.min(retries, 20), options.backoffMaxMs);
    return delay + randomInt(0, Math.max(1, Math.floor(delay / 10)));
  };
}

/** Socket options shared by every connection of a link. */
function socketOptions(config: RedisConnectionConfig, options: LinkOptions): Record<string, unknown> {
  return { tls: config.tls, connectTimeout: 1_000, reconnectStrategy: backoff(options) };
}

function credentials(username: string | undefined, password: string | undefined): Record<string, string> {
  return { ...(username === undefined ? {} : { username }), ...(password === undefined ? {} : { password }) };
}

/** One node-redis client; node-redis reconnects it by itself. */
export class StandaloneLink extends EventEmitter implements RedisLink {
  private readonly client: RedisClientLike;
  /** Its errors are emitted, so the store sees them as they come. */
  readonly lastError = undefined;

  constructor(client: RedisClientLike) {
    super();
    this.client = client;
    // Without an 'error' listener an EventEmitter error would crash the process; the store
    // listens for this link's errors, so they are forwarded, not dropped.
    client.on('error', (error) => this.emit('error', error));
    client.on('ready', () => this.emit('ready'));
  }

  get isReady(): boolean {
    return this.client.isReady;
  }

  send(_key: string, args: string[]): Promise<unknown> {
    return this.client.sendCommand(args);
  }

  probeKeys(prefix: string): string[] {
    return [probeKey(prefix, 0)];
  }

  connect(): void {
    // connect() keeps retrying by itself until it succeeds; it rejects only once destroyed.
    this.client.connect().catch(() => undefined);
  }

  destroy(): void {
    this.client.destroy();
  }
}

export function standaloneLink(
  redis: RedisModuleLike,
  config: RedisConnectionConfig & { readonly mode: 'standalone' },
  options: LinkOptions,
): StandaloneLink {
  return new StandaloneLink(
    redis.createClient({
      socket: {
        host: config.host,
        port: config.port,
        ...socketOptions(config, options),
        ...(config.tls ? { servername: config.host } : {}),
      },
      ...credentials(config.username, config.password),
      database: config.database,
      // Commands fail at once while disconnected instead of queueing until a reconnect.
      disableOfflineQueue: true,
    }),
  );
}

/** A client that is replaced by a fresh one when its connect() fails or takes too long (the
 * cluster and Sentinel clients do not retry a failed first connection by themselves). */
abstract class ReplacingLink<C extends { readonly isReady: boolean; connect(): Promise<unknown> }>
  extends EventEmitter
  implements RedisLink
{
  protected current: C | null = null;
  lastError: Error | undefined;
  private closed = false;
  private failures = 0;
  private readonly factory: () => C;
  private readonly delay: (retries: number) => number;
  private readonly attemptMs: number;

  /** `factory` makes a fresh, unconnected client each time one is needed. */
  constructor(factory: () => C, options: LinkOptions) {
    super();
    this.factory = factory;
    this.delay = backoff(options);
    this.attemptMs = options.connectAttemptMs ?? CONNECT_ATTEMPT_MS;
  }

  get isReady(): boolean {
    return this.current?.isReady ?? false;
  }

  /** Listens to a fresh client's events. */
  protected abstract wire(client: C): void;
  protected abstract drop(client: C): void;
  abstract send(key: string, args: string[]): Promise<unknown>;
  abstract probeKeys(prefix: string): string[];

  /** The connected client; throws, with the reason the store logs, while there is none. */
  protected ready(): C {
    const client = this.connected();
    if (client === null) throw this.notConnected();
    return client;
  }

  protected notConnected(): Error {
    return new Error(this.lastError === undefined ? 'not connected' : `not connected: ${this.lastError.message}`);
  }

  /** Keeps a client's error for the log (a listener is needed anyway: an 'error' event without
   * one would crash the process). Sentinel reports some errors as strings. */
  protected readonly noteError = (error: unknown): void => {
    this.lastError = error instanceof Error ? error : new Error(String(error));
  };

  /** The connected client, or null (a call then rejects with the same reason). */
  protected connected(): C | null {
    return this.current?.isReady === true ? this.current : null;
  }

  connect(): void {
    if (this.closed) return;
    const client = this.factory();
    this.wire(client);
    this.current = client;
    const watchdog = setTimeout(() => {
      this.replace(client);
    }, this.attemptMs);
    watchdog.unref();
    client.connect().then(
      () => {
        clearTimeout(watchdog);
        this.failures = 0;
        this.lastError = undefined;
      },
      () => {
        clearTimeout(watchdog);
        this.replace(client);
      },
    );
  }

  /** Drops `client` and tries again after the backoff, unless it was replaced already (or the
   * link destroyed, which leaves no current client). */
  private replace(client: C): void {
    if (this.current !== client) return;
    this.current = null;
    this.drop(client);
    setTimeout(() => {
      this.connect();
    }, this.delay(this.failures++)).unref();
  }

  destroy(): void {
    this.closed = true;
    if (this.current !== null) this.drop(this.current);
    this.current = null;
  }
}

/** Tags whose slot is known, in order: ` probe 0`, ` probe 1`, ... (the slot of a probe key does
 * not depend on the prefix, which is outside the tag). */
const probeSlots: number[] = [];
/** Enough to find a probe key even for a master that serves one slot of 16,384: the chance
 * that none of this many tags lands on it is (1 - 1/16,384)^262,144, about 1e-7. */
const PROBE_SEARCH_LIMIT = 1 << 18;

class ClusterLink extends ReplacingLink<RedisClusterLike> {
  protected wire(cluster: RedisClusterLike): void {
    // Discovery and node errors reach the store through the calls that they fail.
    cluster.on('error', this.noteError);
    cluster.on('node-error', this.noteError);
    // 'connect': the slot map and every master are there; 'node-ready': a node (re)connected,
    // e.g. the replica a failover promoted, found by a refresh of the slot map.
    cluster.on('connect', () => this.emit('ready'));
    cluster.on('node-ready', () => this.emit('ready'));
  }

  protected drop(cluster: RedisClusterLike): void {
    cluster.destroy();
  }

  send(key: string, args: string[]): Promise<unknown> {
    const cluster = this.connected();
    return cluster === null ? Promise.reject(this.notConnected()) : cluster.sendCommand(key, false, args);
  }

  probeKeys(prefix: string): string[] {
    const { slots, masters } = this.ready();
    for (let slot = 0; slot < CLUSTER_SLOTS; slot++) {
      if (slots[slot] === undefined) throw new Error(`cluster slot ${slot} has no master`);
    }
    const missing = new Set(masters.map((m) => m.address));
    const keys: string[] = [];
    for (let n = 0; missing.size > 0 && n < PROBE_SEARCH_LIMIT; n++) {
      probeSlots[n] ??= keySlot(probeKey('', n));
      if (missing.delete((slots[probeSlots[n]] as { master: { address: string } }).master.address))
        keys.push(probeKey(prefix, n));
    }
    if (missing.size > 0) throw new Error(`no probe key found for ${missing.size} cluster master(s)`);
    return keys;
  }
}

export function clusterLink(
  redis: RedisModuleLike,
  config: RedisConnectionConfig & { readonly mode: 'cluster' },
  options: LinkOptions,
): RedisLink {
  const create = (): RedisClusterLike =>
    redis.createCluster({
      rootNodes: config.nodes.map((node) => ({ socket: { host: node.host, port: node.port } })),
      defaults: {
        socket: socketOptions(config, options),
        ...credentials(config.username, config.password),
        disableOfflineQueue: true,
      },
      // Masters only: a replica's copy may lag behind, and the script writes anyway.
      useReplicas: false,
      // While a node is away, refresh the slot map every second (node-redis's default is 5 s),
      // so a replica promoted in its place is used soon after the cluster has promoted it.
      topologyRefreshOnReconnectionAttemptStrategy: 1_000,
    });
  return new ClusterLink(create, options);
}

class SentinelLink extends ReplacingLink<RedisSentinelLike> {
  protected wire(sentinel: RedisSentinelLike): void {
    sentinel.on('error', this.noteError);
    // 'ready': connected to the master, at start and after each promotion it followed.
    sentinel.on('ready', () => this.emit('ready'));
  }

  protected drop(sentinel: RedisSentinelLike): void {
    // node-redis 6 returns a promise here; nothing waits for a dropped client.
    Promise.resolve(sentinel.destroy()).catch(() => undefined);
  }

  send(_key: string, args: string[]): Promise<unknown> {
    const sentinel = this.connected();
    return sentinel === null ? Promise.reject(this.notConnected()) : sentinel.sendCommand(false, args);
  }

  probeKeys(prefix: string): string[] {
    this.ready();
    return [probeKey(prefix, 0)];
  }
}

export function sentinelLink(
  redis: RedisModuleLike,
  config: RedisConnectionConfig & { readonly mode: 'sentinel' },
  options: LinkOptions,
): RedisLink {
  const create = (): RedisSentinelLike =>
    redis.createSentinel({
      name: config.masterName,
      sentinelRootNodes: config.sentinels.map((s) => ({ host: s.host, port: s.port })),
      nodeClientOptions: {
        socket: socketOptions(config, options),
        ...credentials(config.username, config.password),
        disableOfflineQueue: true,
      },
      sentinelClientOptions: {
        socket: socketOptions(config, options),
        ...credentials(config.sentinelUsername, config.sentinelPassword),
      },
      masterPoolSize: 1,
    });
  return new SentinelLink(create, options);
}

/** The link for the configured topology. */
export function openLink(redis: RedisModuleLike, config: RedisConnectionConfig, options: LinkOptions): RedisLink {
  if (config.mode === 'cluster') return clusterLink(redis, config, options);
  if (config.mode === 'sentinel') return sentinelLink(redis, config, options);
  return standaloneLink(redis, config, options);
}
