/**
 * readBody over a stand-in request stream: the limit is exact and settles once.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { readBody as readBodyCallback, type BodyResult } from '../../lib/http/body.ts';
import { startInProcess } from '../helpers/in-process.ts';
import { randomApiKey } from '../helpers/server.ts';

const readBody = (req: IncomingMessage, limit: number) =>
  new Promise<BodyResult>((resolve) => readBodyCallback(req, limit, resolve));

const fake = () => new PassThrough() as unknown as IncomingMessage & PassThrough;

describe('readBody', () => {
  it('returns the whole body up to exactly the limit, in one or many chunks', async () => {
    const one = fake();
    const p1 = readBody(one, 10);
    one.end(Buffer.from('0123456789'));
    const r1 = await p1;
    assert.equal(r1.kind, 'ok');
    assert.equal(r1.kind === 'ok' && r1.body.toString(), '0123456789');

    const many = fake();
    const p2 = readBody(many, 10);
    many.write('01234');
    many.write('56789');
    many.end();
    const r2 = await p2;
    assert.equal(r2.kind === 'ok' && r2.body.toString(), '0123456789');

    const empty = fake();
    const p3 = readBody(empty, 10);
    empty.end();
    const r3 = await p3;
    assert.equal(r3.kind === 'ok' && r3.body.length, 0);
  });

  it('stops at the first byte past the limit and stops reading', async () => {
    const req = fake();
    const p = readBody(req, 10);
    req.write('0123456789');
    req.write('X');
    assert.deepEqual(await p, { kind: 'too-large' });
    assert.equal(req.isPaused(), true);
    req.emit('data', Buffer.from('more')); // ignored once settled
    req.emit('end');
  });

  it('calls back exactly once, whatever follows', () => {
    const req = fake();
    const results: BodyResult[] = [];
    readBodyCallback(req, 4, (r) => results.push(r));
    req.emit('data', Buffer.from('12345'));
    req.emit('data', Buffer.from('6'));
    req.emit('end');
    req.emit('close');
    assert.deepEqual(results, [{ kind: 'too-large' }]);
  });

  it('settles as aborted when the stream closes before its end', async () => {
    const req = fake();
    const p = readBody(req, 10);
    req.write('01');
    req.destroy();
    assert.deepEqual(await p, { kind: 'aborted' });
  });
});

/**
 * Pushes one keyed chunked POST whose every chunk carries 1 body byte and a 16,000-byte chunk
 * extension (security review T5), with backpressure, until the server answers or closes, or
 * `cap` bytes are pushed. The bytes the client's kernel took are the bytes pushed.
 */
function pushExtensions(port: number, key: string, cap: number): Promise<{ pushed: number; reply: string }> {
  const chunk = Buffer.from(`1;x=${'e'.repeat(16_000)}\r\n{\r\n`);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      resolve({ pushed: socket.bytesWritten, reply });
      socket.destroy();
    };
    const push = (): void => {
      while (!done && socket.bytesWritten < cap) {
        if (!socket.write(chunk)) {
          socket.once('drain', push);
          return;
        }
      }
      if (!done) finish();
    };
    socket.on('data', (data: Buffer) => {
      reply += data.toString('latin1');
      if (reply.includes('\r\n\r\n')) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('connect', () => {
      socket.write(
        'POST /generate HTTP/1.1\r\nHost: t5\r\nContent-Type: application/json\r\n' +
          `X-Api-Key: ${key}\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      push();
    });
  });
}

describe('the bytes read for a body, framing included', () => {
  it('T5: a chunked body of 1-byte chunks with 16,000-byte extensions ends in a 413 within 32 MB pushed', async (t) => {
    const key = randomApiKey();
    const server = await startInProcess({ apiKey: key });
    try {
      const { pushed, reply } = await pushExtensions(server.port, key, 33 * 2 ** 20);
      t.diagnostic(`${(pushed / 2 ** 20).toFixed(1)} MB pushed`);
      assert.ok(pushed <= 32 * 2 ** 20, `${(pushed / 2 ** 20).toFixed(1)} MB pushed before the server stopped reading`);
      assert.match(reply, /^HTTP\/1\.1 413 /);
      assert.match(reply, /\r\nConnection: close\r\n/i);
    } finally {
      await server.stop();
    }
  });
});

/** Sends a keyed POST's head with `framing` and then `body`, and resets the connection (RST, so
 * the server reads ECONNRESET) 100 ms later. */
function resetMidBody(port: number, key: string, framing: string, body: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
    socket.on('connect', () => {
      socket.write(
        'POST /generate HTTP/1.1\r\nHost: reset\r\nContent-Type: application/json\r\n' +
          `X-Api-Key: ${key}\r\n${framing}\r\n\r\n${body}`,
      );
      setTimeout(() => socket.resetAndDestroy(), 100);
    });
  });
}

describe('a client gone mid-body', () => {
  it('resets before its body ends, or after a 413: the server neither throws nor stops answering', async () => {
    const key = randomApiKey();
    const server = await startInProcess({ apiKey: key });
    try {
      // A request's error reaches only its listeners, and readBody has none: an uncaught one
      // would end this process (the test runner reports it).
      await resetMidBody(server.port, key, 'Content-Length: 100', '{"mode":');
      const over = 17_000; // past the 16 KB cap in one chunk: readBody settles 'too-large' and pauses
      await resetMidBody(server.port, key, 'Transfer-Encoding: chunked', `${over.toString(16)}\r\n${' '.repeat(over)}`);
      const health = await fetch(`http://127.0.0.1:${server.port}/health`);
      assert.equal(health.status, 200);
    } finally {
      await server.stop();
    }
  });
});
