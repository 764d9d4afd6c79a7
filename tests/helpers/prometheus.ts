/**
 * The Prometheus parts of Debian's `prometheus` package for the metrics tests: `promtool check
 * metrics` on an exposition, and a private Prometheus server (loopback, a port of its own, a
 * temp config and data directory, stopped by its PID) that scrapes given targets every second
 * and answers PromQL through its HTTP API.
 *
 *   const prom = await startPrometheus(['127.0.0.1:9464']);
 *   const rows = await prom.queryWhenScraped('up');   // after its first scrape of every target
 *   await prom.close();
 *
 * Without the binaries (PROMETHEUS, PROMTOOL, else on PATH) `prometheusMissing()` says why;
 * test files skip loudly then, and fail instead under CI=true (.ci/run installs the package).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPath } from './on-path.ts';
import { portBelowEphemeralRange } from './ports.ts';

export const PROMETHEUS = onPath('prometheus', 'PROMETHEUS');
export const PROMTOOL = onPath('promtool', 'PROMTOOL');

/** Why the Prometheus tests cannot run here, or null when they can. */
export function prometheusMissing(): string | null {
  if (existsSync(PROMETHEUS) && existsSync(PROMTOOL)) return null;
  const why = 'prometheus or promtool not found (PROMETHEUS, PROMTOOL, PATH; Debian package prometheus)';
  if (process.env.CI === 'true') throw new Error(`${why}. In CI the Prometheus tests must run, not skip.`);
  return why;
}

/** `promtool check metrics` on an exposition: its exit code and everything it printed. */
export function promtoolCheck(exposition: string): { status: number | null; output: string } {
  const r = spawnSync(PROMTOOL, ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** One row of an instant query: its labels and value. */
export interface Row {
  readonly metric: Record<string, string>;
  readonly value: number;
}

export interface PrometheusServer {
  readonly url: string;
  /** An instant query through /api/v1/query. */
  query(promql: string): Promise<Row[]>;
  /** The query once every target has been scraped at least once (polled: Prometheus has no
   * event to wait for); rejects after timeoutMs. */
  queryWhenScraped(promql: string, timeoutMs?: number): Promise<Row[]>;
  output(): string;
  close(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

async function get(url: string): Promise<unknown> {
  const res = await fetch(url);
  const body = (await res.json()) as { status: string; data: unknown; error?: string };
  if (body.status !== 'success') throw new Error(`Prometheus: ${body.error ?? res.status}`);
  return body.data;
}

export interface PrometheusOptions {
  /** Rule files to load (absolute paths), evaluated every second like the scrapes. */
  readonly ruleFiles?: readonly string[];
}

export async function startPrometheus(
  targets: readonly string[],
  options: PrometheusOptions = {},
): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), 'cg-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      '  evaluation_interval: 1s',
      ...(options.ruleFiles === undefined ? [] : ['rule_files:', ...options.ruleFiles.map((f) => `  - '${f}'`)]),
      'scrape_configs:',
      '  - job_name: credential-generator',
      '    static_configs:',
      `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
      '',
    ].join('\n'),
  );
  let out = '';
  let child: ChildProcess | null = null;
  let url = '';
  for (let attempt = 0; attempt < 20 && child === null; attempt++) {
    const port = portBelowEphemeralRange();
    const proc = spawn(
      PROMETHEUS,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=info',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    running.add(proc);
    out = '';
    const ready = await new Promise<boolean>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        out += chunk.toString('utf8');
        if (out.includes('Server is ready to receive web requests')) resolve(true);
      };
      proc.stdout.on('data', onData);
      proc.stderr.on('data', onData);
      proc.once('exit', (code, signal) => {
        running.delete(proc);
        if (/address already in use/.test(out)) resolve(false);
        else reject(new Error(`prometheus exited (${code ?? signal}) before it was ready:\n${out}`));
      });
      setTimeout(() => reject(new Error(`prometheus not ready within 60 s:\n${out}`)), 60_000).unref();
    });
    if (ready) {
      child = proc;
      url = `http://127.0.0.1:${port}`;
    }
  }
  if (child === null) throw new Error(`prometheus could not bind a port:\n${out}`);
  const proc = child;

  const query = async (promql: string): Promise<Row[]> => {
    const data = (await get(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`)) as {
      result: { metric: Record<string, string>; value: [number, string] }[];
    };
    return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  };
  const scrapedAll = async (): Promise<boolean> => {
    const data = (await get(`${url}/api/v1/targets`)) as { activeTargets: { health: string; lastError: string }[] };
    const bad = data.activeTargets.find((t) => t.health === 'down');
    if (bad !== undefined) throw new Error(`a target is down: ${bad.lastError}`);
    return data.activeTargets.length === targets.length && data.activeTargets.every((t) => t.health === 'up');
  };
  return {
    url,
    query,
    async queryWhenScraped(promql, timeoutMs = 60_000) {
      const started = performance.now();
      while (!(await scrapedAll())) {
        if (performance.now() - started > timeoutMs) throw new Error(`no scrape within ${timeoutMs} ms:\n${out}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return query(promql);
    },
    output: () => out,
    async close() {
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
