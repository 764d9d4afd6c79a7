/**
 * The request handler: checks every request's head, routes it by exact path (a Map), and hands
 * it to its handler; every reply goes out through the Responder (responder.ts).
 *
 * Before any route, on every request, each with `Connection: close`:
 *   more than 64 header fields -> 431 (Node drops the excess from req.headers, so a
 *     Content-Length or Transfer-Encoding past the 64th field would be invisible here)
 *   an Upgrade header -> 400 (Node hands an upgrade's socket over raw, see `upgrade`; any
 *     other protocol switch is refused too, so the request boundary never moves)
 *   no Host on HTTP/1.1, or two -> 400
 * then: unknown path 404, known path with another method 405 (+ Allow), GET/HEAD served from
 * memory (/ready from the service's state), POST /generate by generate-route.ts. GET replies
 * and everything answered before the key carry the numbers of the client's own bucket, without
 * taking a token. Every reply carries the request's id (request-id.ts).
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { describe } from '../service/describe.ts';
import type { KeyVerifier } from '../keys/key-store.ts';
import type { OfferedPolicies } from '../policies/policy-store.ts';
import type { Logger } from '../log/logger.ts';
import type { BuildIdentity, RequestMetrics } from '../metrics/service-metrics.ts';
import type { ClientLimits } from '../rate-limit/client-limits.ts';
import type { RateLimitState } from '../rate-limit/token-bucket.ts';
import { assetReply, withPoliciesAsset, type Asset } from './assets.ts';
import { clientAddress, clientKeyOf } from './client-key.ts';
import { isAnsweredEarly } from './early-close.ts';
import { ERRORS } from './errors.ts';
import { GenerateRoute } from './generate-route.ts';
import { declaresBody, hasBadHost, pathOf } from './request-checks.ts';
import { exchangeOf, Responder, type Exchange, type Logged } from './responder.ts';
import { LIMITS } from './limits.ts';
import { lastReplyOfConnection, pendingReply } from './node-internals.ts';
import { newRequestId, requestIdOf } from './request-id.ts';

export type { KeyVerifier } from '../keys/key-store.ts';

export interface AppOptions {
  readonly limits: ClientLimits;
  readonly keys: KeyVerifier;
  readonly logger: Logger;
  readonly assets: readonly Asset[];
  readonly trustProxyHops: number;
  readonly tls: boolean;
  /** The service's entropy floor in bits (MIN_ENTROPY_BITS); 0 when absent. */
  readonly minEntropyBits?: number;
  /** The named policies (POLICIES_FILE), watched; absent: none configured. */
  readonly policies?: OfferedPolicies;
  /** The running build, shown by GET /health (absent: status only). */
  readonly build?: BuildIdentity;
  /** Where the request path reports (absent: nowhere). */
  readonly metrics?: RequestMetrics;
}

/** Handlers as properties (not methods): service.ts hands them to node:http as they are. */
export interface App {
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** For 'checkExpectation': an Expect other than 100-continue. */
  readonly expectationFailed: (req: IncomingMessage, res: ServerResponse) => void;
  /** For 'upgrade' and 'connect': Node hands the socket over after the request's head. */
  readonly upgrade: (req: IncomingMessage, socket: Socket) => void;
  /** For 'clientError': malformed requests, oversized headers, timeouts. */
  readonly clientError: (error: NodeJS.ErrnoException, socket: Socket) => void;
  /** For 'tlsClientError' (a server that speaks TLS): plain HTTP sent to it is answered. */
  readonly tlsClientError: (error: NodeJS.ErrnoException, tlsSocket: Socket) => void;
  /** Set on shutdown: replies then carry `Connection: close`. */
  draining: boolean;
}

type Handler = (x: Exchange) => void;

interface Route {
  readonly get?: Handler;
  readonly post?: Handler;
  readonly allow: string;
}

/** The bucket key of a socket's peer, derived once per connection, not once per keep-alive
 * request (a WeakMap, so nothing is written on Node's socket). */
const clientBySocket = new WeakMap<Socket, string>();

export function createApp(options: AppOptions): App {
  const { limits, logger } = options;
  let draining = false;
  const { tls, metrics } = options;
  const reply = new Responder({ tls, limit: limits.limit, logger, draining: () => draining, metrics });
  const clientOf = (req: IncomingMessage): string => clientKey(req, options.trustProxyHops);
  const exchange = (req: IncomingMessage, res: ServerResponse): Exchange =>
    exchangeOf(req, res, clientOf(req), requestIdOf(req, options.trustProxyHops));
  const peek = (x: Exchange) => limits.peek(x.client);

  /** Anything unexpected: a fixed 500 body, nothing internal in it; the stack goes to the log
   * (it holds code locations, never the request body). */
  function fail(x: Exchange, error: unknown): void {
    logger.error('unexpected error', {
      id: x.id,
      route: x.route,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    if (x.res.headersSent) {
      x.res.destroy();
      return;
    }
    x.close = true;
    reply.error(x, 'internal', peek(x));
  }

  const routes = routesOf(
    options,
    reply,
    new GenerateRoute({
      keys: options.keys,
      limits,
      responder: reply,
      fail,
      // The store answers for the set in use at each request: a reload takes effect at once.
      settings: { minEntropyBits: options.minEntropyBits ?? 0, policies: options.policies ?? null },
      metrics: options.metrics,
    }),
    peek,
    () => draining,
  );

  const dispatch = (x: Exchange): void => {
    dispatchRequest(x, routes, reply, peek);
  };

  return {
    get draining() {
      return draining;
    },
    set draining(value: boolean) {
      draining = value;
    },
    handle(req, res) {
      if (metrics !== undefined) countActive(metrics, req, res);
      const x = exchange(req, res);
      try {
        dispatch(x);
      } catch (error) {
        fail(x, error);
      }
    },
    expectationFailed(req, res) {
      const x = exchange(req, res);
      x.close = true;
      reply.error(x, 'expectationFailed', peek(x));
    },
    upgrade(req, socket) {
      refuseUpgrade(req, socket, reply, limits, clientOf(req), requestIdOf(req, options.trustProxyHops));
    },
    clientError: (error, socket) => {
      clientError(error, socket, reply, limits, logger);
    },
    tlsClientError: (error, tlsSocket) => {
      plainHttpOnTls(error, tlsSocket, reply, limits, logger);
    },
  };
}

/** Node has parsed the head of an Upgrade (or CONNECT) request and handed the socket over:
 * whatever follows on it is never parsed, so the request boundary cannot move. */
function refuseUpgrade(
  req: IncomingMessage,
  socket: Socket,
  reply: Responder,
  limits: ClientLimits,
  client: string,
  id: string,
): void {
  reply.raw(socket, 'upgradeRefused', limits.peek(client), id);
  const logged: Logged = {
    req,
    route: 'unmatched',
    started: performance.now(),
    keyId: null,
    client,
    id,
    reason: 'upgradeRefused',
    field: null,
  };
  reply.log(logged, ERRORS.upgradeRefused.status);
}

/** The head checks that refuse a request before any route: their error, or null. */
function headRefusal(req: IncomingMessage): 'headersTooLarge' | 'upgradeRefused' | 'badRequest' | null {
  // lib/server/service.ts lets Node keep one field more than the limit, so an excess is visible here.
  if (req.rawHeaders.length > 2 * LIMITS.maxHeadersCount) return 'headersTooLarge';
  if (req.headers.upgrade !== undefined) return 'upgradeRefused';
  return hasBadHost(req) ? 'badRequest' : null;
}

/** Head checks, then the route by exact path, then the handler for the method. */
function dispatchRequest(
  x: Exchange,
  routes: ReadonlyMap<string, Route>,
  reply: Responder,
  peek: (x: Exchange) => RateLimitState,
): void {
  const { req } = x;
  const refusal = headRefusal(req);
  if (refusal !== null) {
    x.close = true;
    reply.error(x, refusal, peek(x));
    return;
  }
  const path = pathOf(req.url as string);
  const route = routes.get(path);
  if (route === undefined) {
    reply.refuse(x, 'notFound', peek(x));
    return;
  }
  x.route = path;
  if (req.method === 'POST' && route.post !== undefined) {
    route.post(x);
    return;
  }
  // Only POST /generate reads a body; anywhere else a declared one closes the connection.
  x.close = declaresBody(req);
  if ((req.method === 'GET' || req.method === 'HEAD') && route.get !== undefined) {
    route.get(x);
    return;
  }
  reply.error(x, 'methodNotAllowed', peek(x), ['Allow', route.allow]);
}

function clientKey(req: IncomingMessage, trustProxyHops: number): string {
  if (trustProxyHops > 0)
    return clientKeyOf(clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], trustProxyHops));
  const socket = req.socket;
  let key = clientBySocket.get(socket);
  if (key === undefined) {
    key = clientKeyOf(socket.remoteAddress ?? 'unknown');
    clientBySocket.set(socket, key);
  }
  return key;
}

/**
 * /ready: 200 while the service accepts work; 503 while it drains or while no key is
 * configured (POST /generate would answer 503). The limiter's store is named either way; a
 * Redis outage is not "not ready", since requests are still limited in-process meanwhile.
 */
function readiness(options: AppOptions, draining: () => boolean): { status: number; body: string } {
  const state = draining() ? 'draining' : options.keys.configured ? 'ready' : 'no-key';
  // A rejected rewrite of the policies file does not make the instance unready: it serves the
  // last good set, and says why the file as it is now is not in use.
  const policies = options.policies === undefined ? '' : `,"policies":${JSON.stringify(options.policies.status())}`;
  return {
    status: state === 'ready' ? 200 : 503,
    body: `{"status":"${state}","rateLimitStore":"${options.limits.state}"${policies}}`,
  };
}

/** A value computed from the policy set in use, again only when the set changes. */
function perPolicySet<T>(
  policies: OfferedPolicies | undefined,
  make: (set: OfferedPolicies | undefined) => T,
): () => T {
  let made: { set: unknown; value: T } | null = null;
  return () => {
    const set = policies?.list();
    if (made === null || made.set !== set) made = { set, value: make(policies) };
    return made.value;
  };
}

/** The route table: /health, /ready, /generate, and the assets, all answered from memory. */
function routesOf(
  options: AppOptions,
  reply: Responder,
  generate: GenerateRoute,
  peek: (x: Exchange) => RateLimitState,
  draining: () => boolean,
): Map<string, Route> {
  const { json } = reply.sets;
  const fixed =
    (headers: readonly string[], body: string | Buffer): Handler =>
    (x) => {
      reply.send(x, 200, headers, body, peek(x));
    };
  const routes = new Map<string, Route>();
  const build = options.build;
  const health =
    build === undefined ? { status: 'ok' } : { status: 'ok', version: build.version, sha256: build.sha256 };
  routes.set('/health', { get: fixed(json, JSON.stringify(health)), allow: 'GET, HEAD' });
  routes.set('/ready', {
    get: (x) => {
      const ready = readiness(options, draining);
      reply.send(x, ready.status, json, ready.body, peek(x));
    },
    allow: 'GET, HEAD',
  });
  const description = perPolicySet(options.policies, (policies) =>
    JSON.stringify(
      describe({
        rateLimitPerMinute: options.limits.limit,
        minEntropyBits: options.minEntropyBits ?? 0,
        policies: policies?.list(),
      }),
    ),
  );
  routes.set('/generate', {
    get: (x) => {
      reply.send(x, 200, json, description(), peek(x));
    },
    post: (x) => {
      generate.handle(x);
    },
    allow: 'GET, HEAD, POST',
  });
  for (const asset of options.assets) {
    const name = asset.route.slice(asset.route.lastIndexOf('/') + 1);
    const headers =
      asset.kind === 'page'
        ? reply.sets.page(asset.contentType)
        : asset.kind === 'download'
          ? reply.sets.download(name)
          : json;
    // The home page offers the policies in use (its ServiceAPI generates with them).
    const page =
      options.policies === undefined || asset.kind !== 'page' || asset.contentType !== 'text/html; charset=utf-8'
        ? null
        : perPolicySet(options.policies, (policies) => withPoliciesAsset(asset, policies?.current() ?? new Map()));
    const get: Handler = (x) => {
      const chosen = assetReply(page === null ? asset : page(), x.req.headers['accept-encoding']);
      reply.send(x, 200, headers, chosen.body, peek(x), chosen.headers);
    };
    routes.set(asset.route, { get, allow: 'GET, HEAD' });
  }
  return routes;
}

/**
 * Malformed requests, oversized heads, timeouts: node's default handler, but with our headers
 * and a JSON body, so even a parser error looks like the rest of the API. The reply under way
 * on the socket, and making it the connection's last, are what node's own default handler
 * reads and sets for the same decisions (node-internals.ts: pendingReply,
 * lastReplyOfConnection); the tests of "sends more than its Content-Length" in
 * tests/e2e/server.integration.ts need them.
 */
function clientError(
  error: NodeJS.ErrnoException,
  socket: Socket,
  reply: Responder,
  limits: ClientLimits,
  logger: Logger,
): void {
  const pending = pendingReply(socket);
  if (
    error.code === 'ECONNRESET' ||
    !socket.writable ||
    isAnsweredEarly(socket) ||
    (pending != null && pending.headersSent)
  ) {
    socket.destroy();
    return;
  }
  if (pending != null && pending.req.complete && error.code !== 'ERR_HTTP_REQUEST_TIMEOUT') {
    // Garbage after a complete request (e.g. more bytes than its Content-Length): let that
    // request's reply go out first, then close; writing an error now would interleave.
    lastReplyOfConnection(pending);
    pending.once('close', () => socket.destroy());
    return;
  }
  const name =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'headersTooLarge'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'requestTimeout'
        : 'badRequest';
  const id = newRequestId();
  reply.raw(socket, name, limits.peek(clientKeyOf(socket.remoteAddress ?? 'unknown')), id);
  logger.debug('client error', { id, code: error.code ?? 'unknown', status: ERRORS[name].status });
}

/**
 * Plain HTTP sent to the TLS port: OpenSSL recognises a request line (GET, POST, HEAD, PUT)
 * where a TLS record should start (ERR_SSL_HTTP_REQUEST). As nginx does, it gets a 400 in plain
 * text that says the port speaks HTTPS, then the connection closes; any other failed handshake
 * is closed by node:tls as before, without a word. The reply goes on the TCP socket the TLS
 * socket wraps, which node:tls keeps as `_parent` and closes once this listener returns; the
 * reply is written synchronously when the socket's buffer takes it (a few hundred bytes), and
 * without `_parent` (a Node release that drops it) nothing is written and the connection closes
 * as before.
 */
function plainHttpOnTls(
  error: NodeJS.ErrnoException,
  tlsSocket: Socket,
  reply: Responder,
  limits: ClientLimits,
  logger: Logger,
): void {
  if (error.code !== 'ERR_SSL_HTTP_REQUEST') return;
  const raw = (tlsSocket as unknown as { _parent?: unknown })._parent;
  if (!(raw instanceof Socket)) return;
  const id = newRequestId();
  reply.raw(raw, 'plainHttpOnTls', limits.peek(clientKeyOf(raw.remoteAddress ?? 'unknown')), id);
  logger.debug('client error', { id, code: error.code, status: ERRORS.plainHttpOnTls.status });
}

/** http.server.active_requests: from the request's arrival until its response closes (sent,
 * or the connection gone), which 'close' reports exactly once either way. */
function countActive(metrics: RequestMetrics, req: IncomingMessage, res: ServerResponse): void {
  const method = req.method as string;
  metrics.active(method, 1);
  res.on('close', () => {
    metrics.active(method, -1);
  });
}
