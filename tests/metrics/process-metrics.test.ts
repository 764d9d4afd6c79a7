/**
 * The process and runtime metrics under prom-client's default names and types
 * (lib/metrics/process-metrics.ts), windows that no scrape resets, and
 * http_server_active_requests counted from arrival to the response's close.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { maxFds } from '../../lib/metrics/process-metrics.ts';
import { ServiceMetrics } from '../../lib/metrics/service-metrics.ts';
import { parseExposition, sample, type Family } from '../helpers/exposition.ts';
import { request } from '../helpers/http.ts';
import { startInProcess } from '../helpers/in-process.ts';
import { randomApiKey } from '../helpers/server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BUILD = { version: '1.2.3', sha256: null };

/** prom-client's collectDefaultMetrics names and types (its example/default-metrics.js), the
 * Linux-only ones included (the tests run on Linux), less its two `_total` gauges, which
 * promtool's lint refuses. */
const PROM_CLIENT_DEFAULTS: Record<string, Family['type']> = {
  process_cpu_user_seconds_total: 'counter',
  process_cpu_system_seconds_total: 'counter',
  process_cpu_seconds_total: 'counter',
  process_start_time_seconds: 'gauge',
  process_resident_memory_bytes: 'gauge',
  process_virtual_memory_bytes: 'gauge',
  process_heap_bytes: 'gauge',
  process_open_fds: 'gauge',
  process_max_fds: 'gauge',
  nodejs_eventloop_lag_seconds: 'gauge',
  nodejs_eventloop_lag_min_seconds: 'gauge',
  nodejs_eventloop_lag_max_seconds: 'gauge',
  nodejs_eventloop_lag_mean_seconds: 'gauge',
  nodejs_eventloop_lag_stddev_seconds: 'gauge',
  nodejs_eventloop_lag_p50_seconds: 'gauge',
  nodejs_eventloop_lag_p90_seconds: 'gauge',
  nodejs_eventloop_lag_p99_seconds: 'gauge',
  nodejs_active_handles: 'gauge',
  nodejs_active_resources: 'gauge',
  nodejs_heap_size_total_bytes: 'gauge',
  nodejs_heap_size_used_bytes: 'gauge',
  nodejs_external_memory_bytes: 'gauge',
  nodejs_heap_space_size_total_bytes: 'gauge',
  nodejs_heap_space_size_used_bytes: 'gauge',
  nodejs_heap_space_size_available_bytes: 'gauge',
  nodejs_version_info: 'gauge',
  nodejs_gc_duration_seconds: 'histogram',
};

async function render(metrics: ServiceMetrics): Promise<Map<string, Family>> {
  await metrics.measureLag();
  return parseExposition(metrics.render({ openConnections: 0, storeState: 'in-process' }));
}

describe('process and runtime metrics', () => {
  it("has every one of prom-client's default names, with its type, and no old name", async () => {
    const metrics = new ServiceMetrics(BUILD);
    try {
      // Garbage until a minor GC is recorded: the observer gets its entry on a later tick, and
      // how much garbage one minor GC takes depends on the young generation's size on the Node
      // line (one round of 200,000 objects was not always enough on Node 26 under load).
      const minorGcs = (f: Map<string, Family>) =>
        sample(f, 'nodejs_gc_duration_seconds_count', { kind: 'minor' }) ?? 0;
      let families = await render(metrics);
      for (let round = 0; round < 50 && minorGcs(families) < 1; round++) {
        let junk: unknown[] = [];
        for (let i = 0; i < 200_000; i++) junk.push({ i });
        junk = [];
        await sleep(50);
        families = await render(metrics);
      }
      for (const [name, type] of Object.entries(PROM_CLIENT_DEFAULTS)) {
        assert.equal(families.get(name)?.type, type, name);
      }
      for (const old of families.keys()) assert.ok(!old.startsWith('nodejs_eventloop_delay_'), old);
      const [major, minor, patch] = process.versions.node.split('.');
      assert.equal(sample(families, 'nodejs_version_info', { version: process.version, major, minor, patch }), 1);
      assert.ok(minorGcs(families) >= 1, 'a minor GC seen');
      for (const kind of ['major', 'incremental', 'weakcb'])
        assert.notEqual(sample(families, 'nodejs_gc_duration_seconds_count', { kind }), undefined, kind);
      const fds = sample(families, 'process_open_fds')!;
      assert.ok(fds > 2 && fds <= sample(families, 'process_max_fds')!, `${fds} open fds`);
      const cpu = ['user', 'system'].map((p) => sample(families, `process_cpu_${p}_seconds_total`)!);
      assert.ok(Math.abs(cpu[0] + cpu[1] - sample(families, 'process_cpu_seconds_total')!) < 1e-9);
      assert.ok(sample(families, 'process_virtual_memory_bytes')! > sample(families, 'process_resident_memory_bytes')!);
      assert.ok(sample(families, 'nodejs_heap_space_size_used_bytes', { space: 'old' })! > 0);
      assert.ok(families.get('nodejs_active_resources')!.samples.length >= 1, 'a timer at least');
      const lag = sample(families, 'nodejs_eventloop_lag_seconds')!;
      assert.ok(lag > 0 && lag < 1, `lag ${lag}`);
      assert.ok(Math.abs(sample(families, 'process_start_time_seconds')! - (Date.now() / 1000 - process.uptime())) < 2);
    } finally {
      metrics.close();
    }
  });

  it('the event-loop window is the last complete one: a scrape does not reset it', async () => {
    const metrics = new ServiceMetrics(BUILD, { windowMs: 300 });
    try {
      await sleep(30);
      const block = performance.now() + 60; // a 60 ms stall inside the first window
      while (performance.now() < block);
      await sleep(300); // the first window (0 to 300 ms) closed with the stall in it, the next is open
      const loop = (f: Map<string, Family>) =>
        ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'].map((q) =>
          sample(f, `nodejs_eventloop_lag_${q}_seconds`),
        );
      // Two scrapes in a row (no timer runs between them: one synchronous stretch).
      const first = loop(parseExposition(metrics.render({ openConnections: 0, storeState: 'in-process' })));
      const second = loop(parseExposition(metrics.render({ openConnections: 0, storeState: 'in-process' })));
      assert.deepEqual(second, first, 'the second scrape sees what the first saw');
      assert.ok(first[1]! >= 0.03, `the stall is in the window's max: ${first[1]}`);
      // A quiet window later the stall has rotated out, whoever scraped meanwhile. A busy machine
      // can leave the process unscheduled for as long as the stall (docs/test-timing.md,
      // Waiting), so the windows are read until one is quiet, at most 20 (6 s): a window that
      // kept its stall would keep it in every one of them.
      let later = first;
      for (let i = 0; i < 20 && later[1]! >= 0.03; i++) {
        await sleep(i === 0 ? 650 : 300);
        later = loop(await render(metrics));
      }
      assert.ok(later[1]! < 0.03, `rotated out: ${later[1]}`);
    } finally {
      metrics.close();
    }
  });

  it('leaves out the /proc figures where there is no /proc', async () => {
    const metrics = new ServiceMetrics(BUILD, { proc: '/nonexistent/proc/self' });
    try {
      const families = await render(metrics);
      for (const name of ['process_virtual_memory_bytes', 'process_heap_bytes', 'process_open_fds', 'process_max_fds'])
        assert.equal(families.has(name), false, name);
      assert.ok(sample(families, 'process_resident_memory_bytes')! > 0, 'from process.memoryUsage()');
    } finally {
      metrics.close();
    }
  });

  it('reads the soft open-files limit from /proc/self/limits', () => {
    const limits =
      'Limit                     Soft Limit           Hard Limit           Units     \n' +
      'Max processes             63432                63432                processes \n' +
      'Max open files            1024                 524288               files     \n';
    assert.equal(maxFds(limits), 1024);
    assert.equal(maxFds('Max open files            unlimited            unlimited            files\n'), null);
  });
});

describe('http_server_active_requests', () => {
  it('counts a request from its arrival until its response closes', async () => {
    const key = randomApiKey();
    const server = await startInProcess({ apiKey: key, env: { METRICS_PORT: '0' } });
    const active = async (method: string) => {
      const r = await request(server.metricsUrl!, '/metrics');
      return sample(parseExposition(r.text), 'http_server_active_requests', {
        http_request_method: method,
        url_scheme: 'http',
      });
    };
    const socket = connect({ host: '127.0.0.1', port: server.port });
    const connected = new Promise((resolve) => socket.once('connect', resolve));
    try {
      assert.equal(await active('POST'), 0);
      await connected;
      const body = '{"mode":"password"}';
      // The head and half the body: the request is in flight until the rest comes.
      socket.write(
        `POST /generate HTTP/1.1\r\nHost: t\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
      let seen = 0;
      for (let i = 0; i < 200 && seen === 0; i++) {
        seen = (await active('POST'))!;
        if (seen === 0) await sleep(10);
      }
      assert.equal(seen, 1, 'one POST in flight');
      const replied = new Promise((resolve) => socket.once('data', resolve));
      socket.write(body.slice(5));
      await replied;
      let after = 1;
      for (let i = 0; i < 200 && after !== 0; i++) {
        after = (await active('POST'))!;
        if (after !== 0) await sleep(10);
      }
      assert.equal(after, 0, 'none once the response went out');
      assert.equal(await active('GET'), 0, "the scrapes' GETs are on the metrics listener: not counted");
    } finally {
      socket.destroy();
      await server.stop();
    }
  });
});
