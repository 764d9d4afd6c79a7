/**
 * The single exit of every request: the fixed headers of its kind, the rate-limit numbers of
 * the bucket that decided it, Content-Length, the body, and the one log line. Errors the edge
 * detects go out through the same path with their bodies from errors.ts; errors on a socket
 * node:http has let go of (parser errors, upgrades) are written raw with the same headers.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { NO_METRICS, type RequestMetrics } from '../metrics/service-metrics.ts';
import type { RateLimitState } from '../rate-limit/token-bucket.ts';
import { maskedAddress } from './client-key.ts';
import { closeAfterReply, closeInStages } from './early-close.ts';
import { ERROR_JSON, ERRORS, STATUS_TEXT, type ErrorName, type RawErrorName } from './errors.ts';
import { HeadTemplate, headerSets, policyOf, withRateLimit, type HeaderSets } from './headers.ts';
import type { Logger } from '../log/logger.ts';
import type { ErrorBody } from '../request/index.ts';
import { declaresBody } from './request-checks.ts';

/** Bodies larger than this go out in pieces of this size (the assets; every other reply is a
 * few KB at most). */
export const WRITE_CHUNK = 16 * 1024;

/**
 * Writes `body` in chunks of `chunk` bytes, each once the reply has drained (docs/security.md,
 * Connections and memory). `res.end(body)` hands a whole file to the socket at once, and over TLS that is a whole
 * encrypted copy (432 KB for service-api.js) held until the client reads it; a client that
 * never reads then pins one per connection. Chunks are views of the asset's one buffer, so a
 * pipelined reply waiting its turn holds at most a high-water mark of views, no copy. A
 * connection closed meanwhile never drains: the listener goes with the reply.
 */
export function writeWithBackpressure(res: ServerResponse, body: Buffer, chunk = WRITE_CHUNK): void {
  let offset = 0;
  const next = (): void => {
    while (!res.destroyed) {
      const end = Math.min(offset + chunk, body.length);
      const piece = body.subarray(offset, end);
      offset = end;
      if (offset === body.length) {
        res.end(piece);
        return;
      }
      if (!res.write(piece)) {
        res.once('drain', next);
        return;
      }
    }
  };
  next();
}

/** One request in flight: what a reply and its log line need. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly started: number;
  readonly client: string;
  /** X-Request-Id of the reply and `id` of the log line (lib/http/request-id.ts). */
  readonly id: string;
  route: string;
  keyId: string | null;
  /** The connection closes after the reply (its unread rest must not be parsed as a request). */
  close: boolean;
  /** For the log line of an error reply: why (a fixed word) and the field at fault. */
  reason: string | null;
  field: string | null;
}

export function exchangeOf(req: IncomingMessage, res: ServerResponse, client: string, id: string): Exchange {
  return {
    req,
    res,
    started: performance.now(),
    client,
    id,
    route: 'unmatched',
    keyId: null,
    close: false,
    reason: null,
    field: null,
  };
}

/** What a log line needs of an exchange (an upgrade's has no response object). */
export type Logged = Pick<Exchange, 'req' | 'route' | 'started' | 'keyId' | 'client' | 'id' | 'reason' | 'field'>;

/** Routes that supervisors and load balancers poll every few seconds: at the default level
 * their lines would bury the requests that matter, so they are logged only at debug (a
 * /health that fails is still logged). */
const isProbe = (route: string, status: number): boolean =>
  route === '/ready' || (route === '/health' && status === 200);

/** Clients whose masked address is kept; past this many the memo starts over. */
const MASKED_CLIENTS = 4096;

export interface ResponderOptions {
  readonly tls: boolean;
  readonly limit: number;
  readonly logger: Logger;
  /** Set on shutdown: every reply then says `Connection: close`. */
  readonly draining: () => boolean;
  /** Where each reply's duration goes (metrics off: NO_METRICS). */
  readonly metrics?: RequestMetrics;
}

export class Responder {
  readonly sets: HeaderSets;
  private readonly policy: string;
  /** The head of a JSON reply that is not a 429 and has no extra fields: most replies. */
  private readonly jsonHead: HeadTemplate;
  private readonly logger: Logger;
  private readonly logRequests: boolean;
  private readonly logProbes: boolean;
  private readonly draining: () => boolean;
  private readonly metrics: RequestMetrics;
  /** Large bodies in chunks: over TLS only, where a write is encrypted into a copy of its own.
   * Plain TCP takes the file's one shared buffer as it is, so there it would save nothing. */
  private readonly chunked: boolean;
  private readonly maskedClients = new Map<string, string>();

  constructor(options: ResponderOptions) {
    this.sets = headerSets(options.tls);
    this.chunked = options.tls;
    this.policy = policyOf(options.limit);
    this.jsonHead = new HeadTemplate(this.sets.json, options.limit, this.policy);
    this.logger = options.logger;
    this.logRequests = options.logger.infoEnabled;
    this.logProbes = options.logger.debugEnabled;
    this.draining = options.draining;
    this.metrics = options.metrics ?? NO_METRICS;
  }

  /** The request's duration into the metrics (status 0: the client left before a reply, not
   * a reply) and its log line. */
  log(x: Logged, status: number): void {
    const ms = performance.now() - x.started;
    const method = x.req.method as string;
    if (status !== 0) this.metrics.request(method, x.route, status, ms / 1000);
    if (!this.logRequests || (!this.logProbes && isProbe(x.route, status))) return;
    this.logger.request({
      id: x.id,
      method,
      route: x.route,
      status,
      ms: Math.round(ms * 100) / 100,
      key: x.keyId,
      client: this.masked(x.client),
      reason: x.reason,
      field: x.field,
    });
  }

  /** What the log shows of a client, worked out once per client: its requests repeat it (the
   * same key string, which the app keeps per connection). Bounded like the logger's quotes. */
  private masked(client: string): string {
    let shown = this.maskedClients.get(client);
    if (shown === undefined) {
      if (this.maskedClients.size >= MASKED_CLIENTS) this.maskedClients.clear();
      shown = maskedAddress(client);
      this.maskedClients.set(client, shown);
    }
    return shown;
  }

  send(
    x: Exchange,
    status: number,
    base: readonly string[],
    body: string | Buffer,
    rl: RateLimitState,
    extra?: readonly string[],
  ): void {
    const { res } = x;
    if (res.headersSent || res.destroyed) return;
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    let headers: string[];
    if (base === this.sets.json && extra === undefined && status !== 429 && rl.limit === this.jsonHead.limit) {
      headers = this.jsonHead.fill(rl, length, x.id);
    } else {
      headers = withRateLimit(base, rl, this.policy, status, extra);
      headers.push('Content-Length', String(length), 'X-Request-Id', x.id);
    }
    if (x.close || this.draining()) headers.push('Connection', 'close');
    if (x.close) closeAfterReply(x.req.socket);
    res.writeHead(status, headers);
    // node drops the body itself for HEAD
    if (!this.chunked || typeof body === 'string' || body.length <= WRITE_CHUNK || x.req.method === 'HEAD')
      res.end(body);
    else writeWithBackpressure(res, body);
    this.log(x, status);
  }

  /** An error of the edge; its name is the log line's reason unless one is set already. */
  error(x: Exchange, name: ErrorName, rl: RateLimitState, extra?: readonly string[]): void {
    x.reason ??= name;
    this.send(x, ERRORS[name].status, this.sets.json, ERROR_JSON[name], rl, extra);
  }

  /** An error answered before the body is read: if a body was declared, the connection
   * closes, because its unread rest must be neither read nor parsed as a next request. */
  refuse(x: Exchange, name: ErrorName, rl: RateLimitState, extra?: readonly string[]): void {
    x.close ||= declaresBody(x.req);
    this.error(x, name, rl, extra);
  }

  /** An error whose body is made for this request (the 429's wait, a JSON error's position);
   * `x.reason` must be set by the caller. */
  errorWith(x: Exchange, body: ErrorBody, rl: RateLimitState): void {
    this.send(x, body.status, this.sets.json, JSON.stringify(body), rl);
  }

  /** `errorWith`, answered before the body is read (see `refuse`). */
  refuseWith(x: Exchange, body: ErrorBody, rl: RateLimitState): void {
    x.close ||= declaresBody(x.req);
    this.errorWith(x, body, rl);
  }

  /** The same headers and body as `error`, written straight to a socket node:http no longer
   * manages, which then closes in stages. */
  raw(socket: Socket, name: RawErrorName, rl: RateLimitState, id: string): void {
    if (!socket.writable) return;
    const status = ERRORS[name].status;
    const body = ERROR_JSON[name];
    const headers = withRateLimit(this.sets.json, rl, this.policy, status, [
      'Content-Length',
      String(body.length),
      'X-Request-Id',
      id,
      'Connection',
      'close',
    ]);
    let head = `HTTP/1.1 ${status} ${STATUS_TEXT[name]}\r\n`;
    for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
    socket.write(`${head}\r\n${body}`);
    closeInStages(socket);
  }
}
