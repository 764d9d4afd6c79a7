/**
 * Reads a request body with a hard byte limit (raw-body's shape: settle once, clean up).
 * The caller has already refused a Content-Length over the limit; this counts what actually
 * arrives, so a chunked body, or one whose Content-Length understates it, is cut at the first
 * byte past the limit: what was kept is dropped, the stream paused and later chunks ignored,
 * and the caller answers 413 with `Connection: close`, which stops the reading (early-close.ts).
 * A client that goes away mid-body settles as 'aborted': nothing to answer, nothing thrown.
 *
 * The limit counts decoded body bytes, which leaves out the framing of a chunked body: a
 * client may send one body byte per chunk behind a chunk extension of up to 16 KB (Node's cap
 * per chunk), so a limit on body bytes alone leaves the framing unbounded (docs/security.md,
 * The body). So the bytes read on the socket since the body was wanted are bounded too, framing
 * included: at most 4 times the limit, plus one socket read (libuv reads 64 KB at a time, and the
 * read that ends a body may carry the next pipelined requests). Past that it is 'too-large' too.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export type BodyResult =
  { readonly kind: 'ok'; readonly body: Buffer } | { readonly kind: 'too-large' } | { readonly kind: 'aborted' };

const TOO_LARGE: BodyResult = { kind: 'too-large' };
const ABORTED: BodyResult = { kind: 'aborted' };

/** libuv's largest socket read. */
const READ_BYTES = 65_536;

/** The most bytes the socket may read for a body of at most `limit` bytes, framing included. */
export function framedLimit(limit: number): number {
  return 4 * limit + READ_BYTES;
}

/** Calls `done` exactly once (a callback, not a Promise: this runs for every POST). */
export function readBody(req: IncomingMessage, limit: number, done: (result: BodyResult) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  // What the socket has read so far (the head, and whatever of the body came with it) is not
  // counted: the bound is on what is read from now on.
  // (A request always has its socket; a stand-in stream in the tests may not.)
  const socket = (req.socket as Socket | undefined) ?? null;
  const readAtStart = socket?.bytesRead ?? 0;
  const framed = framedLimit(limit);
  // A flag rather than removing the listeners: cheaper per request, and the listeners die with
  // the request. No 'error' listener: node emits a request's error (its client gone mid-body)
  // only when one is listening, and 'close' follows either way.
  let settled = false;
  const settle = (result: BodyResult): void => {
    if (settled) return;
    settled = true;
    done(result);
  };
  req.on('data', (chunk: Buffer): void => {
    if (settled) return;
    size += chunk.length;
    if (size > limit || (socket !== null && socket.bytesRead - readAtStart > framed)) {
      chunks.length = 0;
      req.pause();
      settle(TOO_LARGE);
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    settle({ kind: 'ok', body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) });
  });
  // 'close' before 'end' means the client went away (or the request timed out).
  req.on('close', () => {
    settle(ABORTED);
  });
}
