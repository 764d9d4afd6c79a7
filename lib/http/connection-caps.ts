/**
 * How many connections the public listener holds, and who holds them (docs/security.md,
 * connections and memory).
 *
 * outstanding-replies.ts bounds what one connection may make the process hold; this bounds how
 * many connections there are, so what one client address (and everyone together) can make the
 * process hold has a stated ceiling: the per-connection bound times these caps. And it keeps
 * the slots from being held by a few: when all are taken, a newcomer takes the slot of a
 * connection that is only waiting on its client in the group that holds the most (SlotTable),
 * so connections that send nothing, reopened as fast as they are closed, cannot lock others out.
 *
 * - Process-wide (MAX_CONNECTIONS) and per client address (MAX_CONNECTIONS_PER_ADDRESS),
 *   counted by the rate limiter's key of the socket's peer (clientKeyOf: IPv4 as is, IPv6 by
 *   /56), so one host cannot spread its connections over the addresses of its /56; per group
 *   (IPv4 /24, IPv6 /56), all but a quarter of the process-wide cap. Decided in the
 *   'connection' event: before any byte of the connection is read, so before a TLS handshake
 *   or a request costs anything.
 *
 * Always the socket's peer, never X-Forwarded-For: that header arrives with a request, after
 * the connection was accepted (and after the TLS handshake), and a connection carries many
 * requests. Behind a proxy the peer is the proxy, so config.ts lifts the per-address cap to
 * the process-wide one unless the operator sets it, and only the total applies (docs/deploy.md,
 * Connection caps).
 * @module
 */
import type { Server } from 'node:http';
import type { DropArgument, Socket } from 'node:net';
import type { Logger } from '../log/logger.ts';
import { clientKeyOf, maskedAddress } from './client-key.ts';
import { isAnswering } from './outstanding-replies.ts';

export interface ConnectionCaps {
  /** Open connections of the public listener in all (MAX_CONNECTIONS). */
  readonly total: number;
  /** Open connections of one client address (MAX_CONNECTIONS_PER_ADDRESS), at most `total`. */
  readonly perAddress: number;
}

/** The defaults (docs/security.md, connections and memory: the memory bound they give). */
export const DEFAULT_CONNECTION_CAPS: ConnectionCaps = Object.freeze({ total: 500, perAddress: 64 });

/** Which cap refused a connection (the metric's label). */
export type RefusedBy = 'per_address' | 'per_group' | 'total';

/** Open connections by client key. Only keys with a connection open are held, so the map is
 * at most as large as the process-wide cap. */
export class ConnectionCounts {
  private readonly open = new Map<string, number>();
  private readonly perAddress: number;

  constructor(perAddress: number) {
    this.perAddress = perAddress;
  }

  /** Takes a place for `key`: false (and nothing counted) when it holds perAddress already. */
  admit(key: string): boolean {
    const count = this.open.get(key) ?? 0;
    if (count >= this.perAddress) return false;
    this.open.set(key, count + 1);
    return true;
  }

  /** Gives back a place `admit` granted. */
  release(key: string): void {
    const count = this.open.get(key) ?? 0;
    if (count <= 1) this.open.delete(key);
    else this.open.set(key, count - 1);
  }

  /** Open connections of `key`. */
  of(key: string): number {
    return this.open.get(key) ?? 0;
  }

  /** Client keys with a connection open. */
  get keys(): number {
    return this.open.size;
  }
}

/**
 * Who holds the slots, when the peer tells clients apart: every open connection by client
 * address and by group (IPv4 /24, IPv6 /56: `maskedAddress`, what the request log shows), in
 * accept order, and the groups by size. Generic over the connection, so the rules can be
 * tested without sockets.
 *
 * A newcomer is refused when its address holds `perAddress`, or its group holds all but a
 * quarter of `total` (so no one group, a /24 of many addresses included, can hold the slots the
 * others need even with connections that are all busy). When every slot is taken, it takes the
 * slot of the oldest connection that is only waiting on its client (see `waiting`) in the
 * largest group holding at least two more than the newcomer's: the group that holds the most
 * gives way, and a taking never leaves the newcomer's group larger than the victim's, so equal
 * groups do not take slots from each other in turn. With no such connection the newcomer is
 * refused. Work per newcomer: constant, plus a walk over the groups and their
 * connections only while every slot is taken (at most the open connections).
 */
export class SlotTable<C> {
  private readonly caps: ConnectionCaps;
  private readonly waiting: (c: C) => boolean;
  private readonly addresses: ConnectionCounts;
  private readonly groups = new Map<string, Set<C>>();
  private readonly bySize = new Map<number, Set<Set<C>>>();
  private readonly held = new Map<C, { address: string; group: string }>();
  private largest = 0;
  /** The most connections one group may hold. */
  readonly perGroup: number;

  constructor(caps: ConnectionCaps, waiting: (c: C) => boolean) {
    this.caps = caps;
    this.waiting = waiting;
    this.addresses = new ConnectionCounts(caps.perAddress);
    this.perGroup = Math.max(caps.perAddress, caps.total - Math.floor(caps.total / 4));
  }

  /** Open connections. */
  get open(): number {
    return this.held.size;
  }

  /** Connections `group` holds. */
  ofGroup(group: string): number {
    return this.groups.get(group)?.size ?? 0;
  }

  /** Takes a slot for `c`: the cap that refuses it, or the connection whose slot it takes (to
   * be closed by the caller, already given back here), or null when a slot was free. */
  take(c: C, address: string, group: string): { refused: RefusedBy } | { evicted: C | null } {
    if (this.addresses.of(address) >= this.caps.perAddress) return { refused: 'per_address' };
    const size = this.ofGroup(group);
    if (size >= this.perGroup) return { refused: 'per_group' };
    let evicted: C | null = null;
    if (this.held.size >= this.caps.total) {
      evicted = this.victim(size + 2);
      if (evicted === null) return { refused: 'total' };
      this.release(evicted);
    }
    this.held.set(c, { address, group });
    this.addresses.admit(address);
    let members = this.groups.get(group);
    if (members === undefined) {
      members = new Set();
      this.groups.set(group, members);
    }
    this.resize(members, () => members.add(c));
    return { evicted };
  }

  /** Gives back the slot of `c` (nothing if it holds none). */
  release(c: C): void {
    const place = this.held.get(c);
    if (place === undefined) return;
    this.held.delete(c);
    this.addresses.release(place.address);
    const members = this.groups.get(place.group);
    if (members === undefined) return;
    this.resize(members, () => members.delete(c));
    if (members.size === 0) this.groups.delete(place.group);
  }

  /** The oldest waiting connection of the largest group holding at least `atLeast`. */
  private victim(atLeast: number): C | null {
    for (let size = this.largest; size >= atLeast; size--) {
      for (const members of this.bySize.get(size) ?? []) {
        for (const c of members) if (this.waiting(c)) return c;
      }
    }
    return null;
  }

  /** Applies `change` to a group's members, keeping the index by size and the largest size. */
  private resize(members: Set<C>, change: () => void): void {
    const before = members.size;
    change();
    const after = members.size;
    if (after === before) return;
    const from = this.bySize.get(before);
    from?.delete(members);
    if (from?.size === 0) this.bySize.delete(before);
    if (after > 0) {
      let to = this.bySize.get(after);
      if (to === undefined) {
        to = new Set();
        this.bySize.set(after, to);
      }
      to.add(members);
    }
    if (after > this.largest) this.largest = after;
    while (this.largest > 0 && !this.bySize.has(this.largest)) this.largest--;
  }
}

export interface SlotOptions {
  /** Counts each connection refused, by the cap that refused it (the metric). */
  readonly onRefused?: (by: RefusedBy) => void;
  /** Counts each connection closed to make room for another (the metric). */
  readonly onEvicted?: () => void;
  /** Whether the socket's peer is the client (no reverse proxy in front). Then the slots are
   * shared by address and group even with the per-address cap at the total. */
  readonly peersAreClients?: boolean;
}

/** One open connection: the socket accepted, and the one its requests arrive on (the same, or
 * the TLS socket over it once its handshake is done). */
interface Connection {
  readonly socket: Socket;
  http: Socket;
}

/**
 * Puts the caps on `server`. Log lines are at debug level and show the client as the request
 * log does (maskedAddress).
 *
 * When the peer is the client (`peersAreClients`, or a per-address cap below the total), the
 * slots are shared by SlotTable's rules, in the 'connection' event, before any byte of the
 * connection is read. A connection is only waiting on its client, and may be closed to make
 * room, unless the service is answering one of its requests (isAnswering: a body being read,
 * a reply being made): one that has sent nothing, a partial head, one idle between requests,
 * and one that leaves its replies unread all may. Behind a proxy with the per-address cap at
 * the total (all connections come from the proxy: there is no one to rank), Node's own
 * `server.maxConnections` refuses the connections past the total.
 */
export function capConnections(
  server: Server,
  caps: ConnectionCaps,
  logger: Logger,
  onRefused: (by: RefusedBy) => void = () => undefined,
  options: SlotOptions = {},
): void {
  const refused = (by: RefusedBy, address: string, cap: number): void => {
    onRefused(by);
    if (logger.debugEnabled) logger.debug(REFUSED[by], { client: maskedAddress(address), cap });
  };
  if (options.peersAreClients !== true && caps.perAddress >= caps.total) {
    server.maxConnections = caps.total;
    server.on('drop', (data?: DropArgument) => {
      refused('total', clientKeyOf(data?.remoteAddress ?? 'unknown'), caps.total);
    });
    return;
  }
  const table = new SlotTable<Connection>(caps, (c) => !isAnswering(c.http));
  const byPeer = new Map<string, Connection>();
  const capOf: Record<RefusedBy, number> = {
    per_address: caps.perAddress,
    per_group: table.perGroup,
    total: caps.total,
  };
  server.on('connection', (socket: Socket) => {
    const address = clientKeyOf(socket.remoteAddress ?? 'unknown');
    const group = maskedAddress(address);
    const connection: Connection = { socket, http: socket };
    const taken = table.take(connection, address, group);
    if ('refused' in taken) {
      socket.destroy();
      refused(taken.refused, address, capOf[taken.refused]);
      return;
    }
    if (taken.evicted !== null) {
      taken.evicted.http.destroy();
      options.onEvicted?.();
      if (logger.debugEnabled) {
        logger.debug('connection closed to make room: its group holds the most and it was waiting on its client', {
          client: maskedAddress(clientKeyOf(taken.evicted.socket.remoteAddress ?? 'unknown')),
          for: group,
        });
      }
    }
    const peer = peerOf(socket);
    byPeer.set(peer, connection);
    socket.once('close', () => {
      table.release(connection);
      if (byPeer.get(peer) === connection) byPeer.delete(peer);
    });
  });
  // Over TLS the requests arrive on the TLS socket, which has the accepted socket's peer.
  server.on('secureConnection', (tls: Socket) => {
    const connection = byPeer.get(peerOf(tls));
    if (connection !== undefined) connection.http = tls;
  });
}

const REFUSED: Record<RefusedBy, string> = {
  per_address: 'connection refused: the address holds MAX_CONNECTIONS_PER_ADDRESS',
  per_group: 'connection refused: its /24 or /56 holds all but a quarter of MAX_CONNECTIONS',
  total: 'connection refused: the process holds MAX_CONNECTIONS',
};

/** A connection's peer, the same on the accepted socket and the TLS socket over it. */
const peerOf = (socket: Socket): string => `${socket.remoteAddress ?? ''}|${socket.remotePort ?? ''}`;
