/**
 * The shipped monitoring (deploy/prometheus, deploy/grafana; issue 32): `promtool check rules`
 * and `promtool test rules` pass, and a real Prometheus scraping a live instance (TLS served, so
 * the certificate metric is there) loads the recording and alert rules and evaluates every one
 * of them without error, and answers every dashboard query without error, the main panels
 * with data.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request as httpsRequest } from 'node:https';
import { PROMTOOL, prometheusMissing, startPrometheus, type PrometheusServer } from '../helpers/prometheus.ts';
import { randomApiKey, ROOT, startServer, type RunningServer } from '../helpers/server.ts';

const skip = prometheusMissing();
const RULES = join(ROOT, 'deploy', 'prometheus');
const TLS = join(ROOT, 'tests', 'fixtures', 'tls');

interface Panel {
  title: string;
  targets: { expr: string }[];
}
const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy', 'grafana', 'dashboard.json'), 'utf8')) as {
  panels: Panel[];
};
/** Panels that must show data for any running instance (the others need 5xx, Redis or time). */
const MAIN = [
  'Up',
  'Requests per second by status',
  'POST /generate latency',
  'Active requests',
  'Open connections',
  'Credentials generated per second',
  'Rate-limit decisions per second',
  'Rate-limit store',
  'Key check failures per second',
  'Key file reloads (1h)',
  'Event-loop delay',
  'Memory',
  'CPU',
  'GC time per second',
  'Open file descriptors',
  'TLS certificate expires in',
  'Build',
  'Connections refused and evicted per second',
  'Policies file reloads (1h)',
  'Watched files refused now',
];

/** Grafana's variables as the dashboard's defaults set them. */
const substituted = (expr: string): string =>
  expr.replaceAll('$job', 'credential-generator').replaceAll('$instance', '.*').replaceAll('$__rate_interval', '1m');

/** One request over TLS to the test's own loopback server (its fixture certificate is
 * self-signed, hence no verification); resolves with the status. */
function tlsRequest(
  base: string,
  path: string,
  method: string,
  headers: Record<string, string>,
  body = '',
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, base), { method, headers, rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function promtool(...args: string[]): { status: number | null; output: string } {
  const r = spawnSync(PROMTOOL, args, { cwd: RULES, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('shipped rules and dashboard', { skip: skip ?? false, timeout: 240_000 }, () => {
  let server: RunningServer;
  let prometheus: PrometheusServer;

  before(async () => {
    const key = randomApiKey();
    server = await startServer({
      apiKey: key,
      rateLimitPerMinute: 10_000,
      env: { METRICS_PORT: '0', TLS_CERT_FILE: join(TLS, 'rsa.cert.pem'), TLS_KEY_FILE: join(TLS, 'rsa.key.pem') },
    });
    prometheus = await startPrometheus([new URL(server.metricsUrl!).host], {
      ruleFiles: [join(RULES, 'rules.yml'), join(RULES, 'alerts.yml')],
    });
    // Traffic until Prometheus has seen the counters move between two of its scrapes, so every
    // rate() has data. A fixed span of traffic is not enough: on a loaded machine the first
    // scrape can come after it ended, and every sample then holds the same count (rate 0).
    await prometheus.queryWhenScraped('up');
    const json = { 'Content-Type': 'application/json' };
    const body = '{"mode":"password"}';
    const started = performance.now();
    let seen = false;
    while (!seen) {
      assert.ok(performance.now() - started < 60_000, 'Prometheus saw traffic within 60 s');
      assert.equal(await tlsRequest(server.url, '/generate', 'POST', { ...json, 'X-Api-Key': key }, body), 200);
      assert.equal(await tlsRequest(server.url, '/generate', 'POST', { ...json, 'X-Api-Key': `${key}x` }, body), 401);
      assert.equal(await tlsRequest(server.url, '/health', 'GET', {}), 200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const moving = await prometheus.query('sum(rate(http_server_request_duration_seconds_count[5m])) > 0');
      seen = moving.length === 1 && performance.now() - started > 3_000;
    }
  });
  after(async () => {
    await prometheus?.close();
    await server?.stop();
  });

  it('promtool check rules and promtool test rules pass', () => {
    const check = promtool('check', 'rules', 'rules.yml', 'alerts.yml');
    assert.equal(check.status, 0, check.output);
    assert.match(check.output, /SUCCESS: 4 rules found[\s\S]*SUCCESS: 11 rules found/);
    const test = promtool('test', 'rules', 'tests.yml');
    assert.equal(test.status, 0, test.output);
    assert.match(test.output, /SUCCESS/);
  });

  it('Prometheus evaluates every recording and alert rule without error', async () => {
    type Rule = { name: string; health: string; lastError?: string; lastEvaluation: string };
    let rules: Rule[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${prometheus.url}/api/v1/rules`);
      const body = (await res.json()) as { data: { groups: { rules: Rule[] }[] } };
      rules = body.data.groups.flatMap((g) => g.rules);
      if (rules.length === 15 && rules.every((r) => !r.lastEvaluation.startsWith('0001'))) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(rules.length, 15, 'every rule loaded');
    for (const rule of rules) {
      assert.equal(rule.health, 'ok', `${rule.name}: ${rule.lastError ?? ''}`);
      assert.ok(!rule.lastEvaluation.startsWith('0001'), `${rule.name} evaluated`);
    }
    // Recorded series exist once evaluated over two scrapes (a rate needs two samples): the
    // request rate of this instance, waited for as the rules were (the first evaluation may
    // come before the second scrape).
    let rate = await prometheus.query('instance:http_server_requests:rate5m');
    for (let i = 0; i < 100 && (rate.length !== 1 || !(rate[0].value > 0)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      rate = await prometheus.query('instance:http_server_requests:rate5m');
    }
    assert.equal(rate.length, 1);
    assert.ok(rate[0].value > 0, 'traffic recorded');
  });

  it('every dashboard query evaluates without error, the main panels with data', async () => {
    const empty: string[] = [];
    let queries = 0;
    for (const panel of dashboard.panels) {
      let rows = 0;
      for (const target of panel.targets) {
        queries++;
        rows += (await prometheus.query(substituted(target.expr))).length; // throws on a query error
      }
      if (rows === 0) empty.push(panel.title);
    }
    assert.ok(queries >= 20, `${queries} queries`);
    for (const title of MAIN)
      assert.ok(
        dashboard.panels.some((p) => p.title === title),
        `panel ${title} exists`,
      );
    assert.deepEqual(
      empty.filter((title) => MAIN.includes(title)),
      [],
      `main panels without data (all empty: ${empty.join(', ')})`,
    );
  });
});
