/**
 * The server process as an operator runs it (docs/deploy.md, Operating it):
 * - GET /ready answers 200, then 503 once SIGTERM arrives, while a request in flight is still
 *   answered and the process exits 0;
 * - after 10,000 mixed requests from 40 client addresses (keys right, wrong and missing, bad
 *   bodies, marked option values, odd paths, forged request ids and X-Forwarded-For), neither
 *   /metrics nor anything the process printed holds a key, a key's digest, a generated value, a
 *   value sent in a body, a path as sent, a forged id or a client's full address; and the
 *   request counts of /metrics add up to exactly 10,000.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runKeysCli } from '../../lib/keys/key-admin.ts';
import { parseExposition, labelValues } from '../helpers/exposition.ts';
import { inLanes } from '../helpers/hardening-kit.ts';
import { Ledger, parseRaw, post, request, type RequestOptions } from '../helpers/http.ts';
import { randomApiKey, startServer } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-operations-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A socket whose received text can be awaited by pattern (the server's own bytes: an event). */
function watched(port: number) {
  const socket = connect({ host: '127.0.0.1', port });
  let text = '';
  let wake: (() => void) | null = null;
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    wake?.();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    closed,
    take: () => {
      const all = text;
      text = '';
      return all;
    },
    until: (pattern: RegExp, timeoutMs = 30_000): Promise<void> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms: ${text}`)), timeoutMs);
        const check = (): void => {
          if (!pattern.test(text)) return;
          clearTimeout(timer);
          wake = null;
          resolve();
        };
        wake = check;
        check();
      }),
  };
}

describe('readiness through a SIGTERM', () => {
  it('/ready answers 200, then 503 once SIGTERM arrives, while a request in flight is still answered', async () => {
    const key = randomApiKey();
    const server = await startServer({ apiKey: key });
    const probe = watched(server.port);
    probe.socket.write('GET /ready HTTP/1.1\r\nHost: t\r\n\r\n');
    await probe.until(/\{"status":"ready","rateLimitStore":"in-process"\}$/);
    assert.equal(parseRaw(probe.take()).status, 200);
    // A POST in flight: its head is in and accepted (the server said 100 Continue), its body not.
    const body = '{"mode":"passphrase"}';
    const inflight = watched(server.port);
    inflight.socket.write(
      `POST /generate HTTP/1.1\r\nHost: t\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    await inflight.until(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    inflight.take();
    const stopped = server.stop();
    await server.waitForOutput(/"msg":"shutting down"/);
    probe.socket.write('GET /ready HTTP/1.1\r\nHost: t\r\n\r\n');
    await probe.until(/\{"status":"draining","rateLimitStore":"in-process"\}$/);
    const draining = parseRaw(probe.take());
    assert.equal(draining.status, 503);
    assert.match(draining.head, /\r\nConnection: close\r\n/);
    inflight.socket.write(body);
    await inflight.until(/"mode":"passphrase"/);
    const answered = parseRaw(inflight.take());
    assert.equal(answered.status, 200, 'the request in flight is answered after the signal');
    assert.match(answered.head, /\r\nConnection: close\r\n/);
    await Promise.all([probe.closed, inflight.closed]);
    assert.deepEqual(await stopped, { code: 0, signal: null });
  });
});

/** One kind of request of the mixed load; `ledger` collects what must never be echoed. */
type Kind = (base: string, from: RequestOptions, ledger: Ledger) => Promise<number>;

function kinds(keys: readonly string[]): Kind[] {
  const marker = (ledger: Ledger): string => {
    const m = `mk${randomBytes(9).toString('hex')}`;
    ledger.add(m);
    return m;
  };
  const generated = async (base: string, from: RequestOptions, ledger: Ledger, body: unknown) => {
    const r = await post(base, keys[0], body, from);
    if (r.status === 200) ledger.addGenerated(r.json);
    return r.status;
  };
  return [
    (base, from, ledger) => generated(base, from, ledger, { mode: 'password', count: 3 }),
    (base, from, ledger) => generated(base, from, ledger, { mode: 'passphrase', options: { separator: 'digit' } }),
    (base, from, ledger) =>
      generated(base, from, ledger, { mode: 'password', options: { excludedCharacters: marker(ledger) } }),
    async (base, from, ledger) => {
      const wrong = `cgk_${randomBytes(4).toString('hex')}_${randomBytes(19).toString('hex')}`;
      ledger.add(wrong);
      return (await post(base, wrong, { mode: 'password' }, from)).status;
    },
    async (base, from) => (await post(base, null, { mode: 'password' }, from)).status,
    async (base, from, ledger) => (await post(base, keys[1], `{"mode":"${marker(ledger)}"`, from)).status,
    async (base, from, ledger) =>
      (
        await post(
          base,
          keys[1],
          { mode: 'password', options: { length: 7, excludedCharacters: marker(ledger) } },
          from,
        )
      ).status,
    async (base, from, ledger) =>
      (
        await request(base, `/${marker(ledger)}?key=${keys[0]}`, {
          ...from,
          headers: { 'x-request-id': marker(ledger) },
        })
      ).status,
    async (base, from) => (await request(base, '/generate', { ...from, method: 'HEAD' })).status,
    async (base, from, ledger) =>
      (
        await request(base, '/health', {
          ...from,
          headers: { 'x-forwarded-for': `203.0.113.${marker(ledger).length}` },
        })
      ).status,
    async (base, from) => (await request(base, '/ready', from)).status,
  ];
}

describe('nothing secret in /metrics or the logs', () => {
  it('after 10,000 mixed requests: no key, digest, generated or sent value, path, forged id or client address', async () => {
    const keysFile = join(dir, 'keys.json');
    const keys: string[] = [];
    for (const holder of ['ops-a', 'ops-b']) {
      let out = '';
      const io = { env: {}, cwd: dir, stdout: (t: string) => void (out += t), stderr: () => undefined };
      assert.equal(runKeysCli(['issue', '--holder', holder, '--file', keysFile], io), 0);
      keys.push(out.trim());
    }
    const digests = (JSON.parse(readFileSync(keysFile, 'utf8')) as { keys: { sha256: string }[] }).keys.map(
      (k) => k.sha256,
    );
    const ledger = new Ledger();
    for (const k of keys) ledger.add(k);
    for (const d of digests) {
      ledger.add(d);
      ledger.add(Buffer.from(d, 'hex').toString('base64'));
      ledger.add(Buffer.from(d, 'hex').toString('base64url'));
    }
    const clients = Array.from({ length: 40 }, (_, i) => `127.0.${1 + (i % 8)}.${10 + i}`);
    for (const c of clients) ledger.add(c);
    ledger.add('203.0.113.');

    // On a clock held still: no token comes back while the load runs, so some 429s are certain.
    const server = await startServer({
      keysFile,
      rateLimitPerMinute: 100,
      logLevel: 'debug',
      steppedClock: true,
      env: { METRICS_PORT: '0' },
    });
    const all = kinds(keys);
    const statuses = new Map<number, number>();
    const plan = Array.from({ length: 10_000 }, (_, i) => i);
    await inLanes(plan, 16, async (i) => {
      const from = { localAddress: clients[i % clients.length] };
      const status = await all[i % all.length](server.url, from, ledger);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    });
    const metrics = (await request(server.metricsUrl!, '/metrics')).text;
    assert.equal((await server.stop()).code, 0);
    const output = server.output();

    for (const status of [200, 400, 401, 404, 429]) assert.ok((statuses.get(status) ?? 0) > 0, `some ${status}s`);
    const families = parseExposition(metrics);
    const counted = families
      .get('http_server_request_duration_seconds')!
      .samples.filter((s) => s.name.endsWith('_count'))
      .reduce((sum, s) => sum + s.value, 0);
    assert.equal(counted, 10_000, 'every request counted once');
    assert.ok(ledger.size > 5_000, `the ledger holds ${ledger.size} values`);
    ledger.assertAbsentFrom(metrics);
    ledger.assertAbsentFrom(output);
    ledger.assertAbsentFrom(labelValues(families).join('\n'));
    assert.match(output, /"client":"127\.0\.1\.0\/24"/, 'the log keeps the masked /24 only');
  });
});
