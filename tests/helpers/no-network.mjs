/**
 * Preload (`node --import`) for a tool that must work offline, such as a client generator run
 * on a local file: every way a Node process opens a connection or resolves a name throws, so a
 * tool that tries to fetch anything (a remote `$ref`, an update check, telemetry) fails loudly
 * instead of reaching out, and says so on stderr even if it catches the error. Every TCP, TLS
 * and HTTP client (fetch included) connects through net.Socket; names go through dns.
 */
import dns from 'node:dns';
import net from 'node:net';

const refuse = (what) =>
  function refused() {
    const message = `no-network: ${what} refused (this process must not use the network)`;
    // Said on stderr as well, so an attempt the tool catches and swallows is still seen.
    process.stderr.write(`${message}\n`);
    throw new Error(message);
  };

net.Socket.prototype.connect = refuse('net.Socket.connect');
for (const name of ['lookup', 'resolve', 'resolve4', 'resolve6', 'resolveAny']) {
  dns[name] = refuse(`dns.${name}`);
  dns.promises[name] = refuse(`dns.promises.${name}`);
}
globalThis.fetch = refuse('fetch');
