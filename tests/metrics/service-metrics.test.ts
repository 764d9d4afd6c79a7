/**
 * GET /metrics of the service started in-process (METRICS_PORT=0): every family the service
 * reports, fed by real requests over loopback, read back with the strict format reader, and
 * compared with what the client itself saw. The Prometheus tools read it in
 * tests/metrics/prometheus.integration.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sha256Hex } from '../../lib/keys/api-keys.ts';
import { ServiceMetrics } from '../../lib/metrics/service-metrics.ts';
import { startService, StartError } from '../../lib/server/main.ts';
import { readFromProject } from '../../lib/http/assets.ts';
import { parseExposition, sample, type Family } from '../helpers/exposition.ts';
import { post, request, type Reply } from '../helpers/http.ts';
import { startInProcess } from '../helpers/in-process.ts';
import { randomApiKey, ROOT, type RunningServer } from '../helpers/server.ts';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

async function scrape(server: RunningServer): Promise<{ text: string; families: Map<string, Family> }> {
  assert.ok(server.metricsUrl !== null, 'METRICS_PORT set: the start reports the metrics URL');
  const r = await request(server.metricsUrl, '/metrics');
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  assert.equal(r.headers['cache-control'], 'no-store');
  return { text: r.text, families: parseExposition(r.text) };
}

const tally = new Map<string, number>();
function seen(method: string, route: string, r: Reply): Reply {
  const key = `${method} ${route} ${r.status}`;
  tally.set(key, (tally.get(key) ?? 0) + 1);
  return r;
}

describe('GET /metrics (in-process)', () => {
  const key = randomApiKey();
  let server: RunningServer;

  before(async () => {
    server = await startInProcess({ apiKey: key, rateLimitPerMinute: 7, env: { METRICS_PORT: '0' } });
  });
  after(async () => {
    await server.stop();
  });

  it('counts every reply by method, route and status: exactly what the client saw, nothing it sent', async () => {
    const base = server.url;
    const from = { localAddress: '127.0.0.2' };
    for (let i = 0; i < 10; i++) seen('POST', '/generate', await post(base, key, { mode: 'password' }, from));
    const statuses = [...tally].filter(([k]) => k.startsWith('POST')).map(([k, n]) => `${k.split(' ')[2]}x${n}`);
    assert.ok(tally.get('POST /generate 429')! >= 1, `the limit of 7 was reached: ${statuses.join(' ')}`);
    seen('GET', '/health', await request(base, '/health'));
    seen('GET', '/ready', await request(base, '/ready'));
    seen('HEAD', '/generate', await request(base, '/generate', { method: 'HEAD' }));
    // Content-Length: 0, or node's client sends a chunked body, which closes the connection in
    // stages and holds the stop at the end of this suite for 2 s.
    const noBody = { 'content-length': '0' };
    seen('PUT', '/generate', await request(base, '/generate', { method: 'PUT', headers: noBody }));
    const probe = `/probe-${randomBytes(6).toString('hex')}`;
    seen('GET', 'unmatched', await request(base, `${probe}?token=${probe}`));
    seen('GET', 'unmatched', await request(base, '/metrics'));
    seen('PROPFIND', 'unmatched', await request(base, '/generate/x', { method: 'PROPFIND', headers: noBody }));
    const { text, families } = await scrape(server);
    assert.ok(!text.includes(probe), 'a path as sent never becomes a label');
    const counted = new Map<string, number>();
    for (const s of families.get('http_server_request_duration_seconds')!.samples) {
      if (!s.name.endsWith('_count')) continue;
      const l = s.labels;
      counted.set(`${l.http_request_method} ${l.http_route} ${l.http_response_status_code}`, s.value);
    }
    const expected = new Map([...tally].map(([k, n]) => [k.replace(/^PROPFIND/, '_OTHER'), n]));
    assert.deepEqual(counted, expected);
  });

  it('counts credentials by mode, rate-limit decisions by bucket, key-check failures by reason', async () => {
    const base = server.url;
    const before = (await scrape(server)).families;
    const from = { localAddress: '127.0.0.3' };
    assert.equal((await post(base, key, { mode: 'passphrase', count: 5 }, from)).status, 200);
    assert.equal((await post(base, null, { mode: 'password' }, from)).status, 401);
    assert.equal((await post(base, `${key}x`, { mode: 'password' }, from)).status, 401);
    const twice = await post(base, null, { mode: 'password' }, { ...from, headers: { 'x-api-key': [key, key] } });
    assert.equal(twice.status, 401);
    const after = (await scrape(server)).families;
    const delta = (name: string, labels: Record<string, string>): number =>
      (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    assert.equal(delta('credential_generator_credentials_generated_total', { mode: 'passphrase' }), 5);
    assert.equal(delta('credential_generator_credentials_generated_total', { mode: 'password' }), 0);
    const decisions = 'credential_generator_rate_limit_decisions_total';
    assert.equal(delta(decisions, { bucket: 'keyed', outcome: 'allowed' }), 1);
    assert.equal(delta(decisions, { bucket: 'no_key', outcome: 'allowed' }), 1);
    assert.equal(delta(decisions, { bucket: 'failed_key', outcome: 'allowed' }), 2);
    const failures = 'credential_generator_key_check_failures_total';
    for (const reason of ['missingKey', 'invalidKey', 'duplicateKey']) assert.equal(delta(failures, { reason }), 1);
    // The 10 requests of the first test: 7 tokens, then 429s, all from the keyed bucket.
    assert.equal(sample(after, decisions, { bucket: 'keyed', outcome: 'limited' }), tally.get('POST /generate 429'));
  });

  it('reports the store, the build, the process and the open connections', async () => {
    const held = connect({ host: '127.0.0.1', port: server.port });
    await new Promise((resolve) => held.once('connect', resolve));
    held.write('GET /health HTTP/1.1\r\nHost: t\r\n\r\n');
    await new Promise((resolve) => held.once('data', resolve));
    try {
      const { families } = await scrape(server);
      const state = (s: string) => sample(families, 'credential_generator_rate_limit_store_state', { state: s });
      assert.deepEqual(['in-process', 'shared', 'fallback'].map(state), [1, 0, 0]);
      assert.equal(
        sample(families, 'credential_generator_build_info', {
          version: VERSION,
          sha256: '',
          nodejs_version: process.version,
        }),
        1,
      );
      assert.ok(sample(families, 'credential_generator_open_connections')! >= 1, 'the held connection');
      for (const name of [
        'process_resident_memory_bytes',
        'nodejs_heap_size_used_bytes',
        'nodejs_heap_size_total_bytes',
        'process_cpu_seconds_total',
        'process_start_time_seconds',
      ]) {
        assert.ok(sample(families, name)! > 0, name);
      }
      for (const q of ['min', 'mean', 'p50', 'p90', 'p99', 'max', 'stddev']) {
        const v = sample(families, `nodejs_eventloop_lag_${q}_seconds`)!;
        assert.ok(v >= 0 && v < 60, `${q}: ${v}`);
      }
      assert.equal(sample(families, 'credential_generator_rate_limit_redis_fallbacks_total'), 0);
    } finally {
      held.destroy();
    }
  });

  it('serves nothing else on its listener, and nothing on the public port', async () => {
    const metrics = new URL(server.metricsUrl!);
    assert.equal(metrics.hostname, '127.0.0.1', 'METRICS_HOST defaults to loopback');
    assert.notEqual(Number(metrics.port), server.port);
    assert.equal((await request(server.url, '/metrics')).status, 404);
    assert.equal((await request(metrics.origin, '/')).status, 404);
    const put = await request(metrics.origin, '/metrics', { method: 'POST' });
    assert.deepEqual([put.status, put.headers.allow], [405, 'GET, HEAD']);
    const head = await request(metrics.origin, '/metrics?x', { method: 'HEAD' });
    assert.deepEqual([head.status, head.text], [200, '']);
  });
});

describe('ServiceMetrics, what the Redis store reports', () => {
  it('counts switches to the fallback and times each call by outcome', () => {
    const metrics = new ServiceMetrics({ version: '1.2.3', sha256: 'ab'.repeat(32) });
    try {
      metrics.redisStateChanged(true);
      metrics.redisStateChanged(false);
      metrics.redisStateChanged(true);
      metrics.redisCall(0.0003, true);
      metrics.redisCall(0.0004, true);
      metrics.redisCall(0.05, false);
      const families = parseExposition(metrics.render({ openConnections: 3, storeState: 'fallback' }));
      assert.equal(sample(families, 'credential_generator_rate_limit_redis_fallbacks_total'), 1);
      const calls = 'credential_generator_rate_limit_redis_call_duration_seconds';
      assert.equal(sample(families, `${calls}_bucket`, { outcome: 'ok', le: '0.0005' }), 2);
      assert.equal(sample(families, `${calls}_bucket`, { outcome: 'ok', le: '0.00025' }), 0);
      assert.equal(sample(families, `${calls}_bucket`, { outcome: 'error', le: '0.05' }), 1);
      assert.equal(sample(families, `${calls}_count`, { outcome: 'error' }), 1);
      assert.equal(sample(families, 'credential_generator_rate_limit_store_state', { state: 'fallback' }), 1);
      assert.equal(sample(families, 'credential_generator_open_connections'), 3);
      assert.equal(
        sample(families, 'credential_generator_build_info', { version: '1.2.3', sha256: 'ab'.repeat(32) }),
        1,
      );
    } finally {
      metrics.close();
    }
  });
});

describe('refused connections (T1)', () => {
  it('counts the connections a cap closed at accept, by cap', async () => {
    const server = await startInProcess({ env: { METRICS_PORT: '0', MAX_CONNECTIONS_PER_ADDRESS: '1' } });
    const held = connect({ host: '127.0.0.1', port: server.port });
    try {
      await new Promise((resolve) => held.once('connect', resolve));
      held.write('GET /health HTTP/1.1\r\nHost: t\r\n\r\n');
      await new Promise((resolve) => held.once('data', resolve));
      const refused = connect({ host: '127.0.0.1', port: server.port });
      refused.on('error', () => undefined);
      await new Promise((resolve) => refused.once('close', resolve));
      const { families } = await scrape(server);
      const count = (cap: string) => sample(families, 'credential_generator_connections_refused_total', { cap });
      assert.deepEqual([count('per_address'), count('total')], [1, 0]);
    } finally {
      held.destroy();
      await server.stop();
    }
  });
});

describe('metrics off, and the key-file reloads', () => {
  it('has no metrics listener without METRICS_PORT', async () => {
    const server = await startInProcess({ apiKey: randomApiKey() });
    try {
      assert.equal(server.metricsUrl, null);
      assert.equal((await request(server.url, '/metrics')).status, 404);
    } finally {
      await server.stop();
    }
  });

  it('counts each change of the key file by what it led to: loaded, rejected, missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-metrics-keys-'));
    const file = join(dir, 'keys.json');
    const put = (text: string): void => {
      writeFileSync(`${file}.tmp`, text, { mode: 0o600 });
      renameSync(`${file}.tmp`, file);
    };
    const record = (id: string) => ({
      id,
      holder: 'metrics test',
      created: '2026-01-01T00:00:00Z',
      revoked: null,
      sha256: sha256Hex(randomApiKey()),
    });
    put(JSON.stringify({ version: 1, keys: [record('AAAAAAAA')] }));
    const server = await startInProcess({ keysFile: file, env: { METRICS_PORT: '0' } });
    try {
      let from = server.output().length;
      put(JSON.stringify({ version: 1, keys: [record('AAAAAAAA'), record('BBBBBBBB')] }));
      await server.waitForOutput(/"msg":"keys reloaded"/, 30_000, from);
      from = server.output().length;
      put('{ not json');
      await server.waitForOutput(/"msg":"key file rejected/, 30_000, from);
      from = server.output().length;
      unlinkSync(file);
      await server.waitForOutput(/"msg":"key file missing/, 30_000, from);
      const { families, text } = await scrape(server);
      const reloads = (outcome: string) => sample(families, 'credential_generator_key_file_reloads_total', { outcome });
      assert.deepEqual(['loaded', 'rejected', 'missing'].map(reloads), [1, 1, 1]);
      assert.ok(!text.includes(file), 'no path');
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start when the metrics port cannot be bound, naming the variables', async () => {
    const first = await startInProcess({ apiKey: randomApiKey(), env: { METRICS_PORT: '0' } });
    const taken = new URL(first.metricsUrl!).port;
    const scratch = mkdtempSync(join(tmpdir(), 'cg-metrics-port-'));
    try {
      await assert.rejects(
        startService({
          env: {
            PORT: '0',
            API_KEY: randomApiKey(),
            API_KEYS_FILE: join(scratch, 'none.json'),
            LOG_LEVEL: 'silent',
            METRICS_PORT: taken,
          },
          cwd: scratch,
          readAsset: readFromProject(ROOT),
          keysCommand: 'cg keys',
          sink: () => undefined,
        }),
        (error: unknown) =>
          error instanceof StartError &&
          error.message ===
            `cannot listen on 127.0.0.1:${taken} for the metrics (EADDRINUSE); check METRICS_PORT and METRICS_HOST`,
      );
    } finally {
      await first.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
