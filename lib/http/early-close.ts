/**
 * Closing a connection whose request was answered before its body was read (a 401, a 413, a
 * 404 with a body ...), so that the unread rest is neither read and thrown away nor parsed as
 * a next request (docs/security.md, Connections and memory).
 *
 * A plain close with unread bytes makes the kernel send a reset, and a client still writing its
 * body then loses the reply it has not read yet (docs/benchmark.md, Closing after an early
 * reply). So the close goes in stages (RFC 9112 9.6): FIN after the reply, reading stopped at
 * once (what still arrives waits in the kernel's receive buffer, a few MB at most), and the
 * socket destroyed LINGER_MS later, by which time the client has had the reply.
 *
 * Two Node internals do the work, both in node-internals.ts (checked at start), which says
 * which: one stops the reading, the other, replaced on that one socket, puts the staged close
 * where node:http ends a `Connection: close` socket.
 * @module
 */
import type { Socket } from 'node:net';
import { replaceDestroySoon, stopReading } from './node-internals.ts';

/** How long a socket answered before its body was read stays half-closed. */
export const LINGER_MS = 2_000;

/** Sockets answered early: they are closing, and the request timeout must not answer the same
 * request a second time (a 408 after the 401). A WeakSet: nothing is written on the socket. */
const answeredEarly = new WeakSet<Socket>();

export function isAnsweredEarly(socket: Socket): boolean {
  return answeredEarly.has(socket);
}

/** Ends `socket` in stages now (after whatever was written to it). */
export function closeInStages(socket: Socket): void {
  answeredEarly.add(socket);
  socket.end();
  stopReading(socket);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => {
    clearTimeout(timer);
  });
}

/** Has node:http end `socket` in stages once the reply being written is out. */
export function closeAfterReply(socket: Socket): void {
  answeredEarly.add(socket);
  replaceDestroySoon(socket, closeInStages);
}
