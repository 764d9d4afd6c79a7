/**
 * U2 (docs/security.md, connections and memory): a few addresses holding every connection slot
 * with silent connections, reopened as soon as the server cuts them, against the server as its
 * own process over loopback.
 *
 * Eight attacker addresses, each in a /24 of its own (127.1.0.1 to 127.8.0.1: the server groups
 * IPv4 clients by /24 when it picks whom to make room at), keep up to 64 connections each that
 * never send a byte, and open a new one the moment one closes; 8 x 64 is more than the default
 * MAX_CONNECTIONS (500), and far more than 200. Once the server holds MAX_CONNECTIONS, an
 * innocent client on another address (127.9.0.1) asks GET /health on a fresh connection every
 * 20 ms for 10 s: at least 90 % of its requests must be answered. Before the change the full
 * process refused every new connection at accept, and the attackers took each slot back as it
 * came free: the review's innocent client got 1.6 to 2.1 % answered.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { parseExposition, sample } from '../helpers/exposition.ts';
import { sleep } from '../helpers/hardening-kit.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

const ATTACKERS = Array.from({ length: 8 }, (_, i) => `127.${i + 1}.0.1`);
const PER_ATTACKER = 64;
const INNOCENT = '127.9.0.1';
const INNOCENT_MS = 10_000;
const INNOCENT_PAUSE_MS = 20;
/** A request not answered within this counts as not answered (only bounds a failure). */
const ANSWER_TIMEOUT_MS = 3_000;
const SHARE = 0.9;

/** Keeps `PER_ATTACKER` silent connections open from each attacker address, reopening each at
 * once when it closes, until stopped. */
function silentFlood(port: number): { stop(): void; opened: () => number } {
  let running = true;
  let opened = 0;
  const sockets = new Set<Socket>();
  const open = (from: string): void => {
    if (!running) return;
    const socket = connect({ host: '127.0.0.1', port, localAddress: from });
    opened++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    socket.once('close', () => {
      sockets.delete(socket);
      setImmediate(() => open(from));
    });
  };
  for (const from of ATTACKERS) for (let i = 0; i < PER_ATTACKER; i++) open(from);
  return {
    stop() {
      running = false;
      for (const s of sockets) s.destroy();
    },
    opened: () => opened,
  };
}

/** GET /health on a fresh connection from `from`: true if a 200 came back. */
function askHealth(port: number, from: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from });
    let got = '';
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), ANSWER_TIMEOUT_MS);
    socket.on('error', () => done(false));
    socket.once('connect', () => socket.write('GET /health HTTP/1.1\r\nHost: lo\r\nConnection: close\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => {
      got += chunk.toString('latin1');
      if (got.includes('\r\n\r\n')) done(got.startsWith('HTTP/1.1 200 '));
    });
    socket.once('close', () => done(false));
  });
}

async function metricsOf(server: RunningServer): Promise<ReturnType<typeof parseExposition>> {
  return parseExposition(await (await fetch(server.metricsUrl!)).text());
}

/** Waits until the server holds `total` connections (the attack has filled it). */
async function filled(server: RunningServer, total: number): Promise<number> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const open = sample(await metricsOf(server), 'credential_generator_open_connections') ?? 0;
    if (open >= total || performance.now() > deadline) return open;
    await sleep(200);
  }
}

async function run(tc: TestContext, total: number, env: Record<string, string | undefined>): Promise<void> {
  const server = await startServer({
    logLevel: 'warn',
    env: { METRICS_PORT: '0', MAX_CONNECTIONS_PER_ADDRESS: undefined, ...env },
  });
  const flood = silentFlood(server.port);
  try {
    const open = await filled(server, total);
    assert.ok(open >= total, `the attack filled ${open} of ${total} slots`);
    // Past the first round of header timeouts, so the attackers are reopening as they are cut.
    await sleep(6_000);
    let asked = 0;
    let answered = 0;
    const until = performance.now() + INNOCENT_MS;
    while (performance.now() < until) {
      asked++;
      if (await askHealth(server.port, INNOCENT)) answered++;
      await sleep(INNOCENT_PAUSE_MS);
    }
    const families = await metricsOf(server);
    const figures = {
      refusedTotal: sample(families, 'credential_generator_connections_refused_total', { cap: 'total' }),
      refusedPerAddress: sample(families, 'credential_generator_connections_refused_total', { cap: 'per_address' }),
      evicted: sample(families, 'credential_generator_connections_evicted_total'),
      open: sample(families, 'credential_generator_open_connections'),
    };
    const share = answered / asked;
    tc.diagnostic(
      `MAX_CONNECTIONS ${total}: innocent ${answered} of ${asked} answered (${(100 * share).toFixed(1)} %); attacker connections opened ${flood.opened()}; ${JSON.stringify(figures)}`,
    );
    assert.ok(share >= SHARE, `the innocent client got ${answered} of ${asked} requests answered`);
  } finally {
    flood.stop();
    assert.equal((await server.stop()).code, 0);
  }
}

describe('U2: a few addresses holding every connection slot', () => {
  it('U2: 8 addresses x 64 silent connections, reopened at once, with the default caps: an innocent client gets at least 90 % of its requests answered over 10 s', (tc) =>
    run(tc, 500, { MAX_CONNECTIONS: undefined }));

  it('U2: the same with MAX_CONNECTIONS 200', (tc) => run(tc, 200, { MAX_CONNECTIONS: '200' }));
});
