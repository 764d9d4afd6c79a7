/**
 * One JSON object per line on stdout (DECISIONS.md, logs). Callers pass only fields that are
 * safe to log: the request log carries method, route name, status, duration, key id and a
 * masked address, never a key, a body or a generated value.
 *
 * Off the hot path: process.stdout.write is a synchronous syscall for files and pipes on
 * Linux, so lines are collected and written once per event-loop turn (setImmediate), and
 * flush() writes what is left before the process exits.
 * @module
 */
import type { LogLevel } from './config.ts';

const RANK: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };

export type Fields = Record<string, string | number | boolean | null | undefined>;
export type Sink = (text: string) => void;

/** One request's line, in the order it is written. */
export interface RequestLine {
  method: string;
  route: string;
  status: number;
  ms: number;
  key: string | null;
  client: string;
}

export class Logger {
  private readonly rank: number;
  private readonly sink: Sink;
  private pending = '';
  private scheduled = false;
  private lastMs = 0;
  private lastTime = '';
  private readonly flushSoon = (): void => this.flush();
  private readonly now: () => number;

  /** `now` (epoch milliseconds) is injectable so tests can pin the `time` field. */
  constructor(level: LogLevel, sink: Sink = (text) => void process.stdout.write(text), now: () => number = Date.now) {
    this.rank = RANK[level];
    this.sink = sink;
    this.now = now;
  }

  get infoEnabled(): boolean {
    return this.rank >= RANK.info;
  }

  get debugEnabled(): boolean {
    return this.rank >= RANK.debug;
  }

  /** ISO time, formatted once per millisecond however many lines share it. */
  private time(): string {
    const now = this.now();
    if (now !== this.lastMs) {
      this.lastMs = now;
      this.lastTime = new Date(now).toISOString();
    }
    return this.lastTime;
  }

  private push(line: string): void {
    this.pending += line;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushSoon);
    }
  }

  /** Writes every collected line now. */
  flush(): void {
    this.scheduled = false;
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    this.sink(text);
  }

  private write(level: LogLevel, msg: string, fields?: Fields): void {
    // JSON.stringify escapes control characters, so a value can never forge a second line.
    this.push(`${JSON.stringify({ time: this.time(), level, msg, ...fields })}\n`);
  }

  error(msg: string, fields?: Fields): void {
    if (this.rank >= RANK.error) this.write('error', msg, fields);
  }

  /** Something an operator should act on that does not stop the service (a missing key, a
   * shared store that went away). */
  warn(msg: string, fields?: Fields): void {
    if (this.rank >= RANK.warn) this.write('warn', msg, fields);
  }

  info(msg: string, fields?: Fields): void {
    if (this.rank >= RANK.info) this.write('info', msg, fields);
  }

  debug(msg: string, fields?: Fields): void {
    if (this.rank >= RANK.debug) this.write('debug', msg, fields);
  }

  /** The per-request line (info). Same JSON as info('request', ...), built by hand because it
   * runs for every request; every value goes through JSON.stringify except the numbers. */
  request(r: RequestLine): void {
    if (this.rank < RANK.info) return;
    this.push(
      `{"time":"${this.time()}","level":"info","msg":"request","method":${JSON.stringify(r.method)},"route":${JSON.stringify(r.route)},"status":${r.status},"ms":${r.ms},"key":${r.key === null ? 'null' : JSON.stringify(r.key)},"client":${JSON.stringify(r.client)}}\n`,
    );
  }
}
