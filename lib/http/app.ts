/**
 * The request handler: a hand-written exact-match router over a Map, and the handlers.
 * Order of checks on POST /generate (DECISIONS.md, HTTP): route -> rate limit (takes a slot)
 * -> key configured (503) -> key (401) -> content type (400) -> body size (413) -> JSON (400)
 * -> schema (400, core generate) -> generate. Every reply, errors included, goes through
 * `send`, which adds the fixed headers, the rate-limit numbers and the one log line.
 * @module
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { BODY_LIMIT_BYTES, describe, generateJson } from '../core/index.ts';
import type { Asset } from './assets.ts';
import { readBody } from './body.ts';
import { clientAddress, clientKeyOf, maskedAddress } from './client-key.ts';
import { ERROR_JSON, ERRORS } from './errors.ts';
import { headerSets, policyOf, withRateLimit, WWW_AUTHENTICATE } from './headers.ts';
import type { Logger } from './logger.ts';
import { blankState, type RateLimiter, type RateLimitState } from './rate-limit.ts';

export interface KeyVerifier {
  readonly configured: boolean;
  verify(presented: string): string | null;
}

export interface AppOptions {
  readonly limiter: RateLimiter;
  readonly keys: KeyVerifier;
  readonly logger: Logger;
  readonly assets: readonly Asset[];
  readonly trustProxyHops: number;
  readonly tls: boolean;
}

/** One request in flight: what `send` needs to reply and log. */
interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly started: number;
  readonly client: string;
  route: string;
  keyId: string | null;
  /** Set when the unread rest of the body must not be parsed as a next request. */
  close: boolean;
}

type Handler = (x: Exchange) => void;

interface Route {
  readonly get?: Handler;
  readonly post?: Handler;
  readonly allow: string;
}

export interface App {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** For 'checkExpectation': an Expect other than 100-continue. */
  expectationFailed(req: IncomingMessage, res: ServerResponse): void;
  /** For 'clientError': malformed requests, oversized headers, timeouts. */
  clientError(error: NodeJS.ErrnoException, socket: Socket): void;
  /** Set on shutdown: replies then carry `Connection: close`. */
  draining: boolean;
}


/** Content-Type is application/json, any case, optionally with parameters; a charset, if
 * given, must be UTF-8 (JSON is UTF-8 on the wire, RFC 8259 8.1). */
export function isJsonContentType(value: string): boolean {
  if (value === 'application/json') return true; // the usual case, without allocations
  const semi = value.indexOf(';');
  const type = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  if (type !== 'application/json') return false;
  if (semi === -1) return true;
  for (const param of value.slice(semi + 1).split(';')) {
    const eq = param.indexOf('=');
    if (eq === -1) {
      if (param.trim() === '') continue;
      return false;
    }
    const name = param.slice(0, eq).trim().toLowerCase();
    const raw = param.slice(eq + 1).trim();
    const v = (raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw).toLowerCase();
    if (name === 'charset' && v !== 'utf-8' && v !== 'utf8') return false;
  }
  return true;
}

/** How often a header name occurs in the raw list (Node joins or drops duplicates, so the
 * parsed `req.headers` cannot tell). `lower` must be lower case. */
export function headerCount(rawHeaders: readonly string[], lower: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === lower.length && name.toLowerCase() === lower) n++;
  }
  return n;
}

const CLIENT = Symbol('client key');

/** The path of a request target without its query. Origin-form (`/generate?x`) is the norm;
 * absolute-form (`http://host/generate`) must be accepted too (RFC 9112 3.2.2); anything else
 * (`*`, authority-form) matches no route. */
export function pathOf(target: string): string {
  let path = target;
  if (target.charCodeAt(0) !== 0x2f) {
    const absolute = /^https?:\/\/[^/?#]*([^#]*)/i.exec(target);
    if (absolute === null) return target;
    path = absolute[1] === '' || absolute[1]!.startsWith('?') ? `/${absolute[1]}` : absolute[1]!;
  }
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}

export function createApp(options: AppOptions): App {
  const { limiter, keys, logger, assets } = options;
  const sets = headerSets(options.tls);
  const policy = policyOf(limiter.limit);
  const logRequests = logger.infoEnabled;
  // Health probes come every few seconds from every supervisor and load balancer: at the
  // default level they would bury the requests that matter, so a 200 from /health is logged
  // only at debug.
  const logHealth = logger.debugEnabled;

  function clientOf(req: IncomingMessage): string {
    if (options.trustProxyHops > 0) {
      return clientKeyOf(clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], options.trustProxyHops));
    }
    // Without proxies the key depends only on the connection: derive it once per socket, not
    // once per keep-alive request.
    const socket = req.socket as Socket & { [CLIENT]?: string };
    return (socket[CLIENT] ??= clientKeyOf(socket.remoteAddress ?? 'unknown'));
  }

  function log(x: Exchange, status: number): void {
    if (!logRequests || (status === 200 && x.route === '/health' && !logHealth)) return;
    logger.request({
      method: x.req.method as string,
      route: x.route,
      status,
      ms: Math.round((performance.now() - x.started) * 100) / 100,
      key: x.keyId,
      client: maskedAddress(x.client),
    });
  }

  /** The single exit: fixed headers for the kind, rate-limit numbers, body, log line. */
  function send(x: Exchange, status: number, base: readonly string[], body: string | Buffer, rl: RateLimitState, extra?: readonly string[]): void {
    const { res } = x;
    if (res.headersSent || res.destroyed) return;
    const headers = withRateLimit(base, rl, policy, status, extra);
    headers.push('Content-Length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.length));
    if (x.close || app.draining) headers.push('Connection', 'close');
    res.writeHead(status, headers);
    res.end(body); // node drops the body itself for HEAD
    log(x, status);
  }

  function sendError(x: Exchange, name: keyof typeof ERRORS, rl: RateLimitState, extra?: readonly string[]): void {
    send(x, ERRORS[name].status, sets.json, ERROR_JSON[name], rl, extra);
  }

  function peek(x: Exchange): RateLimitState {
    return limiter.peek(x.client);
  }

  // --- handlers -----------------------------------------------------------------------

  const healthBody = JSON.stringify({ status: 'ok' });
  const describeBody = JSON.stringify(describe({ rateLimitPerMinute: limiter.limit }));

  const jsonGet = (body: string | Buffer): Handler => (x) => send(x, 200, sets.json, body, peek(x));

  /** A body that is not read must not be parsed as the next request: unless it is known to be
   * small (Node then discards it and keeps the connection), the connection closes. */
  function unreadBodyNeedsClose(req: IncomingMessage): boolean {
    if (req.headers.expect !== undefined) return true; // the client may still send it, or not
    const length = req.headers['content-length'];
    if (length !== undefined) return Number(length) > BODY_LIMIT_BYTES;
    return req.headers['transfer-encoding'] !== undefined;
  }

  /** An error answered before the body is read: close the connection if the unread body may
   * be large or still coming (see unreadBodyNeedsClose). */
  function refuse(x: Exchange, name: keyof typeof ERRORS, rl: RateLimitState, extra?: readonly string[]): void {
    x.close = unreadBodyNeedsClose(x.req);
    sendError(x, name, rl, extra);
  }

  function postGenerate(x: Exchange): void {
    const { req } = x;
    const rl = limiter.consume(x.client, blankState());
    if (!rl.allowed) {
      return refuse(x, 'rateLimited', rl);
    }
    if (!keys.configured) {
      return refuse(x, 'noKeyConfigured', rl);
    }
    const presented = req.headers['x-api-key'];
    const keyId = typeof presented === 'string' && headerCount(req.rawHeaders, 'x-api-key') === 1 ? keys.verify(presented) : null;
    if (keyId === null) {
      return refuse(x, 'unauthorized', rl, ['WWW-Authenticate', WWW_AUTHENTICATE]);
    }
    x.keyId = keyId;
    const contentType = req.headers['content-type'];
    if (contentType === undefined || !isJsonContentType(contentType)) {
      return refuse(x, 'badContentType', rl);
    }
    if (headerCount(req.rawHeaders, 'content-type') !== 1) {
      return refuse(x, 'duplicateContentType', rl);
    }
    const length = req.headers['content-length'];
    if (length !== undefined && Number(length) > BODY_LIMIT_BYTES) {
      x.close = true;
      return sendError(x, 'tooLarge', rl);
    }
    // Only now is the body wanted: tell an `Expect: 100-continue` client to send it.
    if (req.headers.expect !== undefined) x.res.writeContinue();
    readBody(req, BODY_LIMIT_BYTES, (result) => {
      try {
        if (result.kind === 'aborted') return log(x, 0); // no one left to answer
        if (result.kind === 'too-large') {
          x.close = true;
          return sendError(x, 'tooLarge', rl);
        }
        // JSON on the wire is UTF-8 (RFC 8259 8.1); toString would silently mangle anything else.
        if (!isUtf8(result.body)) return sendError(x, 'badEncoding', rl);
        let input: unknown;
        try {
          input = JSON.parse(result.body.toString('utf8'));
        } catch {
          return sendError(x, 'badJson', rl);
        }
        // generateJson = JSON.stringify(generate(input).body), byte for byte, with the plan's
        // entropy and metadata JSON cached (the bulk of a reply).
        const outcome = generateJson(input);
        send(x, outcome.status, sets.json, outcome.json, rl);
      } catch (error) {
        fail(x, error);
      }
    });
  }

  // --- routes -------------------------------------------------------------------------

  const routes = new Map<string, Route>();
  routes.set('/health', { get: jsonGet(healthBody), allow: 'GET, HEAD' });
  routes.set('/generate', { get: jsonGet(describeBody), post: postGenerate, allow: 'GET, HEAD, POST' });
  for (const asset of assets) {
    const headers =
      asset.kind === 'page' ? sets.page(asset.contentType) : asset.kind === 'download' ? sets.download(asset.route.slice(asset.route.lastIndexOf('/') + 1)) : sets.json;
    routes.set(asset.route, { get: (x) => send(x, 200, headers, asset.body, peek(x)), allow: 'GET, HEAD' });
  }

  /** Anything unexpected: a fixed 500 body, nothing internal in it; the stack goes to the log
   * (it holds code locations, never the request body). */
  function fail(x: Exchange, error: unknown): void {
    logger.error('unexpected error', { route: x.route, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    if (x.res.headersSent) {
      x.res.destroy();
      return;
    }
    x.close = true;
    sendError(x, 'internal', peek(x));
  }

  const app: App = {
    draining: false,

    handle(req, res) {
      const x: Exchange = { req, res, started: performance.now(), client: clientOf(req), route: 'unmatched', keyId: null, close: false };
      try {
        // RFC 9112 3.2: an HTTP/1.1 request without Host, or any with two, is a 400. Node's own
        // check (requireHostHeader, off in service.ts) would answer with a bare, header-less 400.
        const hosts = headerCount(req.rawHeaders, 'host');
        if (hosts > 1 || (hosts === 0 && req.httpVersionMinor === 1 && req.httpVersionMajor === 1)) {
          x.close = true;
          return sendError(x, 'badRequest', peek(x));
        }
        const path = pathOf(req.url as string);
        const route = routes.get(path);
        if (route === undefined) {
          return refuse(x, 'notFound', peek(x));
        }
        x.route = path;
        const method = req.method;
        if (method === 'POST' && route.post !== undefined) return route.post(x);
        // Only POST /generate reads a body; anywhere else one is discarded, or, if it may be
        // large, the connection is closed rather than read to its end.
        x.close = unreadBodyNeedsClose(req);
        if ((method === 'GET' || method === 'HEAD') && route.get !== undefined) return route.get(x);
        sendError(x, 'methodNotAllowed', peek(x), ['Allow', route.allow]);
      } catch (error) {
        fail(x, error);
      }
    },

    expectationFailed(req, res) {
      const x: Exchange = { req, res, started: performance.now(), client: clientOf(req), route: 'unmatched', keyId: null, close: true };
      sendError(x, 'expectationFailed', peek(x));
    },

    clientError(error, socket) {
      // Mirrors node's default handler (write a response only if none is under way), but with
      // our headers and a JSON body, so even a parser error looks like the rest of the API.
      const pending = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (error.code === 'ECONNRESET' || !socket.writable || (pending != null && pending.headersSent)) {
        socket.destroy();
        return;
      }
      if (pending != null && pending.req.complete && error.code !== 'ERR_HTTP_REQUEST_TIMEOUT') {
        // Garbage after a complete request (e.g. more bytes than its Content-Length): let that
        // request's reply go out first, then close; writing an error now would interleave.
        pending.shouldKeepAlive = false;
        pending.once('close', () => socket.destroy());
        return;
      }
      const name =
        error.code === 'HPE_HEADER_OVERFLOW' ? 'headersTooLarge' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'requestTimeout' : 'badRequest';
      const body = ERROR_JSON[name];
      const rl = limiter.peek(clientKeyOf(socket.remoteAddress ?? 'unknown'));
      const headers = withRateLimit(sets.json, rl, policy, ERRORS[name].status, ['Content-Length', String(body.length), 'Connection', 'close']);
      let head = `HTTP/1.1 ${ERRORS[name].status} ${STATUS_TEXT[name]}\r\n`;
      for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
      socket.end(`${head}\r\n${body}`);
      logger.debug('client error', { code: error.code ?? 'unknown', status: ERRORS[name].status });
    },
  };
  return app;
}

const STATUS_TEXT = { headersTooLarge: 'Request Header Fields Too Large', requestTimeout: 'Request Timeout', badRequest: 'Bad Request' } as const;
