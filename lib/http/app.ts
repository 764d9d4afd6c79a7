/**
 * The request handler: a hand-written exact-match router over a Map, and the handlers. Every
 * reply, errors included, goes through `send` (or `sendRaw` on a socket Node has handed over),
 * which adds the fixed headers, the rate-limit numbers and the one log line.
 *
 * Before any route, on every request:
 *   more than 64 header fields -> 431 (Node drops the excess from req.headers, so a
 *     Content-Length or Transfer-Encoding past the 64th field would be invisible here)
 *   an Upgrade header -> 400 (Node hands an upgrade's socket over raw, see `upgrade`; any
 *     other protocol switch is refused too, so the request boundary never moves)
 *   no Host on HTTP/1.1, or two -> 400
 * all three with `Connection: close`.
 *
 * POST /generate, in this order (docs/security-review-http.md, F8):
 *   route (404/405)
 *   -> no key configured, or no X-Api-Key: the address's no-key bucket (429) -> 503 / 401
 *   -> the address's failed-key bucket empty: 429, and the key is not checked at all
 *   -> key checked in constant time; it fails: takes a failed-key token -> 401
 *   -> valid: the address's own bucket (429) -> content type (400) -> body size (413)
 *   -> JSON (400) -> schema (400, core generate) -> generate.
 * The rate-limit headers of a reply are those of the bucket that decided it; GETs and
 * everything answered before the key show the address's own bucket. A 429 takes nothing.
 *
 * A reply sent before a declared body has been read (every error above, and a GET with a
 * body) says `Connection: close`, and the socket closes in stages after it (closeInStages):
 * the unread rest is neither read and thrown away nor parsed as a next request.
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
import { LIMITS } from './service.ts';

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
  /** For 'upgrade' and 'connect': Node hands the socket over after the request's head. */
  upgrade(req: IncomingMessage, socket: Socket): void;
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
/** Set on a socket whose request was answered before its body was read: it is closing, and
 * the request timeout must not answer that request a second time. */
const ANSWERED = Symbol('answered early');

type AnsweredSocket = Socket & { [ANSWERED]?: boolean; _handle?: { readStop?: () => unknown } | null };

/** How long a socket answered before its body was read stays half-closed. */
const LINGER_MS = 2_000;

/**
 * Closes a socket whose request body was not read, in stages (RFC 9112 9.6): a plain close
 * with unread bytes makes the kernel send a reset, and a client still writing its body then
 * loses the reply it has not read yet (measured: a client pushing a 10 GB body got nothing).
 * So: FIN after the reply, stop reading at once (nothing more is read, let alone thrown away;
 * what still arrives waits in the kernel's receive buffer, a few MB at most), and destroy the
 * socket LINGER_MS later, by which time the client has had the reply.
 */
function closeInStages(this: AnsweredSocket): void {
  this.end();
  this._handle?.readStop?.();
  const timer = setTimeout(() => this.destroy(), LINGER_MS);
  this.once('close', () => clearTimeout(timer));
}

/** The buckets of one address besides its own (see the order of checks above). The prefixes
 * cannot begin an IP address or a /56 key, so they never collide with a client's own. */
export const noKeyBucket = (client: string): string => `nokey:${client}`;
export const failedKeyBucket = (client: string): string => `badkey:${client}`;

/** Whether a request may still have body bytes coming: a Content-Length other than 0, or any
 * Transfer-Encoding (even an empty chunked body is only known empty once read). With more
 * than 64 header fields refused first, these two are never hidden. */
export function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] !== undefined) return true;
  return length !== undefined && Number(length) !== 0;
}

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

  function log(x: Pick<Exchange, 'req' | 'route' | 'started' | 'keyId' | 'client'>, status: number): void {
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
    if (x.close) {
      const socket = x.req.socket as AnsweredSocket;
      socket[ANSWERED] = true;
      // Node ends a `Connection: close` socket with destroySoon once the reply is out.
      socket.destroySoon = closeInStages;
    }
    res.writeHead(status, headers);
    res.end(body); // node drops the body itself for HEAD
    log(x, status);
  }

  /** An error written straight to a socket that node:http no longer manages (a parser error,
   * an upgrade): the same headers and body as `send`, then the socket closes in stages. */
  function sendRaw(socket: Socket, name: RawErrorName, rl: RateLimitState): void {
    const status = ERRORS[name].status;
    const body = ERROR_JSON[name];
    const headers = withRateLimit(sets.json, rl, policy, status, ['Content-Length', String(body.length), 'Connection', 'close']);
    let head = `HTTP/1.1 ${status} ${STATUS_TEXT[name]}\r\n`;
    for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
    socket.write(`${head}\r\n${body}`);
    closeInStages.call(socket);
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

  /** An error answered before the body is read: if a body was declared, the connection
   * closes, because its unread rest must be neither read nor parsed as a next request. */
  function refuse(x: Exchange, name: keyof typeof ERRORS, rl: RateLimitState, extra?: readonly string[]): void {
    x.close = declaresBody(x.req);
    sendError(x, name, rl, extra);
  }

  function postGenerate(x: Exchange): void {
    const { req } = x;
    const presented = req.headers['x-api-key'];
    if (!keys.configured || presented === undefined) {
      // Nothing to guess: such requests (any web page can make a visitor's browser send them)
      // spend their own bucket and never the one of a keyed client at the same address.
      const rl = limiter.consume(noKeyBucket(x.client), blankState());
      if (!rl.allowed) return refuse(x, 'rateLimited', rl);
      if (!keys.configured) return refuse(x, 'noKeyConfigured', rl);
      return refuse(x, 'unauthorized', rl, UNAUTHORIZED_EXTRA);
    }
    // The brute-force brake: once an address has spent its failed-key bucket, no key from it is
    // checked until a token is back, so a 429 tells a guesser nothing about the key it sent.
    const failed = failedKeyBucket(x.client);
    const gate = limiter.peek(failed, blankState());
    if (!gate.allowed) return refuse(x, 'rateLimited', gate);
    // A duplicated X-Api-Key is a failure, never joined (node would join the two values).
    const keyId = typeof presented === 'string' && headerCount(req.rawHeaders, 'x-api-key') === 1 ? keys.verify(presented) : null;
    if (keyId === null) {
      return refuse(x, 'unauthorized', limiter.consume(failed, gate), UNAUTHORIZED_EXTRA);
    }
    x.keyId = keyId;
    const rl = limiter.consume(x.client, gate);
    if (!rl.allowed) return refuse(x, 'rateLimited', rl);
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
        // Node keeps every field in rawHeaders but only maxHeadersCount of them in req.headers
        // (service.ts sets one more than the limit, so an excess is visible whatever Node does
        // with rawHeaders): past the limit, a framing header could hide from declaresBody.
        if (req.rawHeaders.length > 2 * LIMITS.maxHeadersCount) {
          x.close = true;
          return sendError(x, 'headersTooLarge', peek(x));
        }
        // An upgrade node did not hand over (no `Connection: upgrade`) is refused as well: one
        // rule for every protocol switch.
        if (req.headers.upgrade !== undefined) {
          x.close = true;
          return sendError(x, 'upgradeRefused', peek(x));
        }
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
        // Only POST /generate reads a body; anywhere else a declared one closes the connection.
        x.close = declaresBody(req);
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

    upgrade(req, socket) {
      // Node has parsed the head of an Upgrade (or CONNECT) request and handed the socket over:
      // whatever follows on it is never parsed, so the request boundary cannot move.
      const x = { req, route: 'unmatched', started: performance.now(), keyId: null, client: clientOf(req) };
      sendRaw(socket, 'upgradeRefused', limiter.peek(x.client));
      log(x, ERRORS.upgradeRefused.status);
    },

    clientError(error, socket) {
      // Mirrors node's default handler (write a response only if none is under way), but with
      // our headers and a JSON body, so even a parser error looks like the rest of the API.
      const pending = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      const answered = (socket as AnsweredSocket)[ANSWERED] === true;
      if (error.code === 'ECONNRESET' || !socket.writable || answered || (pending != null && pending.headersSent)) {
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
      sendRaw(socket, name, limiter.peek(clientKeyOf(socket.remoteAddress ?? 'unknown')));
      logger.debug('client error', { code: error.code ?? 'unknown', status: ERRORS[name].status });
    },
  };
  return app;
}

const STATUS_TEXT = {
  headersTooLarge: 'Request Header Fields Too Large',
  requestTimeout: 'Request Timeout',
  badRequest: 'Bad Request',
  upgradeRefused: 'Bad Request',
} as const;
type RawErrorName = keyof typeof STATUS_TEXT;
const UNAUTHORIZED_EXTRA = ['WWW-Authenticate', WWW_AUTHENTICATE] as const;
