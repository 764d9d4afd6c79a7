/**
 * A host without some loopback address, as a preload (`NODE_OPTIONS=--import=...`): listening
 * on an address named in NO_LOOPBACK (comma-separated, e.g. `127.0.0.1` or `127.0.0.1,::1`)
 * fails with EADDRNOTAVAIL, as it does where that address is not configured.
 * tests/server/self-check-loopback.test.ts starts the server under it.
 */
import net from 'node:net';

const missing = new Set((process.env.NO_LOOPBACK ?? '').split(',').filter(Boolean));
const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function (...args) {
  const host = typeof args[0] === 'object' && args[0] !== null ? args[0].host : args[1];
  if (typeof host === 'string' && missing.has(host)) {
    const error = Object.assign(new Error(`listen EADDRNOTAVAIL: address not available ${host}`), {
      code: 'EADDRNOTAVAIL',
      errno: -99,
      syscall: 'listen',
      address: host,
    });
    process.nextTick(() => this.emit('error', error));
    return this;
  }
  return listen.apply(this, args);
};
