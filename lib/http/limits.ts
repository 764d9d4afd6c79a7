import type { ServerOptions } from 'node:http';

/**
 * The connection limits of the HTTP edge: the timeouts and header caps that node:http enforces
 * for it (lib/server/service.ts hands them over) and that the app checks itself (app.ts).
 * @module
 */

/**
 * Node's defaults suit a server behind a proxy that already enforces limits; this one may
 * face clients directly. headersTimeout 5 s and requestTimeout 10 s cut slow-loris clients;
 * Node only checks them every connectionsCheckingInterval (30 s by default, which would make
 * both meaningless), so that is 500 ms: a slow-headers client is cut 5.0 to 5.5 s in.
 * keepAliveTimeout 5 s frees idle sockets (raise it above a load balancer's idle timeout if
 * one sits in front). 8 KB of headers is plenty for this API (Node allows 16 KB).
 *
 * None of those covers a reply the client does not read (security review S1,
 * docs/security.md): the request is complete and the connection is not idle. socketIdleTimeout
 * is node's socket inactivity timer (every socket, whatever it is doing) and the longest a
 * connection with replies outstanding may go without one of them being taken
 * (outstanding-replies.ts, which also caps them at maxOutstandingReplies). 15 s is above
 * requestTimeout plus its check and scheduling slack, so a silent body still gets its 408 first.
 */
export const LIMITS = {
  headersTimeout: 5_000,
  requestTimeout: 10_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 500,
  maxHeaderSize: 8_192,
  maxHeadersCount: 64,
  socketIdleTimeout: 15_000,
  maxOutstandingReplies: 32,
  /** The listen backlog (Node's default, stated because the drain in lib/server/service.ts counts on it). */
  listenBacklog: 511,
  /** How long a graceful shutdown waits for in-flight requests and for idle keep-alive
   * connections to reach their keep-alive timeout before cutting them. */
  shutdownGraceMs: 10_000,
} as const;

/** The node:http options of every listener the service opens (the public one and the metrics
 * one): the timeouts and head size above, and never the lenient parser (request smuggling
 * lives in the gaps between parsers). */
export const LISTENER_OPTIONS: Readonly<ServerOptions> = Object.freeze({
  headersTimeout: LIMITS.headersTimeout,
  requestTimeout: LIMITS.requestTimeout,
  keepAliveTimeout: LIMITS.keepAliveTimeout,
  connectionsCheckingInterval: LIMITS.connectionsCheckingInterval,
  maxHeaderSize: LIMITS.maxHeaderSize,
  insecureHTTPParser: false,
});
