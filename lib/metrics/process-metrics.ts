/**
 * The process and Node.js runtime figures under prom-client's default names and types
 * (`collectDefaultMetrics`), so the dashboards and alerts built for nearly every Node service
 * read them unchanged; prom-client itself stays out (it would be the first runtime dependency).
 *
 * Two choices differ from prom-client's, on purpose:
 * - The event-loop delay gauges (`nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds`)
 *   describe the last complete window of WINDOW_MS, rotated by a timer. prom-client resets its
 *   histogram at every scrape, so a second Prometheus, or a curl of /metrics, steals the window
 *   from the first; here no scrape changes what another one sees.
 * - The Linux figures (`process_virtual_memory_bytes`, `process_heap_bytes`, `process_open_fds`,
 *   `process_max_fds`) come from /proc/self and are left out where there is none, as
 *   prom-client does.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { Counter, Gauge, Histogram, type CounterChild, type HistogramChild, type Registry } from './registry.ts';

/** The event-loop monitor's timer interval, ms: each sample is that interval plus the delay. */
const LOOP_RESOLUTION_MS = 10;
/** The event-loop window: long enough for a few thousand samples, short enough that a stall
 * shows within one scrape interval of 15 s. */
export const WINDOW_MS = 10_000;
/** prom-client's default GC buckets, seconds. */
const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];
/** perf_hooks' GC kinds, by the names prom-client gives them. */
const GC_KINDS = new Map<number, string>([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weakcb'],
]);

/** The statistics of one window of event-loop delay, seconds. */
export interface LoopWindow {
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  readonly stddev: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

const LOOP_FIGURES = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'] as const;
const LOOP_HELP: Record<(typeof LOOP_FIGURES)[number], string> = {
  min: 'The smallest event-loop delay',
  max: 'The largest event-loop delay',
  mean: 'The mean event-loop delay',
  stddev: 'The standard deviation of the event-loop delay',
  p50: 'The median event-loop delay',
  p90: 'The 90th percentile of the event-loop delay',
  p99: 'The 99th percentile of the event-loop delay',
};

/** A window's figures from the monitor, the timer's own interval taken out (an empty window,
 * which reports min as a huge number, gives zeros). */
export function windowOf(h: IntervalHistogram): LoopWindow {
  const seen = h.count > 0;
  const s = (ns: number): number => (seen ? Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS) / 1000 : 0);
  return {
    min: s(h.min),
    max: s(h.max),
    mean: s(h.mean),
    stddev: seen ? h.stddev / 1e9 : 0,
    p50: s(h.percentile(50)),
    p90: s(h.percentile(90)),
    p99: s(h.percentile(99)),
  };
}

/** Figures of /proc/self/status, bytes (null off Linux). */
function procStatus(proc: string): { rss: number; vsize: number; data: number } | null {
  let text: string;
  try {
    text = readFileSync(`${proc}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (field: string): number => {
    const m = new RegExp(`^${field}:\\s*(\\d+) kB`, 'm').exec(text);
    return m === null ? 0 : Number(m[1]) * 1024;
  };
  return { rss: kb('VmRSS'), vsize: kb('VmSize'), data: kb('VmData') };
}

/** The soft limit on open files, from /proc/self/limits (null off Linux or if unlimited). */
export function maxFds(text: string): number | null {
  const m = /^Max open files\s+(\d+)/m.exec(text);
  return m === null ? null : Number(m[1]);
}

function readMaxFds(proc: string): number | null {
  try {
    return maxFds(readFileSync(`${proc}/limits`, 'utf8'));
  } catch {
    return null;
  }
}

/** Open file descriptors: the entries of /proc/self/fd less the one reading it. */
function openFds(proc: string): number | null {
  try {
    return readdirSync(`${proc}/fd`).length - 1;
  } catch {
    return null;
  }
}

/** process._getActiveHandles is undocumented (prom-client reads it too): typed here, and
 * skipped if a Node release drops it. */
function activeHandles(): readonly object[] | null {
  const get = (process as unknown as { _getActiveHandles?: () => object[] })._getActiveHandles;
  return typeof get === 'function' ? get.call(process) : null;
}

export interface ProcessMetricsOptions {
  /** The event-loop window, ms (tests shorten it). */
  readonly windowMs?: number;
  /** Where the process's /proc entries are (tests name a missing one: a system without). */
  readonly proc?: string;
}

export class ProcessMetrics {
  private readonly cpuUser: CounterChild;
  private readonly cpuSystem: CounterChild;
  private readonly cpu: CounterChild;
  private readonly gauges = new Map<string, Gauge>();
  private readonly handles: Gauge;
  private readonly resources: Gauge;
  private readonly heapSpaces: [Gauge, Gauge, Gauge];
  private readonly gcSeries = new Map<number, HistogramChild>();
  private readonly gcObserver: PerformanceObserver;
  private readonly loop: IntervalHistogram;
  private readonly rotation: NodeJS.Timeout;
  /** The last complete window (null during the first). */
  private lastWindow: LoopWindow | null = null;
  private lag = 0;
  private readonly startSeconds = Date.now() / 1000 - process.uptime();
  private readonly proc: string;
  private readonly maxFds: number | null;
  private readonly linux: boolean;

  constructor(r: Registry, options: ProcessMetricsOptions = {}) {
    this.proc = options.proc ?? '/proc/self';
    this.maxFds = readMaxFds(this.proc);
    this.linux = procStatus(this.proc) !== null;
    const counter = (name: string, help: string): CounterChild => r.register(new Counter(name, help)).child();
    const gauge = (name: string, help: string, labels: readonly string[] = []): Gauge => {
      const g = r.register(new Gauge(name, help, labels));
      this.gauges.set(name, g);
      return g;
    };
    this.cpuUser = counter('process_cpu_user_seconds_total', 'Total user CPU time spent in seconds.');
    this.cpuSystem = counter('process_cpu_system_seconds_total', 'Total system CPU time spent in seconds.');
    this.cpu = counter('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.');
    gauge('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.');
    gauge('process_resident_memory_bytes', 'Resident memory size in bytes.');
    if (this.linux) {
      gauge('process_virtual_memory_bytes', 'Virtual memory size in bytes.');
      gauge('process_heap_bytes', 'Process heap size in bytes.');
      gauge('process_open_fds', 'Number of open file descriptors.');
    }
    if (this.maxFds !== null) gauge('process_max_fds', 'Maximum number of open file descriptors.');
    gauge('nodejs_eventloop_lag_seconds', 'Lag of event loop in seconds (a setImmediate started at the scrape).');
    for (const figure of LOOP_FIGURES) {
      gauge(
        `nodejs_eventloop_lag_${figure}_seconds`,
        `${LOOP_HELP[figure]} in the last complete ${(options.windowMs ?? WINDOW_MS) / 1000} s window.`,
      );
    }
    this.handles = gauge(
      'nodejs_active_handles',
      'Number of active libuv handles grouped by handle type. Every handle type is C++ class name.',
      ['type'],
    );
    this.resources = gauge(
      'nodejs_active_resources',
      'Number of active resources that are currently keeping the event loop alive, grouped by async resource type.',
      ['type'],
    );
    gauge('nodejs_heap_size_total_bytes', 'Process heap size from Node.js in bytes.');
    gauge('nodejs_heap_size_used_bytes', 'Process heap size used from Node.js in bytes.');
    gauge('nodejs_external_memory_bytes', 'Node.js external memory size in bytes.');
    this.heapSpaces = [
      gauge('nodejs_heap_space_size_total_bytes', 'Process heap space size total from Node.js in bytes.', ['space']),
      gauge('nodejs_heap_space_size_used_bytes', 'Process heap space size used from Node.js in bytes.', ['space']),
      gauge('nodejs_heap_space_size_available_bytes', 'Process heap space size available from Node.js in bytes.', [
        'space',
      ]),
    ];
    const [major = '', minor = '', patch = ''] = process.versions.node.split('.');
    r.register(new Gauge('nodejs_version_info', 'Node.js version info.', ['version', 'major', 'minor', 'patch'])).set(
      [process.version, major, minor, patch],
      1,
    );
    const gc = r.register(
      new Histogram(
        'nodejs_gc_duration_seconds',
        'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
        ['kind'],
        GC_BUCKETS,
      ),
    );
    for (const [kind, name] of GC_KINDS) this.gcSeries.set(kind, gc.child(name));
    this.gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        // `detail.kind` (Node >= 16) is missing from this @types/node's PerformanceEntry.
        const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
        if (kind !== undefined) this.gcSeries.get(kind)?.observe(entry.duration / 1000);
      }
    });
    this.gcObserver.observe({ entryTypes: ['gc'] });
    this.loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    this.loop.enable();
    this.rotation = setInterval(() => {
      this.lastWindow = windowOf(this.loop);
      this.loop.reset();
    }, options.windowMs ?? WINDOW_MS);
    this.rotation.unref();
  }

  /** Measures nodejs_eventloop_lag_seconds as prom-client does: how late a setImmediate
   * started now runs. Awaited before collect(). */
  measureLag(): Promise<void> {
    const started = process.hrtime.bigint();
    return new Promise((resolve) => {
      setImmediate(() => {
        this.lag = Number(process.hrtime.bigint() - started) / 1e9;
        resolve();
      });
    });
  }

  private set(name: string, value: number): void {
    (this.gauges.get(name) as Gauge).set([], value);
  }

  /** Reads the figures now (called at each scrape; changes nothing another scrape sees). */
  collect(): void {
    const cpu = process.cpuUsage();
    this.cpuUser.value = cpu.user / 1e6;
    this.cpuSystem.value = cpu.system / 1e6;
    this.cpu.value = (cpu.user + cpu.system) / 1e6;
    this.set('process_start_time_seconds', Math.round(this.startSeconds));
    const memory = process.memoryUsage();
    const status = this.linux ? procStatus(this.proc) : null;
    this.set('process_resident_memory_bytes', memory.rss);
    if (status !== null) {
      this.set('process_virtual_memory_bytes', status.vsize);
      this.set('process_heap_bytes', status.data);
    }
    const fds = this.linux ? openFds(this.proc) : null;
    if (fds !== null) this.set('process_open_fds', fds);
    if (this.maxFds !== null) this.set('process_max_fds', this.maxFds);
    this.set('nodejs_eventloop_lag_seconds', this.lag);
    const loop = this.lastWindow ?? windowOf(this.loop); // the first window, as far as it got
    for (const figure of LOOP_FIGURES) this.set(`nodejs_eventloop_lag_${figure}_seconds`, loop[figure]);
    this.countByType(
      this.handles,
      activeHandles()?.map((h) => h.constructor.name),
    );
    this.countByType(this.resources, process.getActiveResourcesInfo());
    this.set('nodejs_heap_size_total_bytes', memory.heapTotal);
    this.set('nodejs_heap_size_used_bytes', memory.heapUsed);
    this.set('nodejs_external_memory_bytes', memory.external);
    for (const space of getHeapSpaceStatistics()) {
      const name = space.space_name.replace(/_space$/, '');
      this.heapSpaces[0].set([name], space.space_size);
      this.heapSpaces[1].set([name], space.space_used_size);
      this.heapSpaces[2].set([name], space.space_available_size);
    }
  }

  /** A count per type name (C++ class or async resource names: a bounded set); types no longer
   * present drop out. prom-client's `_total` gauges beside these are left out: promtool's lint
   * refuses `_total` on a gauge, and `sum(nodejs_active_handles)` is the same figure. */
  private countByType(family: Gauge, types: readonly string[] | undefined): void {
    family.clear();
    if (types === undefined) return;
    const counts = new Map<string, number>();
    for (const type of types) counts.set(type, (counts.get(type) ?? 0) + 1);
    for (const [type, count] of counts) family.set([type], count);
  }

  close(): void {
    clearInterval(this.rotation);
    this.loop.disable();
    this.gcObserver.disconnect();
  }
}
