/**
 * How many connections the public listener holds (security finding T1, docs/security.md).
 *
 * S1 bounds what one connection may make the process hold; this bounds how many connections
 * there are, so what one client address (and everyone together) can make the process hold has
 * a stated ceiling: the per-connection bound times these caps.
 *
 * - Process-wide: `server.maxConnections` (MAX_CONNECTIONS). Node closes a connection past it
 *   as it accepts it, before a JavaScript socket exists, and emits 'drop'.
 * - Per client address (MAX_CONNECTIONS_PER_ADDRESS): counted by the rate limiter's key of the
 *   socket's peer (clientKeyOf: IPv4 as is, IPv6 by /56), so one host cannot spread its
 *   connections over the addresses of its /56. A connection past it is destroyed in the
 *   'connection' event: before any byte of it is read, so before a TLS handshake or a request
 *   costs anything.
 *
 * Always the socket's peer, never X-Forwarded-For: that header arrives with a request, after
 * the connection was accepted (and after the TLS handshake), and a connection carries many
 * requests. Behind a proxy the peer is the proxy, so config.ts lifts the per-address cap to
 * the process-wide one unless the operator sets it (docs/deploy.md, Connection caps).
 * @module
 */
import type { Server } from 'node:http';
import type { DropArgument, Socket } from 'node:net';
import type { Logger } from '../log/logger.ts';
import { clientKeyOf, maskedAddress } from './client-key.ts';

export interface ConnectionCaps {
  /** Open connections of the public listener in all (MAX_CONNECTIONS). */
  readonly total: number;
  /** Open connections of one client address (MAX_CONNECTIONS_PER_ADDRESS), at most `total`. */
  readonly perAddress: number;
}

/** The defaults (docs/security.md, T1: the memory bound they give). */
export const DEFAULT_CONNECTION_CAPS: ConnectionCaps = Object.freeze({ total: 500, perAddress: 64 });

/** Which cap refused a connection (the metric's label). */
export type RefusedBy = 'per_address' | 'total';

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

/** Puts both caps on `server`; `onRefused` counts each connection refused (the metric). Log
 * lines are at debug level and show the client as the request log does (maskedAddress). */
export function capConnections(
  server: Server,
  caps: ConnectionCaps,
  logger: Logger,
  onRefused: (by: RefusedBy) => void = () => undefined,
): void {
  server.maxConnections = caps.total;
  server.on('drop', (data?: DropArgument) => {
    onRefused('total');
    if (logger.debugEnabled) {
      const client = maskedAddress(clientKeyOf(data?.remoteAddress ?? 'unknown'));
      logger.debug('connection refused: the process holds MAX_CONNECTIONS', { client, cap: caps.total });
    }
  });
  // With the per-address cap at the total one, the total one alone decides: count nothing.
  if (caps.perAddress >= caps.total) return;
  const counts = new ConnectionCounts(caps.perAddress);
  server.on('connection', (socket: Socket) => {
    const key = clientKeyOf(socket.remoteAddress ?? 'unknown');
    if (!counts.admit(key)) {
      socket.destroy();
      onRefused('per_address');
      if (logger.debugEnabled) {
        logger.debug('connection refused: the address holds MAX_CONNECTIONS_PER_ADDRESS', {
          client: maskedAddress(key),
          cap: caps.perAddress,
        });
      }
      return;
    }
    socket.once('close', () => {
      counts.release(key);
    });
  });
}
