/**
 * The shutdown's last log line (issue 32): how many requests the drain finished and how long it
 * took, after the "shutting down" of server.ts, so an operator reading a stop's log knows
 * whether anything was cut.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { startInProcess } from '../helpers/in-process.ts';
import { randomApiKey } from '../helpers/server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('shutdown summary', () => {
  it('ends the log with "shutdown complete": the requests drained, none cut, and the time', async () => {
    const key = randomApiKey();
    const server = await startInProcess({ apiKey: key });
    const sockets = [0, 1].map(() => connect({ host: '127.0.0.1', port: server.port }));
    await Promise.all(sockets.map((s) => new Promise((resolve) => s.once('connect', resolve))));
    const body = '{"mode":"password"}';
    // Two requests in flight when the stop begins: each has sent its head and half its body.
    for (const s of sockets) {
      s.write(
        `POST /generate HTTP/1.1\r\nHost: t\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
    }
    await sleep(100);
    const replies = sockets.map(
      (s) => new Promise<string>((resolve) => s.once('data', (d: Buffer) => resolve(d.toString('latin1')))),
    );
    const stopped = server.stop();
    await sleep(200); // the drain has begun and waits for them
    for (const s of sockets) s.write(body.slice(5));
    for (const reply of await Promise.all(replies)) assert.match(reply, /^HTTP\/1\.1 200 /);
    assert.equal((await stopped).code, 0);
    for (const s of sockets) s.destroy();
    const lines = server.output().trimEnd().split('\n');
    const last = JSON.parse(lines.at(-1)!) as { msg: string; drained: number; cut: number; ms: number };
    assert.equal(last.msg, 'shutdown complete');
    assert.equal(last.drained, 2, 'the two requests in flight');
    assert.equal(last.cut, 0);
    assert.ok(last.ms >= 150 && last.ms < 10_000, `${last.ms} ms`);
  });
});
