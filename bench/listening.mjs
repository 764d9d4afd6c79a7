// What every benchmark server does around its requests (bench/bare-server.mjs,
// bench/lean-server.mjs, bench/fastify-peer.mjs): print the one listening line server.ts prints,
// with the URL the runner reads (bench/procs.ts), and stop cleanly on SIGTERM/SIGINT.

/** Writes `{"time","level":"info","msg":"listening on URL","url"}` for a bound address. */
export function printListening({ address, port, family }) {
  const url = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
  process.stdout.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: `listening on ${url}`, url })}\n`,
  );
}

/** On SIGTERM or SIGINT: `stop()` (which closes the server), then exit 0. */
export function exitOnSignals(stop) {
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => {
      stop().then(() => process.exit(0));
    });
  }
}

/** A node:http `server` on PORT and HOST (127.0.0.1), its line printed; on a signal,
 * `beforeClose()` and then every connection closed. */
export function serve(server, beforeClose = () => {}) {
  server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
    printListening(server.address());
  });
  exitOnSignals(() => {
    beforeClose();
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    return closed;
  });
}
