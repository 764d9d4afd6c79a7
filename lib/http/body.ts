/**
 * Reads a request body with a hard byte limit (raw-body's shape: settle once, clean up).
 * The caller has already refused a Content-Length over the limit; this counts what actually
 * arrives, so a chunked body, or one whose Content-Length understates it, is cut at the first
 * byte past the limit: what was kept is dropped, the stream paused and later chunks ignored,
 * and the caller answers 413 with `Connection: close`, which stops the reading (early-close.ts).
 * A client that goes away mid-body settles as 'aborted': nothing to answer, nothing thrown.
 * @module
 */
import type { IncomingMessage } from 'node:http';

export type BodyResult =
  { readonly kind: 'ok'; readonly body: Buffer } | { readonly kind: 'too-large' } | { readonly kind: 'aborted' };

const TOO_LARGE: BodyResult = { kind: 'too-large' };
const ABORTED: BodyResult = { kind: 'aborted' };

/** Calls `done` exactly once (a callback, not a Promise: this runs for every POST). */
export function readBody(req: IncomingMessage, limit: number, done: (result: BodyResult) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  // A flag rather than removing the listeners: cheaper per request, and the listeners die with
  // the request. The 'error' listener must stay in any case (a late ECONNRESET would throw).
  let settled = false;
  const settle = (result: BodyResult): void => {
    if (settled) return;
    settled = true;
    done(result);
  };
  req.on('data', (chunk: Buffer): void => {
    if (settled) return;
    size += chunk.length;
    if (size > limit) {
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
  req.on('error', noop);
}

function noop(): void {}
