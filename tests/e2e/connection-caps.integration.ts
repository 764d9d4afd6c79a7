/**
 * T1 (docs/security.md): one client address opening 400 TLS connections, each pipelining
 * LIMITS.maxOutstandingReplies complete `GET /service-api.js` and reading nothing, against the
 * server as its own process (RSS read from /proc).
 *
 * Before the fix every connection was accepted, and each held its replies (S1 bounds a
 * connection, not how many there are): RSS +140 to +174 MB over a 94 to 100 MB baseline on
 * the development machine. Now the per-address cap (MAX_CONNECTIONS_PER_ADDRESS, 64 by
 * default) refuses the rest at accept (lib/http/connection-caps.ts): +43 to +46 MB in four runs.
 *
 * A second client, from another loopback address (127.0.0.2, which the kernel routes to the
 * server's 127.0.0.1), fetches and generates on fresh connections all the while: every one of
 * its requests must be answered with a 200.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { LIMITS } from '../../lib/http/limits.ts';
import { selfSignedPair } from '../helpers/certificates.ts';
import { procStats, sleep } from '../helpers/hardening-kit.ts';
import { steadyClient } from '../helpers/http.ts';
import { randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-conn-caps-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const KEY = randomApiKey();
const pair = selfSignedPair(dir, 'conn-caps');
const ca = readFileSync(pair.cert);
const CONNECTIONS = 400;
const ONE = 'GET /service-api.js HTTP/1.1\r\nHost: lo\r\n\r\n';
const AT_CAP = ONE.repeat(LIMITS.maxOutstandingReplies);
/** The bound on what one address may make the process hold. */
const RSS_BOUND_KB = 128 * 1_024;
/** The attacker's and the other client's source addresses (loopback only). */
const ATTACKER = '127.0.0.1';
const OTHER = '127.0.0.2';

const mb = (kb: number): number => Math.round(kb / 102.4) / 10;

/** A TLS connection from `from` that writes `bytes` and never reads; resolves once they are
 * sent or the server closed it. */
function stall(port: number, from: string, bytes: string): Promise<TLSSocket> {
  return new Promise((resolve) => {
    const socket = tlsConnect({
      socket: netConnect({ host: '127.0.0.1', port, localAddress: from }),
      host: '127.0.0.1',
      ca,
    });
    socket.pause();
    socket.on('error', () => undefined);
    socket.once('secureConnect', () => {
      socket.write(bytes, () => resolve(socket));
    });
    socket.once('close', () => resolve(socket));
  });
}

/** The other client: fetches the bundle and generates, one request at a time, until stopped. */
const otherClient = (port: number): { stop(): Promise<Record<string, number>> } =>
  steadyClient({ port, ca, localAddress: OTHER, key: KEY }, '/service-api.js', 20);

/** Replies of `/service-api.js` the server has logged since output offset `from`. */
const logged = (server: RunningServer, from: number): number =>
  server.output().slice(from).split('"route":"/service-api.js"').length - 1;

/**
 * Opens the connections, then samples the server's RSS every 100 ms until its replies stop
 * coming (no new reply logged for 2 s) and at least 3 s have passed: the peak over that time.
 */
async function attack(server: RunningServer, base: number): Promise<{ peakKb: number; replies: number }> {
  const from = server.output().length;
  const sockets: TLSSocket[] = [];
  let peakKb = base;
  const sample = setInterval(() => {
    peakKb = Math.max(peakKb, procStats(server.pid).rssKb);
  }, 100);
  try {
    // In batches of 50, as a client with a modest fd limit would: the handshakes are the slow part.
    for (let i = 0; i < CONNECTIONS; i += 50) {
      sockets.push(...(await Promise.all(Array.from({ length: 50 }, () => stall(server.port, ATTACKER, AT_CAP)))));
    }
    const started = performance.now();
    let count = logged(server, from);
    let changed = performance.now();
    // Within the S1 deadline, which would end the stalled connections and free what they hold.
    while (performance.now() - started < LIMITS.socketIdleTimeout - 3_000) {
      await sleep(100);
      const now = logged(server, from);
      if (now !== count) [count, changed] = [now, performance.now()];
      else if (performance.now() - changed > 2_000 && performance.now() - started > 3_000) break;
    }
    peakKb = Math.max(peakKb, procStats(server.pid).rssKb);
    return { peakKb, replies: count };
  } finally {
    clearInterval(sample);
    for (const s of sockets) s.destroy();
  }
}

async function run(tc: TestContext, env: Record<string, string | undefined>): Promise<void> {
  const server = await startServer({
    apiKey: KEY,
    rateLimitPerMinute: 1_000_000,
    env: { TLS_CERT_FILE: pair.cert, TLS_KEY_FILE: pair.key, ...env },
  });
  let other: { stop(): Promise<Record<string, number>> } | null = null;
  try {
    // Warm-up: JIT, TLS and the allocator at their working size for a few such connections.
    const warm = await Promise.all(Array.from({ length: 8 }, () => stall(server.port, ATTACKER, AT_CAP)));
    await sleep(1_000);
    for (const s of warm) s.destroy();
    await sleep(1_000);
    const base = procStats(server.pid).rssKb;
    other = otherClient(server.port);
    const { peakKb, replies } = await attack(server, base);
    const answered = await other.stop();
    other = null;
    tc.diagnostic(
      `baseline ${mb(base)} MB RSS; ${CONNECTIONS} TLS connections x ${LIMITS.maxOutstandingReplies} unread GET /service-api.js: peak RSS +${mb(peakKb - base)} MB, ${replies} replies made; other client ${JSON.stringify(answered)}`,
    );
    assert.ok(peakKb - base < RSS_BOUND_KB, `RSS grew by ${mb(peakKb - base)} MB`);
    assert.deepEqual(Object.keys(answered), ['200'], `the other client got ${JSON.stringify(answered)}`);
    assert.ok((answered['200'] ?? 0) >= 4, `the other client got only ${JSON.stringify(answered)}`);
  } finally {
    await other?.stop();
    assert.equal((await server.stop()).code, 0);
  }
}

describe('T1: connections of one address', () => {
  it(`T1: ${CONNECTIONS} TLS connections from one address, each with ${LIMITS.maxOutstandingReplies} unread GET /service-api.js, grow RSS by less than 128 MB, and a second address gets every request answered`, (tc) =>
    // The server's own default: the test helper lifts the cap for the other suites.
    run(tc, { MAX_CONNECTIONS: undefined, MAX_CONNECTIONS_PER_ADDRESS: undefined }));
});
