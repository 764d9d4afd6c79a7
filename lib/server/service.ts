/**
 * Builds the node:http (or node:https) server with explicit limits and wires the app into it,
 * plus the graceful shutdown. server.ts only composes: config -> store -> limiter -> this.
 * @module
 */
import { createServer as createHttpServer, type Server, type ServerOptions } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { App } from '../http/app.ts';
import { capConnections, type ConnectionCaps, type SlotOptions } from '../http/connection-caps.ts';
import { LIMITS, LISTENER_OPTIONS } from '../http/limits.ts';
import { closeListener } from '../http/node-internals.ts';
import { requestCounts, withReplyCap, type RequestCounts } from '../http/outstanding-replies.ts';
import type { Logger } from '../log/logger.ts';
import type { SecureContextOptions } from 'node:tls';
import { secureContextOptions, type PemPair } from './tls.ts';

export interface ServiceOptions {
  readonly app: App;
  readonly logger: Logger;
  readonly tls: PemPair | null;
  /** MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS (lib/http/connection-caps.ts); absent: none. */
  readonly connections?: ConnectionCaps;
  /** Who holds the slots (lib/http/connection-caps.ts): the metrics' counters, and whether the
   * socket's peer is the client (TRUST_PROXY_HOPS 0). */
  readonly slots?: SlotOptions;
  /** Where the server's requests are counted while they are answered (absent: a count of its
   * own that nobody reads). */
  readonly requests?: RequestCounts;
}

export function createService({
  app,
  logger,
  tls,
  connections,
  slots,
  requests = requestCounts(),
}: ServiceOptions): Server {
  const options: ServerOptions = {
    ...LISTENER_OPTIONS,
    // Checked in app.ts instead, so the 400 carries the JSON body and headers of every reply.
    requireHostHeader: false,
  };
  const handle = withReplyCap(app.handle, logger, requests);
  const server: Server =
    tls === null
      ? createHttpServer(options, handle)
      : createHttpsServer(
          // A TLS handshake is not covered by headersTimeout; Node's default for it is 120 s.
          { ...options, ...secureContextOptions(tls), handshakeTimeout: LIMITS.headersTimeout },
          handle,
        );
  // Socket inactivity: ends a connection whose client stopped reading its replies, so they
  // are not held for as long as it stays open.
  server.timeout = LIMITS.socketIdleTimeout;
  // One field more than the limit reaches req.headers, so app.ts can see an excess and refuse
  // it with 431 (Node's own cap drops the excess silently, framing headers included).
  server.maxHeadersCount = LIMITS.maxHeadersCount + 1;
  server.on('checkContinue', handle);
  server.on('checkExpectation', withReplyCap(app.expectationFailed, logger, requests));
  server.on('clientError', app.clientError);
  if (tls !== null) server.on('tlsClientError', app.tlsClientError);
  // Without these two listeners node treats an Upgrade as a plain request but has already
  // stopped parsing at its head, so the next bytes on the socket are dropped or misread.
  server.on('upgrade', app.upgrade);
  server.on('connect', app.upgrade);
  if (connections !== undefined) capConnections(server, connections, logger, slots?.onRefused, slots);
  return server;
}

/** New TLS handshakes use `options` from now on (certificate renewal). Only for a server that
 * createService built with TLS, which is an https.Server under the http.Server type. */
export function setSecureContext(server: Server, options: SecureContextOptions): void {
  (server as unknown as HttpsServer).setSecureContext(options);
}

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, LIMITS.listenBacklog, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Graceful stop. Resolves true when every connection ended within `graceMs`, false when the
 * rest had to be cut. Nothing in it waits for a guessed time:
 *
 * 1. `app.draining`: from now on every reply says `Connection: close` and its connection
 *    closes after it.
 * 2. The listener closes only once the kernel's accept queue is empty: connections completed
 *    before the signal but not yet accepted would otherwise be reset with the listener, and
 *    their clients have already sent their requests (see acceptQueued).
 * 3. Idle keep-alive connections are not cut. Each got `Keep-Alive: timeout=5` with its last
 *    reply, so its client may send one more request until then: that request is answered
 *    (with `Connection: close`); a silent one is closed by the keep-alive timeout as usual.
 *    Cutting them earlier (what http.Server#close does, since Node 19) loses any request that
 *    is on its way but not yet parsed; tests/helpers/chaos.ts `sigtermUnderLoad` counts those.
 *    So a stop takes at most keepAliveTimeout longer while clients hold idle connections.
 * 4. After `graceMs`, whatever is still open is cut.
 *
 * The listener is closed with net.Server's close, not http.Server's, because that one also
 * closes idle connections at once (point 3) and stops the timer that enforces
 * headersTimeout/requestTimeout, which must keep cutting slow clients during the drain
 * (lib/http/node-internals.ts, closeListener).
 */
export function shutdown(
  server: Server,
  app: App,
  graceMs: number = LIMITS.shutdownGraceMs,
  onStopAccepting?: () => void,
): Promise<boolean> {
  app.draining = true;
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.closeAllConnections();
      resolve(false);
    }, graceMs);
    force.unref();
    acceptQueued(server, () => {
      closeListener(server, () => {
        clearTimeout(force);
        resolve(true);
      });
      onStopAccepting?.();
    });
  });
}

/**
 * Calls `done` once the kernel's accept queue is empty. Node 20 (libuv) accepts one connection
 * per event-loop turn (docs/benchmark.md, The drain's accept turns), so this lets turns go by
 * until one accepts nothing. The queue holds at most listenBacklog connections, so after
 * that many turns everything queued at the signal is in even under a flood of new ones, which
 * are not owed service and keep the drain from ending: that is the bound.
 */
function acceptQueued(server: Server, done: () => void): void {
  let accepted = 0;
  const count = (): void => {
    accepted++;
  };
  server.on('connection', count);
  let turns = 0;
  // `before` starts below any count, so at least one whole turn (one poll) runs first.
  const turn = (before: number): void => {
    setImmediate(() => {
      turns++;
      if (accepted === before || turns > LIMITS.listenBacklog) {
        server.off('connection', count);
        done();
      } else {
        turn(accepted);
      }
    });
  };
  turn(-1);
}
