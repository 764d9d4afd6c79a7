/**
 * A preload (`node --import ./remove-node-hook.mjs server.ts`) that takes away one of the Node
 * internals lib/http/node-internals.ts relies on, named by REMOVE_NODE_HOOK, the way a Node
 * release could: a method that no longer does anything, a property that is gone, or a name
 * node:http no longer reads (writes made from the boundary module then go nowhere).
 * tests/server/node-internals.integration.ts starts the server under it and expects the start
 * refused, naming the hook.
 */
import http from 'node:http';
import net from 'node:net';
import { createRequire } from 'node:module';

/** An accessor for `name` on `proto` that drops the writes node-internals.ts makes, as if
 * node read another name; every other write and read goes through. */
function ignoreBoundaryWrites(proto, name) {
  const slot = Symbol(name);
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

switch (process.env.REMOVE_NODE_HOOK) {
  case 'socket._handle.readStop': {
    // Still there, but stops nothing.
    const owner = await tcpHandleOwnerOf('readStop');
    owner.readStop = function readStop() {
      return 0;
    };
    break;
  }
  case 'socket.destroySoon':
    delete net.Socket.prototype.destroySoon;
    break;
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
    break;
  }
  case 'response.shouldKeepAlive':
    ignoreBoundaryWrites(http.OutgoingMessage.prototype, 'shouldKeepAlive');
    break;
  case 'socket.parser.onIncoming': {
    const { HTTPParser } = createRequire(import.meta.url)('_http_common');
    ignoreBoundaryWrites(HTTPParser.prototype, 'onIncoming');
    break;
  }
  case 'net.Server.prototype.close': {
    // A close that also cuts every open connection, as http.Server's own does with idle ones.
    const close = net.Server.prototype.close;
    net.Server.prototype.close = function closeAll(...args) {
      this.closeAllConnections?.();
      return close.apply(this, args);
    };
    break;
  }
  default:
    break;
}
