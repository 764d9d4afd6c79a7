/**
 * Plain HTTP sent to the TLS port (issue 41): the server answers it as nginx does, a 400 in
 * plain text saying the port speaks HTTPS, then closes, instead of closing without a word. Over
 * real loopback sockets against the service started in-process with the fixture pair.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { fixturePair } from '../helpers/certificates.ts';
import { startInProcess } from '../helpers/in-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-plain-on-tls-'));
const pair = fixturePair(dir, 'ec', 'ec');

/** Sends `text` on a plain TCP connection and resolves with everything read until the server closes. */
function exchange(port: number, text: string): Promise<{ reply: string; error: string | null }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let reply = '';
    let error: string | null = null;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => resolve({ reply, error }));
  });
}

describe('plain HTTP on the TLS port', () => {
  let server: Awaited<ReturnType<typeof startInProcess>>;
  let port: number;
  before(async () => {
    server = await startInProcess({ env: { TLS_CERT_FILE: pair.cert, TLS_KEY_FILE: pair.key } });
    port = Number(new URL(server.url).port);
    assert.match(server.url, /^https:/);
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const method of ['GET', 'POST', 'HEAD', 'PUT']) {
    it(`${method}: a 400 saying the port speaks HTTPS, then the connection closes`, async () => {
      const body = method === 'POST' || method === 'PUT' ? '{"mode":"password"}' : '';
      const head = `${method} /generate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\n\r\n`;
      const { reply, error } = await exchange(port, head + body);
      assert.equal(error, null);
      const [status, ...rest] = reply.split('\r\n');
      assert.equal(status, 'HTTP/1.1 400 Bad Request');
      const headers = rest.slice(0, rest.indexOf(''));
      assert.ok(headers.includes('Connection: close'), headers.join(' | '));
      assert.ok(headers.includes('Content-Type: application/json; charset=utf-8'), headers.join(' | '));
      const json = reply.slice(reply.indexOf('\r\n\r\n') + 4);
      assert.ok(headers.includes(`Content-Length: ${Buffer.byteLength(json)}`));
      assert.deepEqual(JSON.parse(json), { error: 'this port speaks HTTPS: use https://, not http://', status: 400 });
    });
  }

  it('anything else that is not TLS is closed without a reply, as before', async () => {
    const { reply } = await exchange(port, 'HELLO\r\n\r\n');
    assert.equal(reply, '');
  });

  it('TLS clients are served as before', async () => {
    const status = await new Promise<string>((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      });
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('close', () => resolve(text.split('\r\n')[0]));
      socket.on('error', reject);
    });
    assert.equal(status, 'HTTP/1.1 200 OK');
  });
});
