/**
 * The metrics listener against clients that pipeline and never read (security review T3), on
 * the server as its own process with METRICS_PORT: the S1 bounds of the public listener hold
 * on it too (lib/server/metrics-listener.ts). Loopback only.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { procStats, sleep } from '../helpers/hardening-kit.ts';
import { readFileSync } from 'node:fs';
import { startServer } from '../helpers/server.ts';

/** The process's CPU time so far, in seconds (/proc/<pid>/stat utime + stime, 100 ticks a second). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const CONNECTIONS = 4;
const REQUESTS = 1_000;
const STALL_MS = 20_000;

interface Stalled {
  socket: Socket;
  /** What arrived, once the client reads. */
  received: () => string;
}

/** A connection that writes REQUESTS pipelined GET /metrics at once and reads nothing. */
function stalled(port: number): Stalled {
  let text = '';
  const socket = connect({ host: '127.0.0.1', port });
  socket.pause();
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  socket.on('connect', () => socket.write('GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n'.repeat(REQUESTS)));
  return { socket, received: () => text };
}

describe('T3: the metrics listener and clients that never read', () => {
  it(`T3: ${CONNECTIONS} connections x ${REQUESTS} pipelined GET /metrics, unread for 20 s, get far fewer than ${REQUESTS} replies, and RSS returns to its baseline`, async (t) => {
    const server = await startServer({ env: { METRICS_PORT: '0' } });
    try {
      const port = Number(new URL(server.metricsUrl!).port);
      // A few scrapes first, so the baseline includes a rendered exposition.
      for (let i = 0; i < 5; i++) await fetch(server.metricsUrl!).then((r) => r.text());
      await sleep(500);
      const baseline = procStats(server.pid).rssKb;
      const cpuBefore = cpuSeconds(server.pid);
      const clients = Array.from({ length: CONNECTIONS }, () => stalled(port));
      let peak = baseline;
      for (let waited = 0; waited < STALL_MS; waited += 1_000) {
        await sleep(1_000);
        peak = Math.max(peak, procStats(server.pid).rssKb);
      }
      const held = procStats(server.pid).rssKb;
      const cpu = cpuSeconds(server.pid) - cpuBefore;
      // Now read whatever the server still has for each connection.
      for (const c of clients) c.socket.resume();
      await sleep(2_000);
      const replies = clients.map((c) => c.received().split('HTTP/1.1 200 ').length - 1);
      for (const c of clients) c.socket.destroy();
      t.diagnostic(
        `replies per connection ${replies.join(', ')}; RSS baseline ${Math.round(baseline / 1024)} MB, peak +${Math.round((peak - baseline) / 1024)} MB, after 20 s +${Math.round((held - baseline) / 1024)} MB; server CPU ${cpu.toFixed(2)} s`,
      );
      for (const n of replies) assert.ok(n <= REQUESTS / 10, `${n} replies on one connection`);
      assert.ok(held - baseline < 16 * 1024, `RSS +${Math.round((held - baseline) / 1024)} MB after 20 s`);
    } finally {
      await server.stop();
    }
  });
});
