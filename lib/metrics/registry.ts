/**
 * Counters, gauges and histograms, written out in the Prometheus text exposition format
 * (version 0.0.4: `# HELP`, `# TYPE`, one sample per line), by hand: the format is a page of
 * rules, and a client library would be the service's first runtime dependency.
 *
 * Every label value comes from the caller, so the caller alone decides that the set is bounded
 * (lib/metrics/service-metrics.ts: route names from the route table, status codes, modes).
 * A labelled series is a child object the hot path can keep: `counter.child('password').inc()`
 * costs one addition, and `histogram.child(...)` one Map lookup the first time.
 * @module
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';

/** A label value as the format wants it: backslash, double quote and line feed escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** HELP text: backslash and line feed escaped (quotes stay as they are). */
function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'));
}

/** A sample value: integers as integers, the infinities as the format spells them. */
export function formatValue(value: number): string {
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return Number.isNaN(value) ? 'NaN' : String(value);
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** One metric family: its name, help, type, label names and labelled series. */
abstract class Family<Child> {
  readonly name: string;
  readonly help: string;
  abstract readonly type: MetricType;
  private readonly labelNames: readonly string[];
  private readonly children = new Map<string, { values: readonly string[]; child: Child }>();

  constructor(name: string, help: string, labelNames: readonly string[] = []) {
    if (!NAME.test(name)) throw new Error(`bad metric name ${name}`);
    for (const label of labelNames) {
      if (!LABEL.test(label) || label.startsWith('__') || label === 'le') throw new Error(`bad label name ${label}`);
    }
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  protected abstract create(): Child;

  /** The series for these label values (in the order of the label names), made on first use. */
  child(...values: string[]): Child {
    const key = values.length === 1 ? values[0] : values.join('\u0000');
    let entry = this.children.get(key);
    if (entry === undefined) {
      if (values.length !== this.labelNames.length) {
        throw new Error(`${this.name} takes ${this.labelNames.length} label values, got ${values.length}`);
      }
      entry = { values: [...values], child: this.create() };
      this.children.set(key, entry);
    }
    return entry.child;
  }

  /** `{a="x",b="y"}` for a series, with `extra` (a histogram's `le`) last; '' without labels. */
  protected labels(values: readonly string[], extra?: string): string {
    const parts = this.labelNames.map((label, i) => `${label}="${escapeLabelValue(values[i])}"`);
    if (extra !== undefined) parts.push(extra);
    return parts.length === 0 ? '' : `{${parts.join(',')}}`;
  }

  /** Drops every series (for a family whose label values come and go, set afresh at each
   * scrape: the active handles by type). */
  clear(): void {
    this.children.clear();
  }

  protected abstract samples(values: readonly string[], child: Child, out: string[]): void;

  /** The family's lines; a family without any series is left out. */
  render(out: string[]): void {
    if (this.children.size === 0) return;
    out.push(`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`);
    for (const { values, child } of this.children.values()) this.samples(values, child, out);
  }
}

export interface CounterChild {
  value: number;
}

/** A value that only goes up (its name ends in `_total`). */
export class Counter extends Family<CounterChild> {
  readonly type = 'counter';

  constructor(name: string, help: string, labelNames: readonly string[] = []) {
    if (!name.endsWith('_total')) throw new Error(`a counter's name ends in _total: ${name}`);
    super(name, help, labelNames);
  }

  protected create(): CounterChild {
    return { value: 0 };
  }

  inc(values: readonly string[] = [], by = 1): void {
    this.child(...values).value += by;
  }

  protected samples(values: readonly string[], child: CounterChild, out: string[]): void {
    out.push(`${this.name}${this.labels(values)} ${formatValue(child.value)}`);
  }
}

export interface GaugeChild {
  value: number;
}

/** A value that goes up and down, usually set just before the metrics are written. */
export class Gauge extends Family<GaugeChild> {
  readonly type = 'gauge';

  protected create(): GaugeChild {
    return { value: 0 };
  }

  set(values: readonly string[], value: number): void {
    this.child(...values).value = value;
  }

  protected samples(values: readonly string[], child: GaugeChild, out: string[]): void {
    out.push(`${this.name}${this.labels(values)} ${formatValue(child.value)}`);
  }
}

/** One series of a histogram: a count per bucket (not cumulative until written), sum, count. */
export class HistogramChild {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  private readonly bounds: readonly number[];

  constructor(bounds: readonly number[]) {
    this.bounds = bounds;
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    if (i < bounds.length) this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

/** Observations counted into buckets with upper bounds (`le`), plus their sum and count. */
export class Histogram extends Family<HistogramChild> {
  readonly type = 'histogram';
  readonly bounds: readonly number[];
  private readonly le: readonly string[];

  constructor(name: string, help: string, labelNames: readonly string[], bounds: readonly number[]) {
    super(name, help, labelNames);
    for (let i = 1; i < bounds.length; i++) {
      if (!(bounds[i] > bounds[i - 1])) throw new Error(`${name}: bucket bounds must increase`);
    }
    this.bounds = [...bounds];
    this.le = bounds.map((b) => `le="${formatValue(b)}"`);
  }

  protected create(): HistogramChild {
    return new HistogramChild(this.bounds);
  }

  protected samples(values: readonly string[], child: HistogramChild, out: string[]): void {
    let cumulative = 0;
    for (let i = 0; i < this.le.length; i++) {
      cumulative += child.counts[i];
      out.push(`${this.name}_bucket${this.labels(values, this.le[i])} ${formatValue(cumulative)}`);
    }
    out.push(`${this.name}_bucket${this.labels(values, 'le="+Inf"')} ${formatValue(child.count)}`);
    out.push(`${this.name}_sum${this.labels(values)} ${formatValue(child.sum)}`);
    out.push(`${this.name}_count${this.labels(values)} ${formatValue(child.count)}`);
  }
}

/** The families of one process, written in the order they were registered. */
export class Registry {
  private readonly families: Family<unknown>[] = [];
  private readonly names = new Set<string>();

  register<F extends Family<unknown>>(family: F): F {
    if (this.names.has(family.name)) throw new Error(`metric ${family.name} registered twice`);
    this.names.add(family.name);
    this.families.push(family);
    return family;
  }

  /** The whole exposition, ending in a line feed. */
  render(): string {
    const out: string[] = [];
    for (const family of this.families) family.render(out);
    return out.length === 0 ? '' : `${out.join('\n')}\n`;
  }
}

/** The media type of the text format, for the Content-Type of /metrics. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
