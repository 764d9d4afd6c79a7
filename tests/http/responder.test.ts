/**
 * Large replies go out in chunks, each once the reply drained (lib/http/responder.ts, security
 * finding T1), and a reply whose connection closed meanwhile writes nothing more.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createServer, get, request, type ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { exchangeOf, Responder, WRITE_CHUNK, writeWithBackpressure } from '../../lib/http/responder.ts';
import { Logger } from '../../lib/log/logger.ts';
import type { RateLimitState } from '../../lib/rate-limit/token-bucket.ts';

/** A reply that takes nothing until told to drain. */
class StalledReply extends EventEmitter {
  destroyed = false;
  readonly written: Buffer[] = [];
  ended: Buffer | null = null;
  write(chunk: Buffer): boolean {
    this.written.push(chunk);
    return false;
  }
  end(chunk: Buffer): void {
    this.ended = chunk;
  }
}

describe('writeWithBackpressure', () => {
  it('writes one chunk, then the next only after drain, and ends with the last', () => {
    const body = randomBytes(2 * WRITE_CHUNK + 100);
    const res = new StalledReply();
    writeWithBackpressure(res as unknown as ServerResponse, body);
    assert.equal(res.written.length, 1);
    assert.equal(res.written[0].length, WRITE_CHUNK);
    assert.equal(res.written[0].buffer, body.buffer, 'a view of the body, not a copy');
    res.emit('drain');
    assert.equal(res.written.length, 2);
    assert.equal(res.ended, null);
    res.emit('drain');
    assert.deepEqual(Buffer.concat([...res.written, res.ended!]), body);
  });

  it('stops when the reply is destroyed while it waits', () => {
    const res = new StalledReply();
    writeWithBackpressure(res as unknown as ServerResponse, randomBytes(3 * WRITE_CHUNK));
    res.destroyed = true;
    res.emit('drain');
    assert.equal(res.written.length, 1);
    assert.equal(res.ended, null);
  });

  it('delivers the whole body over a real socket', async () => {
    const body = randomBytes(40 * WRITE_CHUNK + 7);
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': String(body.length) });
      writeWithBackpressure(res, body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const got = await new Promise<Buffer>((resolve, reject) => {
        get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks)));
        }).on('error', reject);
      });
      assert.deepEqual(got, body);
    } finally {
      server.close();
    }
  });
});

describe('Responder.send', () => {
  const state: RateLimitState = { allowed: true, limit: 20, remaining: 20, resetSeconds: 0, retryAfterSeconds: 0 };

  /** What `send` hands the reply for a large body: write calls before end, per server kind. */
  async function writesOf(tls: boolean, method: string): Promise<{ writes: number; bytes: number }> {
    const body = randomBytes(3 * WRITE_CHUNK);
    const reply = new Responder({ tls, limit: 20, logger: new Logger('silent'), draining: () => false });
    let writes = 0;
    const server = createServer((req, res) => {
      const write = res.write.bind(res);
      res.write = ((chunk: Buffer) => {
        writes++;
        return write(chunk);
      }) as typeof res.write;
      reply.send(exchangeOf(req, res, '127.0.0.1', 'id'), 200, reply.sets.json, body, state);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const bytes = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/', method, agent: false }, (res) => {
          let n = 0;
          res.on('data', (c: Buffer) => (n += c.length));
          res.on('end', () => resolve(n));
        });
        req.on('error', reject);
        req.end();
      });
      return { writes, bytes };
    } finally {
      server.close();
    }
  }

  it('writes a large body in chunks over TLS, whole over plain TCP, and not at all for HEAD', async () => {
    assert.deepEqual(await writesOf(true, 'GET'), { writes: 2, bytes: 3 * WRITE_CHUNK });
    assert.deepEqual(await writesOf(false, 'GET'), { writes: 0, bytes: 3 * WRITE_CHUNK });
    assert.deepEqual(await writesOf(true, 'HEAD'), { writes: 0, bytes: 0 });
  });
});
