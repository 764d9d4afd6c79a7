/**
 * S1's mechanism in process (lib/http/outstanding-replies.ts, lib/server/service.ts): the cap
 * on the replies a connection may have outstanding, the deadline for the next reply to be
 * taken, and the socket inactivity timeout the service sets. The same attack against the
 * server as its own process, its RSS and fds, over HTTP and TLS, is
 * tests/e2e/stalled-readers.integration.ts.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { createApp } from '../../lib/http/app.ts';
import { LIMITS } from '../../lib/http/limits.ts';
import { withReplyCap, type ReplyLimits } from '../../lib/http/outstanding-replies.ts';
import { Logger } from '../../lib/log/logger.ts';
import { LocalLimits } from '../../lib/rate-limit/client-limits.ts';
import { RateLimiter } from '../../lib/rate-limit/token-bucket.ts';
import { createService } from '../../lib/server/service.ts';

const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

const logged: string[] = [];
const logger = new Logger('debug', (l) => logged.push(l));
const saidSo = (msg: string): boolean => {
  logger.flush();
  return logged.some((l) => l.includes(`"msg":"${msg}"`));
};

interface Harness {
  port: number;
  handled: () => number;
  /** Resolves with the server's side of the next connection once it closes. */
  nextClose: () => Promise<number>;
}

/** A node:http server whose handler (behind the cap) answers `body` to every request. */
async function harness(body: Buffer, limits?: ReplyLimits): Promise<Harness> {
  let handled = 0;
  const handler = (_req: IncomingMessage, res: ServerResponse): void => {
    handled++;
    res.writeHead(200, { 'content-length': body.length });
    res.end(body);
  };
  const server = createServer(withReplyCap(handler, logger, undefined, limits));
  servers.push(server);
  const closes: Promise<number>[] = [];
  server.on('connection', (socket: Socket) => {
    const opened = performance.now();
    closes.push(new Promise((resolve) => socket.once('close', () => resolve(performance.now() - opened))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let taken = 0;
  return {
    port: (server.address() as AddressInfo).port,
    handled: () => handled,
    nextClose: async () => {
      while (closes.length <= taken) await new Promise((r) => setTimeout(r, 5));
      return closes[taken++];
    },
  };
}

/** A connection that writes `requests` pipelined GETs at once and never reads. */
function stalled(port: number, requests: number): Socket {
  const socket = connect({ host: '127.0.0.1', port });
  socket.pause();
  socket.on('error', () => undefined);
  socket.on('connect', () => socket.write('GET / HTTP/1.1\r\nHost: t\r\n\r\n'.repeat(requests)));
  return socket;
}

describe('S1: replies outstanding on one connection', () => {
  it('S1: the first request past the cap closes the connection, and the rest of the read is not parsed', async () => {
    const h = await harness(Buffer.from('ok'));
    const socket = stalled(h.port, 1_500);
    await h.nextClose();
    socket.destroy();
    assert.equal(h.handled(), LIMITS.maxOutstandingReplies);
    assert.ok(saidSo('connection closed: too many replies outstanding'));
  });

  it('S1: a client that reads is answered however many requests it pipelines within the cap, and far more in turn', async () => {
    const h = await harness(Buffer.from('ok'));
    const replies = await new Promise<number>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: h.port });
      let text = '';
      let sent = 0;
      const batch = (): void => {
        sent++;
        socket.write('GET / HTTP/1.1\r\nHost: t\r\n\r\n'.repeat(LIMITS.maxOutstandingReplies));
      };
      socket.on('connect', batch);
      socket.on('data', (c: Buffer) => {
        text += c.toString('latin1');
        const got = text.split('HTTP/1.1 200').length - 1;
        if (got < sent * LIMITS.maxOutstandingReplies) return;
        if (sent < 4) batch();
        else {
          socket.destroy();
          resolve(got);
        }
      });
    });
    assert.equal(replies, 4 * LIMITS.maxOutstandingReplies);
  });

  it('S1: a connection whose replies nobody takes is closed at the deadline, not before', async () => {
    // 8 replies of 1 MB: more than the kernel's socket buffers take from a client that reads
    // nothing (Linux: 4 MB sent, 128 KB received by default).
    const deadline = 300;
    const h = await harness(Buffer.alloc(1 << 20, 'x'), { maxOutstandingReplies: 32, socketIdleTimeout: deadline });
    const socket = stalled(h.port, 8);
    const lasted = await h.nextClose();
    socket.destroy();
    assert.equal(h.handled(), 8);
    // The deadline runs from the last reply the kernel took, after the connection opened.
    assert.ok(lasted >= deadline - 10, `closed after ${Math.round(lasted)} ms`);
    assert.ok(saidSo('connection closed: no reply taken'));
  });

  it('S1: the service sets the inactivity timeout on every socket, above the request timeout and its check', () => {
    const limiter = new RateLimiter({ perMinute: 20, sweepIntervalMs: 0 });
    const app = createApp({
      limits: new LocalLimits(limiter),
      keys: { configured: false, verify: () => null, check: () => ({ kind: 'unknown' }) },
      logger,
      assets: [],
      trustProxyHops: 0,
      tls: false,
    });
    const server = createService({ app, logger, tls: null });
    assert.equal(server.timeout, LIMITS.socketIdleTimeout);
    assert.ok(LIMITS.socketIdleTimeout > LIMITS.requestTimeout + LIMITS.connectionsCheckingInterval + 3_500);
    limiter.close();
  });

  it('S1 (issue 40): requests in turn on one connection share one deadline timer, and a late reply still counts from the last one taken', async () => {
    // 200 requests, each sent once the previous reply is read: before, every request armed a
    // timer of its own (docs/benchmark.md, "The request path against the lean limit").
    const deadline = 1_000;
    const h = await harness(Buffer.from('ok'), { maxOutstandingReplies: 32, socketIdleTimeout: deadline });
    const armed: number[] = [];
    const original = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: () => void, ms?: number) => {
      armed.push(ms ?? 0);
      return original(fn, ms);
    }) as typeof setTimeout;
    try {
      const started = performance.now();
      const socket = connect({ host: '127.0.0.1', port: h.port });
      await new Promise<void>((resolve) => {
        let answered = 0;
        socket.on('connect', () => socket.write('GET / HTTP/1.1\r\nHost: t\r\n\r\n'));
        socket.on('data', () => {
          answered++;
          if (answered === 200) resolve();
          else socket.write('GET / HTTP/1.1\r\nHost: t\r\n\r\n');
        });
      });
      assert.equal(h.handled(), 200);
      // One timer, armed again only when it comes due while replies are outstanding.
      const dues = Math.ceil((performance.now() - started) / deadline);
      assert.ok(armed.length <= 1 + dues, `${armed.length} timers armed for 200 requests in ${dues} deadlines`);
      // Idle past the deadline with nothing outstanding: the connection stays open and serves.
      await new Promise((r) => original(r, deadline + 300));
      assert.ok(!socket.destroyed);
      const more = await new Promise<string>((resolve) => {
        socket.once('data', (c: Buffer) => resolve(c.toString('latin1')));
        socket.write('GET / HTTP/1.1\r\nHost: t\r\n\r\n');
      });
      assert.match(more, /^HTTP\/1\.1 200/);
      socket.destroy();
    } finally {
      globalThis.setTimeout = original;
    }
  });
});
