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
import type { RateLimitState } from '../rate-limit/token-bucket.ts';
import { maskedAddress } from './client-key.ts';
import { closeAfterReply, closeInStages } from './early-close.ts';
import { ERROR_JSON, ERRORS, STATUS_TEXT, type ErrorName, type RawErrorName } from './errors.ts';
import { headerSets, policyOf, withRateLimit, type HeaderSets } from './headers.ts';
import type { Logger } from '../log/logger.ts';
import { declaresBody } from './request-checks.ts';

/** One request in flight: what a reply and its log line need. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly started: number;
  readonly client: string;
  route: string;
  keyId: string | null;
  /** The connection closes after the reply (its unread rest must not be parsed as a request). */
  close: boolean;
}

export function exchangeOf(req: IncomingMessage, res: ServerResponse, client: string): Exchange {
  return { req, res, started: performance.now(), client, route: 'unmatched', keyId: null, close: false };
}

export interface ResponderOptions {
  readonly tls: boolean;
  readonly limit: number;
  readonly logger: Logger;
  /** Set on shutdown: every reply then says `Connection: close`. */
  readonly draining: () => boolean;
}

export class Responder {
  readonly sets: HeaderSets;
  private readonly policy: string;
  private readonly logger: Logger;
  private readonly logRequests: boolean;
  /** Health probes come every few seconds from every supervisor and load balancer: at the
   * default level they would bury the requests that matter, so a 200 from /health is logged
   * only at debug. */
  private readonly logHealth: boolean;
  private readonly draining: () => boolean;

  constructor(options: ResponderOptions) {
    this.sets = headerSets(options.tls);
    this.policy = policyOf(options.limit);
    this.logger = options.logger;
    this.logRequests = options.logger.infoEnabled;
    this.logHealth = options.logger.debugEnabled;
    this.draining = options.draining;
  }

  log(x: Pick<Exchange, 'req' | 'route' | 'started' | 'keyId' | 'client'>, status: number): void {
    if (!this.logRequests || (status === 200 && x.route === '/health' && !this.logHealth)) return;
    this.logger.request({
      method: x.req.method as string,
      route: x.route,
      status,
      ms: Math.round((performance.now() - x.started) * 100) / 100,
      key: x.keyId,
      client: maskedAddress(x.client),
    });
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
    const headers = withRateLimit(base, rl, this.policy, status, extra);
    headers.push('Content-Length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.length));
    if (x.close || this.draining()) headers.push('Connection', 'close');
    if (x.close) closeAfterReply(x.req.socket);
    res.writeHead(status, headers);
    res.end(body); // node drops the body itself for HEAD
    this.log(x, status);
  }

  error(x: Exchange, name: ErrorName, rl: RateLimitState, extra?: readonly string[]): void {
    this.send(x, ERRORS[name].status, this.sets.json, ERROR_JSON[name], rl, extra);
  }

  /** An error answered before the body is read: if a body was declared, the connection
   * closes, because its unread rest must be neither read nor parsed as a next request. */
  refuse(x: Exchange, name: ErrorName, rl: RateLimitState, extra?: readonly string[]): void {
    x.close ||= declaresBody(x.req);
    this.error(x, name, rl, extra);
  }

  /** The same headers and body as `error`, written straight to a socket node:http no longer
   * manages, which then closes in stages. */
  raw(socket: Socket, name: RawErrorName, rl: RateLimitState): void {
    if (!socket.writable) return;
    const status = ERRORS[name].status;
    const body = ERROR_JSON[name];
    const headers = withRateLimit(this.sets.json, rl, this.policy, status, [
      'Content-Length',
      String(body.length),
      'Connection',
      'close',
    ]);
    let head = `HTTP/1.1 ${status} ${STATUS_TEXT[name]}\r\n`;
    for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
    socket.write(`${head}\r\n${body}`);
    closeInStages(socket);
  }
}
