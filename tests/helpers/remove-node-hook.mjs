/**
 * Takes away one of the Node internals lib/http/node-internals.ts relies on, the way a Node
 * release could: a method that no longer does anything, a property that is gone, or a name
 * node:http no longer reads (writes made from the boundary module then go nowhere).
 * - As a preload (`node --import ./remove-node-hook.mjs server.ts`), the hook named by
 *   REMOVE_NODE_HOOK: tests/server/node-internals.integration.ts starts the server under it
 *   and expects the start refused, naming the hook.
 * - `removeNodeHook(name)` in process, with a function that puts it back:
 *   tests/http/node-internals.test.ts.
 */
import http from 'node:http';
import net from 'node:net';
import { createRequire } from 'node:module';

/** An accessor for `name` on `proto` that drops the writes node-internals.ts makes, as if
 * node read another name; every other write and read goes through. */
function ignoreBoundaryWrites(proto, name) {
  const slot = Symbol(name);
  const own = Object.getOwnPropertyDescriptor(proto, name);
  Object.defineProperty(proto, name, {
    configurable: true,
    get() {
      return this[slot];
    },
    set(value) {
      if (new Error().stack?.includes('node-internals')) return;
      this[slot] = value;
    },
  });
  return () => {
    if (own === undefined) delete proto[name];
    else Object.defineProperty(proto, name, own);
  };
}

/** The prototype that owns `name` on the libuv handle of a connected TCP socket. */
async function tcpHandleOwnerOf(name) {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = net.connect(server.address().port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let owner = socket._handle;
  while (owner !== null && !Object.prototype.hasOwnProperty.call(owner, name)) owner = Object.getPrototypeOf(owner);
  socket.destroy();
  server.close();
  return owner;
}

/** Takes the hook `name` away; resolves with a function that puts it back. */
export async function removeNodeHook(name) {
  switch (name) {
    case 'socket._handle.readStop': {
      // Still there, but stops nothing.
      const owner = await tcpHandleOwnerOf('readStop');
      const readStop = owner.readStop;
      owner.readStop = function readStop() {
        return 0;
      };
      return () => {
        owner.readStop = readStop;
      };
    }
    case 'socket.destroySoon': {
      const destroySoon = net.Socket.prototype.destroySoon;
      delete net.Socket.prototype.destroySoon;
      return () => {
        net.Socket.prototype.destroySoon = destroySoon;
      };
    }
    case 'socket._httpMessage': {
      // node:http keeps the reply under another name: reads of this one find nothing.
      const slot = Symbol('_httpMessage');
      Object.defineProperty(net.Socket.prototype, '_httpMessage', {
        configurable: true,
        get() {
          return undefined;
        },
        set(value) {
          this[slot] = value;
        },
      });
      return () => {
        delete net.Socket.prototype._httpMessage;
      };
    }
    case 'response.shouldKeepAlive':
      return ignoreBoundaryWrites(http.OutgoingMessage.prototype, 'shouldKeepAlive');
    case 'socket.parser.onIncoming': {
      const { HTTPParser, parsers } = createRequire(import.meta.url)('_http_common');
      // Parsers kept for reuse carry their own onIncoming, which would hide the accessor.
      for (const parser of parsers.list ?? []) delete parser.onIncoming;
      return ignoreBoundaryWrites(HTTPParser.prototype, 'onIncoming');
    }
    case 'net.Server.prototype.close': {
      // A close that also cuts every open connection, as http.Server's own does with idle ones.
      const close = net.Server.prototype.close;
      net.Server.prototype.close = function closeAll(...args) {
        this.closeAllConnections?.();
        return close.apply(this, args);
      };
      return () => {
        net.Server.prototype.close = close;
      };
    }
    default:
      return () => undefined;
  }
}

if (process.env.REMOVE_NODE_HOOK !== undefined) await removeNodeHook(process.env.REMOVE_NODE_HOOK);
