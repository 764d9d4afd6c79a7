/**
 * GET /ready (docs/api.md, Endpoints): 200 while the service accepts work; 503 while it drains
 * and while no key is configured; the body names the limiter's store either way, and a Redis
 * outage (the store falling back) is still ready. The SIGTERM case against the real process:
 * tests/e2e/operations.integration.ts.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { createApp, type App } from '../../lib/http/app.ts';
import { Logger } from '../../lib/log/logger.ts';
import { LocalLimits, SharedLimits, type ClientLimits } from '../../lib/rate-limit/client-limits.ts';
import type { AsyncRateLimitStore } from '../../lib/rate-limit/redis-store.ts';
import { RateLimiter } from '../../lib/rate-limit/token-bucket.ts';
import { createService, listen, shutdown } from '../../lib/server/service.ts';
import { parseRaw, request } from '../helpers/http.ts';
import { startInProcess } from '../helpers/in-process.ts';

async function serve(app: App): Promise<{ base: string; port: number; stop: () => Promise<boolean> }> {
  const server = createService({ app, logger: new Logger('silent'), tls: null });
  const { port } = await listen(server, 0, '127.0.0.1');
  return { base: `http://127.0.0.1:${port}`, port, stop: () => shutdown(server, app) };
}

const buckets = () => new RateLimiter({ perMinute: 10, sweepIntervalMs: 0 });

/** An app with a key configured on `limits`. */
const appOn = (limits: ClientLimits): App =>
  createApp({
    limits,
    keys: { configured: true, verify: () => null, check: () => ({ kind: 'unknown' }) },
    logger: new Logger('silent'),
    assets: [],
    trustProxyHops: 0,
    tls: false,
  });

describe('GET /ready', () => {
  it('answers 503 "no-key" while no key is configured (POST /generate would answer 503)', async () => {
    const server = await startInProcess({});
    try {
      const r = await request(server.url, '/ready');
      assert.equal(r.status, 503);
      assert.deepEqual(r.json, { status: 'no-key', rateLimitStore: 'in-process' });
      assert.equal((await request(server.url, '/health')).status, 200, '/health stays liveness');
    } finally {
      await server.stop();
    }
  });

  it('answers 503 "draining" with Connection: close once the drain has begun, on an open connection', async () => {
    const app = appOn(new LocalLimits(buckets()));
    const { port, stop } = await serve(app);
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    const got = (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!pattern.test(text)) return;
          socket.off('data', onData);
          resolve();
        };
        const onData = (chunk: Buffer) => {
          text += chunk.toString('utf8');
          check();
        };
        socket.on('data', onData);
        check();
      });
    socket.write('GET /ready HTTP/1.1\r\nHost: t\r\n\r\n');
    await got(/"rateLimitStore":"in-process"\}$/);
    assert.equal(parseRaw(text).status, 200);
    assert.equal(parseRaw(text).body, '{"status":"ready","rateLimitStore":"in-process"}');
    text = '';
    const stopped = stop();
    socket.write('GET /ready HTTP/1.1\r\nHost: t\r\n\r\n');
    await got(/"rateLimitStore":"in-process"\}$/);
    const reply = parseRaw(text);
    assert.equal(reply.status, 503);
    assert.equal(reply.body, '{"status":"draining","rateLimitStore":"in-process"}');
    assert.match(reply.head, /\r\nConnection: close\r\n/);
    assert.equal(await stopped, true);
  });

  it('stays ready while Redis is out: the store falls back and still limits', async () => {
    const fallback = buckets();
    const store: AsyncRateLimitStore = {
      limit: 10,
      isShared: true,
      consume: (key) => Promise.resolve(fallback.consume(key)),
      view: (key) => fallback.peek(key),
      close: () => Promise.resolve(),
    };
    const { base, stop } = await serve(appOn(new SharedLimits(store, fallback)));
    assert.deepEqual((await request(base, '/ready')).json, { status: 'ready', rateLimitStore: 'shared' });
    (store as { isShared: boolean }).isShared = false;
    const r = await request(base, '/ready');
    assert.deepEqual([r.status, r.json], [200, { status: 'ready', rateLimitStore: 'fallback' }]);
    assert.equal(await stop(), true);
  });

  it('is a probe: logged at debug only, like a healthy /health', async () => {
    const info = await startInProcess({ logLevel: 'info' });
    const debug = await startInProcess({ logLevel: 'debug' });
    try {
      for (const s of [info, debug]) {
        await request(s.url, '/ready');
        await request(s.url, '/health');
        await request(s.url, '/nope');
        await s.waitForOutput(/"route":"unmatched","status":404/);
      }
      assert.doesNotMatch(info.output(), /"route":"\/(ready|health)"/);
      assert.match(debug.output(), /"route":"\/ready","status":503/);
      assert.match(debug.output(), /"route":"\/health","status":200/);
    } finally {
      await Promise.all([info.stop(), debug.stop()]);
    }
  });
});
