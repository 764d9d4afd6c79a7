/**
 * The protections that rely on Node internals (lib/http/node-internals.ts), in process over
 * real loopback sockets, so that they run on every Node line `npm test` runs on (security
 * review T6): F5 (reading stops at an early reply's close), F6 (that close goes in stages, so
 * a client still sending gets its reply), S1 (the parse stops at the first request past the
 * cap). The same attacks against the server as its own process are
 * tests/e2e/security-edge.integration.ts and tests/e2e/stalled-readers.integration.ts; the
 * start-up refusals are tests/server/node-internals.integration.ts.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { LIMITS } from '../../lib/http/limits.ts';
import { checkNodeInternals, HOOKS, internalsRefusal } from '../../lib/http/node-internals.ts';
import { withReplyCap } from '../../lib/http/outstanding-replies.ts';
import { Logger } from '../../lib/log/logger.ts';
import { startInProcess } from '../helpers/in-process.ts';
import { removeNodeHook } from '../helpers/remove-node-hook.mjs';
import { randomApiKey, type RunningServer } from '../helpers/server.ts';

const MB = 2 ** 20;

interface Pushed {
  /** Body bytes the client's kernel took. */
  pushed: number;
  /** Everything the server sent. */
  received: string;
  /** Whether the server's FIN arrived. */
  ended: boolean;
  /** Whether the connection was reset before the client had read a reply. */
  reset: boolean;
}

/**
 * Sends `head`, then a body as fast as the server takes it, up to `cap` bytes. Ends once the
 * server has answered and ended its side and has taken nothing for 200 ms (the staged close
 * holds the socket 2 s longer), or once the connection is gone, or at `cap`.
 */
function pushBody(port: number, head: string, cap: number): Promise<Pushed> {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const state = { received: '', ended: false, reset: false, done: false };
    let idle: NodeJS.Timeout | undefined;
    const finish = (): void => {
      if (state.done) return;
      state.done = true;
      clearTimeout(idle);
      resolve({ pushed: Math.max(0, socket.bytesWritten - head.length), ...state });
      socket.destroy();
    };
    const waitIdle = (): void => {
      if (!state.ended) return;
      clearTimeout(idle);
      idle = setTimeout(finish, 200);
    };
    const pump = (): void => {
      waitIdle();
      while (!state.done && socket.bytesWritten < cap) {
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (socket.bytesWritten >= cap) finish();
    };
    socket.on('data', (data: Buffer) => {
      state.received += data.toString('latin1');
    });
    socket.on('end', () => {
      state.ended = true;
      waitIdle();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (state.received === '') state.reset = true;
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') throw error;
      finish();
    });
    socket.on('close', finish);
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
  });
}

/**
 * Sends `head`, then a body, reading nothing (the client's kernel keeps what arrives) until the
 * server takes no more for 300 ms or the connection fails, then reads what the server sent.
 * A plain close with body bytes unread makes the server's kernel send a reset, which throws
 * away the reply waiting unread at the client; the staged close (F6) does not.
 */
function pushThenRead(port: number, head: string, cap: number): Promise<{ received: string; reset: boolean }> {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  return new Promise((resolve) => {
    const state = { received: '', reset: false, reading: false, done: false };
    // With `onread`, pause() stops the reading in the kernel's terms, not only the stream's.
    const socket = connect({
      port,
      host: '127.0.0.1',
      allowHalfOpen: true,
      onread: {
        buffer: Buffer.alloc(64 * 1024),
        callback: (n: number, buffer: Uint8Array): boolean => {
          state.received += Buffer.from(buffer.buffer, buffer.byteOffset, n).toString('latin1');
          return true;
        },
      },
    });
    socket.pause();
    let stall: NodeJS.Timeout | undefined;
    const finish = (): void => {
      if (state.done) return;
      state.done = true;
      clearTimeout(stall);
      resolve({ received: state.received, reset: state.reset });
      socket.destroy();
    };
    const read = (): void => {
      if (state.reading) return;
      state.reading = true;
      clearTimeout(stall);
      socket.resume();
      setTimeout(finish, 300);
    };
    const pump = (): void => {
      clearTimeout(stall);
      stall = setTimeout(read, 300);
      while (!state.reading && socket.bytesWritten < cap) {
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
      read();
    };
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') state.reset = true;
      read();
    });
    socket.on('end', finish);
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
  });
}

const statusesIn = (text: string): number[] => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

describe('T6: the Node internals on this line', () => {
  it('T6: the start-up self-check finds every hook, within a fraction of a second', async () => {
    const started = performance.now();
    assert.equal(await checkNodeInternals(), null);
    assert.ok(performance.now() - started < 1_000);
  });

  for (const hook of Object.values(HOOKS)) {
    it(`T6: the self-check names ${hook} when it is taken away in this process, and finds it again once it is back`, async () => {
      const restore = await removeNodeHook(hook);
      try {
        assert.equal(await checkNodeInternals(), hook);
      } finally {
        restore();
      }
      assert.equal(await checkNodeInternals(), null);
    });
  }

  it('T6: a refusal is one line naming the hook', () => {
    const line = internalsRefusal(HOOKS.readStop, 'v99.0.0');
    assert.match(line, /^cannot start: Node\.js v99\.0\.0 no longer provides socket\._handle\.readStop /);
    assert.doesNotMatch(line, /\n/);
  });
});

describe('F5, F6: an early reply closes its connection in stages (in process)', () => {
  let server: RunningServer;
  before(async () => {
    server = await startInProcess({ apiKey: randomApiKey() });
  });
  after(async () => {
    await server.stop();
  });

  it('F5: more than 64 header fields get 431 and a close, and the body behind them is not read', async () => {
    const fillers = Array.from({ length: 70 }, (_, i) => `X-Filler-${i}: ${i}\r\n`).join('');
    const head = `POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n${fillers}Content-Length: 10000000000\r\n\r\n`;
    const got = await pushBody(server.port, head, 64 * MB);
    assert.deepEqual(statusesIn(got.received), [431]);
    assert.match(got.received, /\r\nConnection: close\r\n/);
    assert.ok(got.ended, 'the server ended the connection');
    // What the kernel buffers take (a few MB on loopback), not what the server reads.
    assert.ok(got.pushed < 16 * MB, `${(got.pushed / MB).toFixed(1)} MB of body taken after the 431`);
  });

  it('F6: a client still sending its body, reading only once the server stops taking it, gets the early reply whole', async () => {
    const head =
      'POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n';
    const got = await pushThenRead(server.port, head, 64 * MB);
    assert.deepEqual(statusesIn(got.received), [401], `reset: ${got.reset}`);
    assert.match(got.received, /\r\nConnection: close\r\n/);
    assert.ok(got.received.endsWith('"status":401}'), 'nothing after the reply');
  });
});

describe('S1: the parse stops at the first request past the cap (in process)', () => {
  it('S1: a read of 1,500 pipelined GETs becomes at most cap + 1 requests', async () => {
    const logger = new Logger('silent');
    const server: Server = createServer(
      withReplyCap((_req, res) => {
        res.end('ok');
      }, logger),
    );
    let parsed = 0;
    server.on('request', () => parsed++);
    const closed = new Promise((resolve) => server.once('connection', (s: Socket) => s.once('close', resolve)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' });
    socket.pause();
    socket.on('error', () => undefined);
    socket.on('connect', () => socket.write('GET / HTTP/1.1\r\nHost: t\r\n\r\n'.repeat(1_500)));
    await closed;
    // The rest of the read is parsed (or not) synchronously, before the close is seen.
    socket.destroy();
    server.close();
    assert.ok(parsed <= LIMITS.maxOutstandingReplies + 1, `${parsed} requests parsed`);
  });
});
