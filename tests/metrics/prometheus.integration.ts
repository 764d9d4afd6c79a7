/**
 * /metrics read by the real Prometheus parts (Debian's `prometheus` package): `promtool check
 * metrics` passes on the live exposition of a server that has answered every kind of request,
 * and a real Prometheus server scraping it returns, through its HTTP API, the exact counts of
 * known traffic: 7 requests answered 200 and 3 answered 429 (a limit of 7 per minute on a clock
 * the test holds still, so no token comes back in between), 1 answered 401.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { post, rawExchange, request } from '../helpers/http.ts';
import { prometheusMissing, promtoolCheck, startPrometheus, type Row } from '../helpers/prometheus.ts';
import { randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';

const skip = prometheusMissing();
const key = randomApiKey();
let server: RunningServer;

const byStatus = (rows: Row[]): Record<string, number> =>
  Object.fromEntries(rows.map((r) => [r.metric.http_response_status_code, r.value]));

describe('Prometheus reads /metrics', { skip: skip ?? false, timeout: 180_000 }, () => {
  before(async () => {
    server = await startServer({ apiKey: key, rateLimitPerMinute: 7, steppedClock: true, env: { METRICS_PORT: '0' } });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await post(server.url, key, { mode: 'password' })).status);
    assert.deepEqual(statuses, [...Array<number>(7).fill(200), 429, 429, 429], 'the known traffic');
    assert.equal((await post(server.url, `${key}-wrong`, { mode: 'password' })).status, 401);
    for (const path of ['/health', '/ready', '/generate', '/openapi.json', '/nope']) await request(server.url, path);
    await rawExchange(server.port, 'NOT HTTP\r\n\r\n', 30_000);
  });
  after(async () => {
    await server?.stop();
  });

  it('promtool check metrics passes on the live exposition, without a lint remark', async () => {
    const exposition = (await request(server.metricsUrl!, '/metrics')).text;
    assert.match(exposition, /^http_server_request_duration_seconds_count\{/m);
    const { status, output } = promtoolCheck(exposition);
    assert.equal(output, '');
    assert.equal(status, 0);
    // It does find faults: a counter without _total, a label value left open.
    const unsuffixed = exposition.replace(/credential_generator_credentials_generated_total/g, 'cg_generated');
    assert.match(promtoolCheck(unsuffixed).output, /counter metrics should have "_total" suffix/);
    const open = exposition.replace('mode="password"', 'mode="password');
    assert.notEqual(promtoolCheck(open).status, 0);
  });

  it('a Prometheus server scraping it returns the exact counts of the known traffic', async () => {
    const prometheus = await startPrometheus([new URL(server.metricsUrl!).host]);
    try {
      const post200 = await prometheus.queryWhenScraped(
        'sum by (http_response_status_code) (http_server_request_duration_seconds_count{job="credential-generator",http_request_method="POST",http_route="/generate"})',
      );
      assert.deepEqual(byStatus(post200), { '200': 7, '429': 3, '401': 1 });
      const decisions = await prometheus.query('credential_generator_rate_limit_decisions_total{bucket="keyed"}');
      assert.deepEqual(Object.fromEntries(decisions.map((r) => [r.metric.outcome, r.value])), {
        allowed: 7,
        limited: 3,
      });
      const generated = await prometheus.query('credential_generator_credentials_generated_total');
      assert.deepEqual(Object.fromEntries(generated.map((r) => [r.metric.mode, r.value])), {
        password: 7,
        passphrase: 0,
      });
      const failures = await prometheus.query('credential_generator_key_check_failures_total{reason="invalidKey"}');
      assert.deepEqual(
        failures.map((r) => r.value),
        [1],
      );
      const unmatched = await prometheus.query('http_server_request_duration_seconds_count{http_route="unmatched"}');
      assert.deepEqual(byStatus(unmatched), { '404': 1 });
      const up = await prometheus.query('up{job="credential-generator"}');
      assert.deepEqual(
        up.map((r) => r.value),
        [1],
      );
    } finally {
      await prometheus.close();
    }
  });
});
