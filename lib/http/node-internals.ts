/**
 * The one boundary between this service and Node's internals (security review T6): every use
 * of an undocumented property or behaviour of node:net and node:http is a function here, and
 * nowhere else in lib/. Each says which Node behaviour it relies on and which protection needs
 * it. None of them is covered by Node's semver promise, so a Node release may rename one and
 * the protection would go with it, silently: `checkNodeInternals` proves at start, over a
 * loopback connection, that each still exists and still works, and server.ts refuses to start
 * naming the first that does not (fail closed). tests/http/node-internals.test.ts exercises
 * the protections on every Node line CI runs, and tests/server/node-internals.integration.ts
 * removes each hook in a child process and sees the start refused.
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, isIPv6, Server as NetServer, Socket, type AddressInfo } from 'node:net';

/** The hooks, by the name a refusal gives. */
export const HOOKS = {
  readStop: 'socket._handle.readStop',
  destroySoon: 'socket.destroySoon',
  httpMessage: 'socket._httpMessage',
  shouldKeepAlive: 'response.shouldKeepAlive',
  onIncoming: 'socket.parser.onIncoming',
  netClose: 'net.Server.prototype.close',
} as const;

export type Hook = (typeof HOOKS)[keyof typeof HOOKS];

type WithHandle = { _handle?: { readStop?: () => unknown } | null };

/**
 * Stops reading `socket`, for good (F5, early-close.ts). node:http feeds the socket's libuv
 * handle straight into its parser, so `socket.pause()` does not stop the reading; only the
 * handle's own readStop does. And when a reply ends its connection with the request's body
 * unread, node:http first resumes that body (lib/_http_server.js, resOnFinish: `req._dump()`,
 * then `socket.destroySoon()`); when the body had filled its buffer (the socket was paused),
 * the socket's 'resume' event, a tick later, starts the handle reading again (onSocketResume;
 * seen on Node 20: a client pushed 64 MB after the stop). So the stop is made again on every
 * 'resume' from now on, by a listener that runs after node's own. False when the handle has no
 * readStop (a destroyed socket has no handle).
 */
export function stopReading(socket: Socket): boolean {
  if (!readStop(socket)) return false;
  socket.on('resume', () => {
    readStop(socket);
  });
  return true;
}

function readStop(socket: Socket): boolean {
  const handle = (socket as Socket & WithHandle)._handle;
  if (typeof handle?.readStop !== 'function') return false;
  handle.readStop();
  return true;
}

/**
 * Has `end` run in place of the socket's `destroySoon` (F6, early-close.ts): node:http ends a
 * `Connection: close` socket by calling `socket.destroySoon()` once the reply is written
 * (lib/_http_server.js, resOnFinish), after it has resumed the unread body; replacing it on
 * that one socket puts the staged close there, and so after that resume.
 */
export function replaceDestroySoon(socket: Socket, end: (socket: Socket) => void): void {
  socket.destroySoon = function destroySoon(this: Socket): void {
    end(this);
  };
}

/**
 * The reply under way on `socket`, if any (app.ts, clientError): node:http keeps it as
 * `socket._httpMessage`, and its own default clientError handler reads it for the same
 * decision (lib/_http_server.js, socketOnError).
 */
export function pendingReply(socket: Socket): ServerResponse | null {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}

/**
 * Makes `res` the last reply of its connection (app.ts, clientError, after garbage following a
 * complete request): node:http writes `Connection: close` and ends the socket after it when
 * `shouldKeepAlive` is false at the time the head is written; node's own socketOnError sets it.
 */
export function lastReplyOfConnection(res: ServerResponse): void {
  (res as ServerResponse & { shouldKeepAlive: boolean }).shouldKeepAlive = false;
}

/**
 * Stops node's parser where it is in the current read (S1, outstanding-replies.ts).
 * Destroying the socket does not: the parser goes on through the rest of the read, making a
 * request and a response for each head. `onIncoming` is the function node:http calls with each
 * parsed head, and its return value goes back to llhttp; 2 is what node returns for an
 * upgrade, and llhttp stops there. node:http sets it again for each connection that reuses the
 * parser. False when the socket has no such parser.
 */
export function stopParsing(socket: Socket): boolean {
  const parser = (socket as Socket & { parser?: { onIncoming?: unknown } | null }).parser;
  if (typeof parser?.onIncoming !== 'function') return false;
  parser.onIncoming = stopHere;
  return true;
}

const stopHere = (): number => 2;

/**
 * Stops accepting on `server` without touching its open connections (service.ts, shutdown):
 * net.Server's close, since http.Server's own close (Node 19 and later) also closes idle
 * keep-alive connections at once and stops the timer that enforces the request timeouts.
 */
export function closeListener(server: Server, done: () => void): void {
  NetServer.prototype.close.call(server, done);
}

/** How long the self-check waits for bytes that must not be read, and for the whole check. */
const SETTLE_MS = 20;
const CHECK_TIMEOUT_MS = 5_000;

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

/** Where the self-check's server listens, and whether a client ever reached it. */
interface Loopback {
  readonly host: string;
  readonly port: number;
  connected: boolean;
}

/** A client connection to the check's server that keeps its side open after the server's FIN. */
function client(at: Loopback): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: at.port, host: at.host, allowHalfOpen: true });
    socket.once('connect', () => {
      at.connected = true;
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Resolves with what `socket` received once it holds `pattern` (or once it closes). */
function received(socket: Socket, pattern: RegExp): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const check = (): void => {
      if (pattern.test(text)) resolve(text);
    };
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      check();
    });
    const gone = (): void => {
      resolve(text);
    };
    socket.once('end', gone);
    socket.once('close', gone);
  });
}

type Route = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Two pipelined requests in one write: the first finds its reply as `socket._httpMessage` and
 * stops the parser, so the second never becomes a request.
 */
async function checkParsing(at: Loopback, routes: Map<string, Route>): Promise<Hook | null> {
  // An object, not locals: the route sets them in a callback, which the type checker's narrowing misses.
  const seen = { requests: 0, replyFound: false, stopped: false };
  routes.set('/pipelined', (req, res) => {
    seen.requests++;
    if (seen.requests > 1) return;
    seen.replyFound = pendingReply(req.socket) === res;
    seen.stopped = stopParsing(req.socket);
    req.socket.destroy();
  });
  const socket = await client(at);
  socket.on('error', noop);
  const closed = new Promise((resolve) => {
    socket.once('end', resolve);
    socket.once('close', resolve);
  });
  socket.write('GET /pipelined HTTP/1.1\r\nHost: check\r\n\r\n'.repeat(2));
  await closed;
  await settle();
  if (!seen.replyFound) return HOOKS.httpMessage;
  return seen.stopped && seen.requests === 1 ? null : HOOKS.onIncoming;
}

/**
 * An early reply (its request's body unread) made the connection's last: it says
 * `Connection: close`, node:http ends the socket through the replaced destroySoon, and there
 * the reading stops: bytes the client sends after it are not read.
 */
async function checkEarlyClose(at: Loopback, routes: Map<string, Route>): Promise<Hook | null> {
  const seen: { replaced: boolean; stopped: boolean; readAtStop: number; serverSide: Socket | null } = {
    replaced: false,
    stopped: false,
    readAtStop: -1,
    serverSide: null,
  };
  const socket = await client(at);
  socket.on('error', noop);
  routes.set('/last', (req, res) => {
    seen.serverSide = req.socket;
    // Node's own sockets still have it (a Node that dropped it ends sockets some other way).
    if (typeof Socket.prototype.destroySoon === 'function') {
      replaceDestroySoon(req.socket, (s) => {
        seen.replaced = true;
        s.end();
        seen.stopped = stopReading(s);
        seen.readAtStop = s.bytesRead;
        // Sent after the stop (same process, so before anything else runs): must stay unread.
        socket.write(Buffer.alloc(4096, 'x'));
      });
    }
    lastReplyOfConnection(res);
    res.end('ok');
  });
  const reply = received(socket, /\r\n\r\nok/);
  // A body declared and partly sent, more than the request's buffer holds: node:http pauses
  // the socket for it, and after the reply resumes it (as for an early reply to an attacker).
  socket.write('POST /last HTTP/1.1\r\nHost: check\r\nContent-Length: 1000000\r\n\r\n');
  socket.write(Buffer.alloc(64 * 1024, 'x'));
  const text = await reply;
  await settle();
  const read = seen.serverSide?.bytesRead ?? -1;
  seen.serverSide?.destroy();
  socket.destroy();
  if (!/\r\nConnection: close\r\n/i.test(text)) return HOOKS.shouldKeepAlive;
  if (!seen.replaced) return HOOKS.destroySoon;
  return seen.stopped && read === seen.readAtStop ? null : HOOKS.readStop;
}

/** An idle keep-alive connection outlives the listener's close. */
async function checkListenerClose(server: Server, at: Loopback): Promise<Hook | null> {
  const socket = await client(at);
  socket.on('error', noop);
  const seen = { ended: false };
  const ended = (): void => {
    seen.ended = true;
  };
  socket.once('end', ended);
  socket.once('close', ended);
  const reply = received(socket, /\r\n\r\nok/);
  socket.write('GET /idle HTTP/1.1\r\nHost: check\r\n\r\n');
  await reply;
  const closed = new Promise<void>((resolve) => {
    closeListener(server, resolve);
  });
  await settle();
  const kept = !seen.ended;
  socket.destroy();
  server.closeAllConnections();
  await closed;
  return kept ? null : HOOKS.netClose;
}

/** Why the self-check could not run at all: not a missing hook, but no loopback to run on. */
export interface LoopbackProblem {
  readonly loopback: string;
}

/** The loopback addresses to try, the one of HOST's family first (an IPv6 HOST: ::1). */
export function loopbacksFor(host: string | undefined): readonly string[] {
  return host !== undefined && isIPv6(host) ? ['::1', '127.0.0.1'] : ['127.0.0.1', '::1'];
}

/** `server` listening on the first of `hosts` it can bind (port 0), or why none would do. */
async function listenOnLoopback(server: Server, hosts: readonly string[]): Promise<string | LoopbackProblem> {
  const failures: string[] = [];
  for (const host of hosts) {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      const failed = (e: NodeJS.ErrnoException): void => {
        resolve(e);
      };
      server.once('error', failed);
      server.listen(0, host, () => {
        server.off('error', failed);
        resolve(null);
      });
    });
    if (error === null) return host;
    failures.push(`${host}: ${error.code ?? error.message}`);
  }
  return { loopback: `cannot listen on loopback (${failures.join('; ')})` };
}

/**
 * Proves each hook above still exists and works, on one loopback server and three connections
 * (a few milliseconds). Resolves with the first hook that does not, or null; or, when it
 * cannot run (no loopback address to listen on, or none of its connections gets through:
 * a firewall filtering loopback), with that problem, which is no fault of Node's. It listens
 * on the loopback address of HOST's family (`host`), else the other one.
 */
export async function checkNodeInternals(
  host?: string,
  timeoutMs: number = CHECK_TIMEOUT_MS,
): Promise<Hook | LoopbackProblem | null> {
  const routes = new Map<string, Route>();
  routes.set('/idle', (_req, res) => {
    res.end('ok');
  });
  const server = createServer((req, res) => {
    routes.get(req.url ?? '')?.(req, res);
  });
  server.on('clientError', (_error, socket: Socket) => {
    socket.destroy();
  });
  const listening = await listenOnLoopback(server, loopbacksFor(host));
  if (typeof listening !== 'string') return listening;
  const at: Loopback = { host: listening, port: (server.address() as AddressInfo).port, connected: false };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      resolve('timeout');
    }, timeoutMs);
  });
  // The hook whose check is under way: the one named if the check does not finish.
  let step: Hook = HOOKS.onIncoming;
  const run = async (): Promise<Hook | null> => {
    const parsing = await checkParsing(at, routes);
    if (parsing !== null) return parsing;
    step = HOOKS.readStop;
    const early = await checkEarlyClose(at, routes);
    if (early !== null) return early;
    step = HOOKS.netClose;
    return checkListenerClose(server, at);
  };
  const unreachable = (code: string): LoopbackProblem => ({
    loopback: `cannot connect to itself on ${at.host} port ${String(at.port)} (${code}): a firewall may be filtering loopback`,
  });
  const outcome = await Promise.race([
    run().catch((error: unknown) => unreachable((error as NodeJS.ErrnoException).code ?? 'error')),
    timeout,
  ]);
  clearTimeout(timer);
  server.closeAllConnections();
  if (server.listening) server.close();
  if (outcome !== 'timeout') return outcome;
  return at.connected ? step : unreachable(`no connection within ${String(timeoutMs)} ms`);
}

/** The one line a refused start prints. */
export function internalsRefusal(problem: Hook | LoopbackProblem, version: string = process.version): string {
  if (typeof problem !== 'string')
    return `cannot start: the start-up self-check of the Node internals ${problem.loopback}; it needs a loopback address (127.0.0.1 or ::1) to listen on and connect to`;
  return `cannot start: Node.js ${version} no longer provides ${problem} as this server relies on it (lib/http/node-internals.ts); use a Node.js release within package.json's engines`;
}

function noop(): void {}
