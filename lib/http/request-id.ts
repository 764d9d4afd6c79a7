/**
 * Request ids (docs/api.md, Request ids): every reply carries `X-Request-Id`, and the request's
 * log line the same id, so one request can be followed from a client's report or a proxy's
 * log to this server's line.
 *
 * A fresh id is 96 random bits in base64url (16 characters), enough that ids never repeat in
 * practice. An id that arrives with the request is kept only when the operator says proxies
 * stand in front (TRUST_PROXY_HOPS > 0: the proxy wrote it) and it is 1 to 128 characters of
 * `A-Z a-z 0-9 . _ -`, so it can go into a header and a log line as it is; otherwise anyone
 * could choose the id of their own log line, or put text there that reads as something else.
 * @module
 */
import type { IncomingMessage } from 'node:http';

const ID_BYTES = 12;
/** Random bytes for this many ids are drawn at once: one call into the CSPRNG per 256 requests. */
const POOL_IDS = 256;
/** Base64url of 12 bytes is 16 characters with no padding, so the pool's text is its ids in a
 * row: encoded once per refill, each id is a slice of it (docs/benchmark.md, "The request path
 * against the lean limit"). */
const ID_CHARS = 16;
const pool = new Uint8Array(ID_BYTES * POOL_IDS);
const poolBytes = Buffer.from(pool.buffer, pool.byteOffset, pool.byteLength);
let poolText = '';
let next = POOL_IDS;

/** What an incoming id must look like to be kept. */
export const INCOMING_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A fresh id: 96 bits from the CSPRNG, 16 base64url characters. */
export function newRequestId(): string {
  if (next === POOL_IDS) {
    globalThis.crypto.getRandomValues(pool);
    poolText = poolBytes.toString('base64url');
    next = 0;
  }
  const start = next++ * ID_CHARS;
  return poolText.slice(start, start + ID_CHARS);
}

/** The request's id: the one a trusted proxy sent, if it is well formed, else a fresh one.
 * Sent twice, node joins the values with ", ", which the pattern refuses. */
export function requestIdOf(req: IncomingMessage, trustProxyHops: number): string {
  if (trustProxyHops > 0) {
    const incoming = req.headers['x-request-id'];
    if (typeof incoming === 'string' && INCOMING_REQUEST_ID.test(incoming)) return incoming;
  }
  return newRequestId();
}
