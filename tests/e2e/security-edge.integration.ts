/**
 * The HTTP edge findings of the security review (docs/security-review-http.md), each
 * reproduced over raw sockets against the real server process:
 * - F5: framing headers hidden behind more than 64 header fields;
 * - F6: an early reply while the declared body is still arriving;
 * - F7: a request with `Upgrade`;
 * - F8: failed authentication spending the bucket of keyed clients at the same address.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { checkErrorShape, parseResponse, type RawResponse } from '../helpers/hardening-kit.ts';
import { randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';
import { Ledger, post, request } from '../helpers/http.ts';

const KEY = randomApiKey();
const ledger = new Ledger();
ledger.add(KEY);
let server: RunningServer;

before(async () => {
  // A stepped clock that is never stepped: the limiter's buckets do not refill while the F8
  // tests count them down (at 20 per minute a token comes back every 3 s, and a busy machine
  // can take that long for twenty requests).
  server = await startServer({ apiKey: KEY, steppedClock: true });
});

after(async () => {
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
  ledger.assertAbsentFrom(server.output());
});

/** Every response on one connection, in order, until the server closes it. */
function responsesIn(bytes: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = bytes;
  for (;;) {
    const parsed = rest.length === 0 ? null : parseResponse(rest, false);
    if (parsed === null) return out;
    out.push(parsed.response);
    rest = rest.subarray(parsed.used);
  }
}

interface Conversation {
  /** Everything the server sent. */
  received: Buffer;
  /** The server closed (or reset) the connection before the client gave up. */
  closed: boolean;
  /** Body bytes the kernel accepted from the client before the connection ended. */
  bodyBytesAccepted: number;
}

interface ConverseOptions {
  /** Zeros to push after `head`, in 1 MiB writes, each after the previous one drained. */
  bodyCap?: number;
  /** After the first bytes of a reply, keep the body arriving: one byte every second. */
  trickle?: boolean;
  /** How long to wait for the server to close. */
  waitMs: number;
  localAddress: string;
}

/** Writes `head` (and a body, see the options) until the server ends the connection or
 * `waitMs` passes, and reports what came back. */
function converse(
  port: number,
  head: string,
  { bodyCap = 0, trickle = false, waitMs, localAddress }: ConverseOptions,
): Promise<Conversation> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    const chunks: Buffer[] = [];
    let closed = false;
    let done = false;
    const chunk = Buffer.alloc(1 << 20);
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(trickling);
      const bodyBytesAccepted = Math.max(0, socket.bytesWritten - Buffer.byteLength(head));
      socket.destroy();
      resolve({ received: Buffer.concat(chunks), closed, bodyBytesAccepted });
    };
    const timer = setTimeout(finish, waitMs);
    let trickling: NodeJS.Timeout | undefined;
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (trickle) trickling ??= setInterval(() => socket.writable && socket.write('x'), 1_000);
    });
    socket.on('error', () => {}); // EPIPE / ECONNRESET once the server has closed: expected
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('connect', () => {
      socket.write(head);
      let queued = 0;
      const pump = (): void => {
        while (!socket.destroyed && queued < bodyCap) {
          queued += chunk.length;
          if (!socket.write(chunk)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      if (bodyCap > 0) pump();
    });
  });
}

const fillers = (n: number): string => Array.from({ length: n }, (_, i) => `X-Filler-${i}: ${i}\r\n`).join('');

describe('security review, HTTP edge', { concurrency: true }, () => {
  it('F5: more than 64 header fields get 431 and a close, so a body framed behind them is never read', async () => {
    // The review's reproduction: Host, 70 filler fields, then a 10 GB Content-Length, no key.
    const head = `POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n${fillers(70)}Content-Length: 10000000000\r\n\r\n`;
    const CAP = 256 << 20;
    const got = await converse(server.port, head, { bodyCap: CAP, waitMs: 20_000, localAddress: '127.0.5.1' });
    const replies = responsesIn(got.received);
    assert.ok(got.closed, `the server kept the connection and read ${got.bodyBytesAccepted} body bytes`);
    assert.ok(got.bodyBytesAccepted < CAP / 4, `${got.bodyBytesAccepted} body bytes accepted before the close`);
    assert.equal(replies.length, 1, `one reply, got ${replies.map((r) => r.status).join(', ')}`);
    const [reply] = replies as [RawResponse];
    assert.equal(reply.status, 431);
    assert.equal(reply.headers.connection, 'close');
    assert.deepEqual(JSON.parse(reply.body), { error: 'request header fields too large', status: 431 });
    checkErrorShape(reply, 'F5');

    // The limit is exact: 64 fields are read as usual, 65 are refused.
    for (const [fields, status] of [
      [64, 401],
      [65, 431],
    ] as const) {
      const h = `POST /generate HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n${fillers(fields - 2)}\r\n{}`;
      const r = responsesIn((await converse(server.port, h, { waitMs: 5_000, localAddress: '127.0.5.2' })).received);
      assert.equal(r[0]?.status, status, `${fields} fields`);
    }
  });

  it('F6: an early reply while the declared body is still arriving closes the connection, and no 408 follows it', async () => {
    // The review's reproduction: Content-Length 100, 7 bytes sent, no key, then the body keeps
    // coming a byte a second (so the keep-alive timeout never fires). Before the fix the 401
    // kept the connection and the request timeout sent a second, unrequested 408 at 10 s.
    const head =
      'POST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"mode"';
    const got = await converse(server.port, head, { trickle: true, waitMs: 15_000, localAddress: '127.0.6.1' });
    const replies = responsesIn(got.received);
    assert.deepEqual(
      replies.map((r) => r.status),
      [401],
      'exactly one reply on the socket',
    );
    assert.equal(replies[0].headers.connection, 'close');
    assert.ok(got.closed, 'the server ended the connection after the reply');
    assert.equal(
      got.received.length,
      Buffer.byteLength(replies[0].raw) + 4 + Buffer.byteLength(replies[0].body),
      'nothing after the reply',
    );

    // Every kind of early reply does the same: 429, 400 (content type), 404, 405.
    const wrongType = `POST /generate HTTP/1.1\r\nHost: t\r\nX-Api-Key: ${KEY}\r\nContent-Type: text/plain\r\nContent-Length: 50\r\n\r\nab`;
    const notFound = 'POST /nope HTTP/1.1\r\nHost: t\r\nContent-Length: 50\r\n\r\nab';
    const notAllowed = 'PUT /health HTTP/1.1\r\nHost: t\r\nContent-Length: 50\r\n\r\nab';
    for (const [bytes, status] of [
      [wrongType, 400],
      [notFound, 404],
      [notAllowed, 405],
    ] as const) {
      const c = await converse(server.port, bytes, { trickle: true, waitMs: 15_000, localAddress: '127.0.6.2' });
      const r = responsesIn(c.received);
      assert.deepEqual(
        r.map((x) => x.status),
        [status],
      );
      assert.equal(r[0].headers.connection, 'close', `${status}: Connection: close`);
      assert.ok(c.closed, `${status}: closed`);
    }

    // A request without a body keeps its connection: the next request on it is answered.
    const twice = 'GET /health HTTP/1.1\r\nHost: t\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n';
    const kept = responsesIn(
      (await converse(server.port, twice, { waitMs: 5_000, localAddress: '127.0.6.3' })).received,
    );
    assert.deepEqual(
      kept.map((r) => r.status),
      [200, 200],
    );
    assert.equal(kept[0].headers.connection, 'keep-alive');
  });

  it('F7: a request with Upgrade gets 400 and a close, and the next bytes are never parsed', async () => {
    // The review's reproduction: an Upgrade request with a POST right behind it, whose body is
    // itself a request. Before the fix the POST's head was dropped and its body answered.
    const smuggled = 'GET /openapi.json HTTP/1.1\r\nHost: t\r\n\r\n';
    const first = `GET /health HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nPOST /generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${smuggled.length}\r\n\r\n`;
    const received = await new Promise<{ text: Buffer; closed: boolean }>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: server.port, localAddress: '127.0.7.1' });
      const chunks: Buffer[] = [];
      let closed = false;
      let sentSecond = false;
      const timer = setTimeout(() => {
        socket.destroy();
        resolve({ text: Buffer.concat(chunks), closed });
      }, 8_000);
      socket.on('data', (c: Buffer) => {
        chunks.push(c);
        // The second packet goes out once the first has been answered, as the review did.
        if (!sentSecond && responsesIn(Buffer.concat(chunks)).length >= 1) {
          sentSecond = true;
          if (!socket.destroyed) socket.write(smuggled);
        }
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        closed = true;
        clearTimeout(timer);
        resolve({ text: Buffer.concat(chunks), closed });
      });
      socket.on('connect', () => socket.write(first));
    });
    const replies = responsesIn(received.text);
    assert.deepEqual(
      replies.map((r) => r.status),
      [400],
      'one reply, and the smuggled request is never answered',
    );
    const [reply] = replies as [RawResponse];
    assert.deepEqual(JSON.parse(reply.body), { error: 'protocol upgrade not supported', status: 400 });
    assert.equal(reply.headers.connection, 'close');
    assert.equal(reply.headers['cache-control'], 'no-store');
    assert.match(reply.headers['x-ratelimit-remaining'] ?? '', /^\d+$/);
    checkErrorShape(reply, 'F7');
    assert.ok(received.closed, 'the server closed the connection');

    // Upgrade without `Connection: upgrade`, with a body, and CONNECT: the same answer.
    const variants = [
      'GET /health HTTP/1.1\r\nHost: t\r\nUpgrade: h2c\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\n\r\n',
      `POST /generate HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nX-Api-Key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`,
      'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\n\r\n',
    ];
    for (const bytes of variants) {
      const c = await converse(server.port, bytes, { waitMs: 5_000, localAddress: '127.0.7.2' });
      const r = responsesIn(c.received);
      assert.deepEqual(
        r.map((x) => x.status),
        [400],
        bytes.split('\r\n')[0],
      );
      assert.equal(r[0].headers.connection, 'close');
      assert.ok(c.closed);
    }
  });

  it("F8: failed authentication has its own bucket, so keyless requests cannot spend a keyed client's", async () => {
    const from = { localAddress: '127.0.8.1' };
    const remaining = (r: { headers: Record<string, unknown> }): number => Number(r.headers['x-ratelimit-remaining']);
    // 20 keyless POSTs (what any web page can make a visitor's browser send) use up their own bucket.
    const keyless: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await post(server.url, null, { mode: 'password' }, from);
      assert.equal(r.status, 401);
      keyless.push(remaining(r));
    }
    assert.deepEqual(
      keyless,
      Array.from({ length: 20 }, (_, i) => 19 - i),
      'keyless POSTs count down their own bucket',
    );
    // The keyed client at the same address still has all of its bucket.
    const keyed = await post(server.url, KEY, { mode: 'password' }, from);
    assert.equal(keyed.status, 200);
    ledger.addGenerated(keyed.json);
    assert.equal(remaining(keyed), 19, 'the keyed bucket was full');
    // The brute-force brake holds: the 21st keyless POST is refused.
    const limited = await post(server.url, null, { mode: 'password' }, from);
    assert.equal(limited.status, 429);
    assert.equal(remaining(limited), 0);
    // GETs show the keyed bucket.
    assert.equal(remaining(await request(server.url, '/health', from)), 19);
  });

  it('F8: wrong keys have a bucket of their own that stops key checks when empty, whatever key is sent', async () => {
    const from = { localAddress: '127.0.8.2' };
    const wrong = `cgk_AAAAAAAA_${'A'.repeat(38)}`;
    for (let i = 0; i < 20; i++) assert.equal((await post(server.url, wrong, { mode: 'password' }, from)).status, 401);
    // 20 failed guesses: guessing stops for this address, and a 429 says nothing about the key.
    const guess = await post(server.url, wrong, { mode: 'password' }, from);
    assert.equal(guess.status, 429);
    const right = await post(server.url, KEY, { mode: 'password' }, from);
    assert.equal(right.status, 429, 'no key is checked while the failed-key bucket is empty');
    assert.deepEqual(right.json, guess.json);
    // Keyless POSTs and the keyed bucket are untouched by the guesses.
    assert.equal((await post(server.url, null, { mode: 'password' }, from)).status, 401);
    assert.equal(Number((await request(server.url, '/health', from)).headers['x-ratelimit-remaining']), 20);
  });
});
