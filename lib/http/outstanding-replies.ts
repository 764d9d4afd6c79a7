/**
 * The replies a connection may have outstanding, and for how long none of them may be taken
 * (docs/security.md, Connections and memory).
 *
 * node:http answers pipelined requests in order, so a reply waits in memory until every reply
 * before it is written, and a client that never reads keeps all of them. Node stops reading
 * such a connection, but only between reads, and one read of 64 KB holds 1,500 requests: each
 * was answered and held (about 5 MB a connection, until the client went away). Node's socket
 * inactivity timer does not end such a connection either: it lets a timeout pass whenever the
 * write queue changed since the last one, and the kernel moving a few bytes is enough.
 *
 * So each connection's requests are counted from their arrival to their reply's close:
 * - the first request past LIMITS.maxOutstandingReplies closes the connection at once, and the
 *   rest of that read is not parsed (node-internals.ts, stopParsing);
 * - while any are outstanding, a reply must close every LIMITS.socketIdleTimeout or the
 *   connection is closed. A request is read within the request timeout (10 s) and answered
 *   within milliseconds, and the kernel takes megabytes of replies before it stops taking more,
 *   so only a client that leaves that much unread, and then reads less than one reply in 15 s,
 *   ever meets this deadline.
 * A client that reads its replies never gets near either (browsers do not pipeline, curl no
 * longer does).
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log/logger.ts';
import { LIMITS } from './limits.ts';
import { stopParsing } from './node-internals.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A connection's requests waiting for their replies, and the deadline for the next reply. */
interface Pending {
  readonly replies: Set<ServerResponse>;
  /** performance.now() when the deadline last started over: a reply closed, or the first of
   * the outstanding ones arrived while none were. */
  since: number;
  /** Armed while replies are outstanding, and left armed when they are all taken, until it
   * next fires: one timer a connection, not one a request (docs/benchmark.md, "The request
   * path against the lean limit"). When it fires it closes the connection only if replies are
   * outstanding and none closed for the whole deadline; else it waits for the rest of it. */
  deadline: NodeJS.Timeout | null;
}

/** Per connection (nothing is written on Node's socket). */
const pendingBySocket = new WeakMap<Socket, Pending>();

/** A server's requests in flight, and those that finished once its drain began (answered, or
 * their client gone): what the shutdown's last line reports. Kept here, by the one 'close'
 * listener a request already carries, rather than by a second listener of its own. */
export interface RequestCounts {
  inFlight: number;
  drained: number;
  draining: boolean;
}

export function requestCounts(): RequestCounts {
  return { inFlight: 0, drained: 0, draining: false };
}

/** The cap and the deadline (LIMITS; tests shorten the deadline). */
export interface ReplyLimits {
  readonly maxOutstandingReplies: number;
  readonly socketIdleTimeout: number;
}

function pendingOf(socket: Socket): Pending {
  let pending = pendingBySocket.get(socket);
  if (pending === undefined) {
    const created: Pending = { replies: new Set(), since: 0, deadline: null };
    pendingBySocket.set(socket, created);
    socket.once('close', () => {
      stop(created);
    });
    pending = created;
  }
  return pending;
}

/** The deadline's timer, due `ms` from now. */
function arm(pending: Pending, socket: Socket, logger: Logger, limits: ReplyLimits, ms: number): void {
  pending.deadline = setTimeout(() => {
    pending.deadline = null;
    if (pending.replies.size === 0) return; // all taken: the next request arms it again
    const waited = performance.now() - pending.since;
    if (waited < limits.socketIdleTimeout) {
      arm(pending, socket, logger, limits, limits.socketIdleTimeout - waited);
      return;
    }
    logger.debug('connection closed: no reply taken', {
      outstanding: pending.replies.size,
      ms: limits.socketIdleTimeout,
    });
    socket.destroy();
  }, ms);
  pending.deadline.unref();
}

function stop(pending: Pending): void {
  if (pending.deadline !== null) clearTimeout(pending.deadline);
  pending.deadline = null;
}

/** A reply closed: the deadline starts over. */
function settled(pending: Pending, res: ServerResponse, counts: RequestCounts): void {
  pending.replies.delete(res);
  pending.since = performance.now();
  counts.inFlight--;
  if (counts.draining) counts.drained++;
}

/** Whether `req` may be answered; closes its connection instead when it is one too many. */
function admit(
  req: IncomingMessage,
  res: ServerResponse,
  logger: Logger,
  limits: ReplyLimits,
  counts: RequestCounts,
): boolean {
  const socket = req.socket;
  // Requests parsed from the same read after the connection was closed: nothing to answer.
  if (socket.destroyed) return false;
  const pending = pendingOf(socket);
  if (pending.replies.size === 0) {
    pending.since = performance.now();
    if (pending.deadline === null) arm(pending, socket, logger, limits, limits.socketIdleTimeout);
  }
  if (pending.replies.size >= limits.maxOutstandingReplies) {
    logger.debug('connection closed: too many replies outstanding', { outstanding: pending.replies.size });
    // Destroying the socket does not stop node's parser: it would go on through the rest of the
    // read, making a request and a response for each head (one read of small pipelined heads
    // can hold over a thousand), which the close then aborts one by one, each with an error and
    // its stack: seconds of CPU and a hundred MB of garbage for 100 such connections. Without
    // the hook (another Node, refused at start) the connection still closes; only the parse
    // runs on.
    stopParsing(socket);
    socket.destroy();
    return false;
  }
  pending.replies.add(res);
  counts.inFlight++;
  // A response emits 'close' exactly once, so a plain listener does (once() would wrap it).
  res.on('close', () => {
    settled(pending, res, counts);
  });
  return true;
}

/** `handler`, called only for the requests within their connection's cap, each counted in
 * `counts` until its reply closes. All handlers of one server count against the same cap. */
export function withReplyCap(
  handler: Handler,
  logger: Logger,
  counts: RequestCounts = requestCounts(),
  limits: ReplyLimits = LIMITS,
): Handler {
  return (req, res) => {
    if (admit(req, res, logger, limits, counts)) handler(req, res);
  };
}

/**
 * Whether the service is still answering a request of `socket`: a reply of it neither ended
 * nor waiting for the client to take what was written (a large file over TLS goes out a chunk
 * per drain). A connection that has sent no complete request, sits idle between requests, or
 * leaves its replies unread is not (lib/http/connection-caps.ts may close it to make room).
 * Only requests that came through withReplyCap are seen.
 */
export function isAnswering(socket: Socket): boolean {
  const pending = pendingBySocket.get(socket);
  if (pending === undefined) return false;
  for (const res of pending.replies) if (!res.writableEnded && !res.writableNeedDrain) return true;
  return false;
}
