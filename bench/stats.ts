/**
 * Pure helpers of the benchmark: medians, ratios of paired rounds, the A/B order of a round,
 * and the parsers of wrk's and /proc's text. No timing, no I/O: tests/bench covers them.
 * @module
 */

export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

/** Median of a non-empty list (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of an empty list');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) throw new RangeError('summary of an empty list');
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { median: median(values), min, max, n: values.length };
}

/** A summary with the distribution-free 95 % confidence interval of its median. */
export interface IntervalSummary extends Summary {
  /** The interval's ends: order statistics of the values (min and max below 6 values, where no
   * pair of order statistics covers 95 %). */
  readonly low: number;
  readonly high: number;
}

/**
 * The 1-based rank k of the order statistics x(k) and x(n+1-k) that bound the median of n
 * values with at least `confidence`: the largest k with P(Binomial(n, 1/2) < k) <= (1 -
 * confidence) / 2, as each value falls below the true median with probability 1/2 (a sign
 * test; no assumption about the distribution). 1 (min and max) when even those fall short.
 */
export function medianIntervalRank(n: number, confidence = 0.95): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError('medianIntervalRank: n must be a positive integer');
  const tail = (1 - confidence) / 2;
  let k = 1;
  // P(X < k + 1) = P(X <= k), summed term by term: C(n, i) / 2^n
  let term = 0.5 ** n; // C(n, 0) / 2^n
  let below = term; // P(X <= 0)
  for (let i = 1; below <= tail && i < n; i++) {
    k = i;
    term = (term * (n - i + 1)) / i;
    below += term;
  }
  return k;
}

/** `summarize`, with the 95 % interval of the median. */
export function summarizeWithInterval(values: readonly number[], confidence = 0.95): IntervalSummary {
  const s = summarize(values);
  const sorted = [...values].sort((a, b) => a - b);
  const k = medianIntervalRank(values.length, confidence);
  return { ...s, low: sorted[k - 1], high: sorted[values.length - k] };
}

/** "1.23x (1.10-1.40)": the median and its 95 % interval. */
export function formatInterval(s: IntervalSummary, digits = 2): string {
  return `${s.median.toFixed(digits)}x (${s.low.toFixed(digits)}-${s.high.toFixed(digits)})`;
}

/** Per-round ratios a[i] / b[i] of two paired series (same round, same conditions). */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  if (a.length !== b.length) throw new RangeError(`paired series differ in length (${a.length} vs ${b.length})`);
  return a.map((x, i) => x / b[i]);
}

/**
 * The order in which the contenders run in round `round`: forwards on even rounds, backwards
 * on odd ones, so no contender always runs first (warm caches, turbo, a neighbour's burst).
 */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  return round % 2 === 0 ? [...items] : [...items].reverse();
}

/** Whether every contender starts as a new process before `round` (0-based): after each
 * `roundsPerProcess` rounds, never before the first. */
export function startsAfresh(round: number, roundsPerProcess: number): boolean {
  return round > 0 && round % roundsPerProcess === 0;
}

/** "1.23x (1.10-1.40)" for a ratio summary. */
export function formatRatio(s: Summary, digits = 2): string {
  return `${s.median.toFixed(digits)}x (${s.min.toFixed(digits)}-${s.max.toFixed(digits)})`;
}

/** 12345.6 -> "12.3k", 1234567 -> "1.23M". */
export function formatCount(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(2)}k`;
  return n.toFixed(n >= 100 ? 0 : 1);
}

export type Comparison = '>=' | '<=';

export interface Target {
  readonly name: string;
  readonly comparison: Comparison;
  readonly bound: number;
  /** The figure compared: the median of the paired ratios, or an absolute value. */
  readonly value: number;
}

export function targetMet(t: Pick<Target, 'comparison' | 'bound' | 'value'>): boolean {
  return t.comparison === '>=' ? t.value >= t.bound : t.value <= t.bound;
}

// --- wrk ---------------------------------------------------------------------------------

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly rps: number;
  /** Latency percentiles in milliseconds. */
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly non2xx: number;
}

/** wrk prints durations as 812.00us, 1.25ms, 2.10s or 1.00m. */
export function parseWrkDuration(text: string): number {
  const m = /^([0-9.]+)(us|ms|s|m)$/.exec(text.trim());
  if (m === null) throw new Error(`not a wrk duration: ${JSON.stringify(text)}`);
  const v = Number(m[1]);
  switch (m[2]) {
    case 'us':
      return v / 1000;
    case 'ms':
      return v;
    case 's':
      return v * 1000;
    default:
      return v * 60_000;
  }
}

/** Reads `wrk --latency` output. Throws if a field it needs is missing. */
export function parseWrk(out: string): LoadResult {
  const total = /([0-9]+) requests in ([0-9.]+)(us|ms|s|m)/.exec(out);
  const rps = /Requests\/sec:\s*([0-9.]+)/.exec(out);
  const p50 = /^\s*50%\s+(\S+)/m.exec(out);
  const p99 = /^\s*99%\s+(\S+)/m.exec(out);
  if (total === null || rps === null || p50 === null || p99 === null) {
    throw new Error(`unexpected wrk output:\n${out}`);
  }
  let errors = 0;
  const socketErrors = /Socket errors: connect ([0-9]+), read ([0-9]+), write ([0-9]+), timeout ([0-9]+)/.exec(out);
  if (socketErrors !== null) errors = socketErrors.slice(1).reduce((sum, v) => sum + Number(v), 0);
  const non2xx = /Non-2xx or 3xx responses:\s*([0-9]+)/.exec(out);
  return {
    requests: Number(total[1]),
    seconds: parseWrkDuration(`${total[2]}${total[3]}`) / 1000,
    rps: Number(rps[1]),
    p50: parseWrkDuration(p50[1]),
    p99: parseWrkDuration(p99[1]),
    errors,
    non2xx: non2xx === null ? 0 : Number(non2xx[1]),
  };
}

// --- /proc -------------------------------------------------------------------------------

/** utime + stime (fields 14 and 15, in clock ticks) of a /proc/<pid>/stat line. The command
 * name (field 2) may hold spaces and parentheses, so fields are counted after the last ')'. */
export function cpuTicksOfStat(stat: string): number {
  const close = stat.lastIndexOf(')');
  if (close === -1) throw new Error('not a /proc/<pid>/stat line');
  const fields = stat
    .slice(close + 2)
    .trim()
    .split(/\s+/); // fields[0] is field 3 (state)
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error('no utime/stime in /proc/<pid>/stat');
  return utime + stime;
}

/** VmRSS of a /proc/<pid>/status text, in bytes. */
export function rssOfStatus(status: string): number {
  const m = /^VmRSS:\s+([0-9]+) kB/m.exec(status);
  if (m === null) throw new Error('no VmRSS in /proc/<pid>/status');
  return Number(m[1]) * 1024;
}

/** The n-th distinct loopback address, skipping 127.0.0.0/24 (ours and the servers') and
 * every .0 and .255 host byte: 127.x.y.z with x >= 1. n = 0 .. 16,387,063. */
export function loopbackAddress(n: number): string {
  if (!Number.isInteger(n) || n < 0) throw new RangeError('loopbackAddress: n must be a non-negative integer');
  const z = (n % 254) + 1;
  const rest = Math.floor(n / 254);
  const y = rest % 256;
  const x = Math.floor(rest / 256) + 1;
  if (x > 254) throw new RangeError('loopbackAddress: out of addresses');
  return `127.${x}.${y}.${z}`;
}
