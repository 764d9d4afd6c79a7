/**
 * Builds the node:http (or node:https) server with explicit limits and wires the app into it,
 * plus the graceful shutdown. server.ts only composes: config -> store -> limiter -> this.
 * @module
 */
import { createServer as createHttpServer, type Server, type ServerOptions } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { Server as NetServer, type AddressInfo } from 'node:net';
import type { App } from './app.ts';
import type { Logger } from './logger.ts';

/**
 * Node's defaults suit a server behind a proxy that already enforces limits; this one may
 * face clients directly. headersTimeout 5 s and requestTimeout 10 s cut slow-loris clients;
 * Node only checks them every connectionsCheckingInterval (30 s by default, which would make
 * both meaningless), so that is 500 ms: a slow-headers client is cut 5.0 to 5.5 s in.
 * keepAliveTimeout 5 s frees idle sockets (raise it above a load balancer's idle timeout if
 * one sits in front). 8 KB of headers is plenty for this API (Node allows 16 KB).
 */
export const LIMITS = {
  headersTimeout: 5_000,
  requestTimeout: 10_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 500,
  maxHeaderSize: 8_192,
  maxHeadersCount: 64,
  /** How long a graceful shutdown waits for in-flight requests before cutting them. */
  shutdownGraceMs: 10_000,
  /** How long idle keep-alive connections stay open after SIGTERM, for requests on their way. */
  drainIdleMs: 250,
} as const;

export interface ServiceOptions {
  readonly app: App;
  readonly logger: Logger;
  readonly tls: { readonly cert: Buffer; readonly key: Buffer } | null;
}

export function createService({ app, tls }: ServiceOptions): Server {
  const options: ServerOptions = {
    headersTimeout: LIMITS.headersTimeout,
    requestTimeout: LIMITS.requestTimeout,
    keepAliveTimeout: LIMITS.keepAliveTimeout,
    connectionsCheckingInterval: LIMITS.connectionsCheckingInterval,
    maxHeaderSize: LIMITS.maxHeaderSize,
    // Never the lenient parser: request smuggling lives in the gaps between parsers.
    insecureHTTPParser: false,
    // Checked in app.ts instead, so the 400 carries the JSON body and headers of every reply.
    requireHostHeader: false,
  };
  const server: Server = tls === null
    ? createHttpServer(options, app.handle)
    : (createHttpsServer(
        // A TLS handshake is not covered by headersTimeout; Node's default for it is 120 s.
        { ...options, cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2', handshakeTimeout: LIMITS.headersTimeout },
        app.handle,
      ) as unknown as Server);
  // One field more than the limit reaches req.headers, so app.ts can see an excess and refuse
  // it with 431 (Node's own cap drops the excess silently, framing headers included).
  server.maxHeadersCount = LIMITS.maxHeadersCount + 1;
  server.on('checkContinue', app.handle);
  server.on('checkExpectation', app.expectationFailed);
  server.on('clientError', app.clientError);
  // Without these two listeners node treats an Upgrade as a plain request but has already
  // stopped parsing at its head, so the next bytes on the socket are dropped or misread.
  server.on('upgrade', app.upgrade);
  server.on('connect', app.upgrade);
  return server;
}

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Stops accepting, lets in-flight requests finish (their replies say `Connection: close`),
 * closes idle keep-alive sockets shortly after, and after the grace period cuts whatever is
 * left. Resolves true when everything finished in time.
 *
 * Not server.close() at once: since Node 19 it also closes every idle keep-alive connection
 * on the spot, and under load "idle" mostly means "its next request is in the socket buffer,
 * not read yet": the hardening test saw every busy keep-alive client lose that request. So
 * the listener closes first (net.Server's close), requests already on their way get
 * drainIdleMs to arrive and are answered with `Connection: close`, then the idle rest closes.
 */
export function shutdown(server: Server, app: App, graceMs: number = LIMITS.shutdownGraceMs): Promise<boolean> {
  app.draining = true;
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.closeAllConnections();
      resolve(false);
    }, graceMs);
    force.unref();
    NetServer.prototype.close.call(server, () => {
      clearTimeout(force);
      resolve(true);
    });
    setTimeout(() => server.closeIdleConnections(), LIMITS.drainIdleMs).unref();
  });
}
