/**
 * One JSON object per line on stdout (docs/decisions.md, Headers, logs, home page). Callers
 * pass only fields that are safe to log: the request log carries the request id, method, route
 * name, status, duration, key id, a masked address and, for an error, its reason and field,
 * never a key, a body or a generated value.
 *
 * Off the critical path: a write to stdout costs a syscall and Node's stream machinery (more
 * than the rest of the request log: docs/benchmark.md, The request log in byte batches), so
 * lines are collected and written in batches: when 16 KB are pending, else by a timer at most
 * 100 ms after the first pending line. flush() writes what is left, and the server calls it on
 * every exit (process 'exit' fires for signals handled, process.exit and uncaught errors), so
 * nothing is lost when the process ends; a SIGKILL loses at most the last 100 ms.
 *
 * A batch is bytes, not a string: each line is copied into one reused buffer as it is logged,
 * so the line's string dies with its request; pending strings outlived V8's young-generation
 * collections and grew the heap under load (the same section).
 * @module
 */

import { escapeJsonText } from './shown-text.ts';

export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';
export const LOG_LEVELS: readonly LogLevel[] = ['silent', 'error', 'warn', 'info', 'debug'];

/** A batch is written at this size, or FLUSH_MS after its first line, whichever comes first. */
const FLUSH_BYTES = 16_384;
const FLUSH_MS = 100;
/** Room for a batch just under FLUSH_BYTES plus any line of up to 5,461 UTF-16 units (3 bytes
 * each at most); a longer line is written on its own. */
const BATCH_ROOM = 2 * FLUSH_BYTES;

const RANK: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };

/** Distinct values the request line keeps quoted (methods, routes, key ids, masked addresses,
 * reasons); past this many the cache starts over, so memory stays bounded whatever clients send. */
const QUOTED_VALUES = 4096;

/** A duration rounded to hundredths, as JSON.stringify writes that number (`12`, `12.5`,
 * `12.05`), from integers: a double's shortest decimal costs several times as much. */
export function hundredthsText(ms: number): string {
  const h = Math.round(ms * 100);
  if (!Number.isSafeInteger(h) || h < 0) return JSON.stringify(h / 100);
  const whole = Math.floor(h / 100);
  const rest = h - whole * 100;
  if (rest === 0) return `${whole}`;
  if (rest % 10 === 0) return `${whole}.${rest / 10}`;
  return `${whole}.${rest < 10 ? '0' : ''}${rest}`;
}

/** A list is for a few public names at most (the ids a key reload changed). */
export type Fields = Record<string, string | number | boolean | null | undefined | readonly string[]>;
export type Sink = (text: string) => void;

/** One request's line, in the order it is written. */
export interface RequestLine {
  /** The request id (lib/http/request-id.ts: base64url or a checked incoming id, nothing to escape). */
  id: string;
  method: string;
  route: string;
  status: number;
  ms: number;
  key: string | null;
  client: string;
  /** Why an error reply was sent (a fixed word, never the message), or null. */
  reason: string | null;
  /** The field at fault, as the error body names it, or null. */
  field: string | null;
}

export class Logger {
  private readonly rank: number;
  /** Writes `bytes` bytes of the batch (which is reused at once, so it must not be kept). */
  private readonly out: (batch: Buffer, bytes: number) => void;
  private readonly batch = Buffer.allocUnsafe(BATCH_ROOM);
  private used = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The second last formatted (epoch seconds; NaN, which no second equals, so the first line
   * formats) and its ISO text up to the milliseconds: `2026-11-30T01:02:03.`. */
  private lastSecond = Number.NaN;
  private secondText = '';
  /** Each distinct value of the request line as JSON text (see `quoted`). */
  private readonly quotes = new Map<string, string>();
  private readonly flushLater = (): void => {
    this.flush();
  };
  private readonly now: () => number;

  /** Lines go to stdout, or as text to `sink` (tests, in-process runs); `now` (epoch
   * milliseconds) is injectable so tests can pin the `time` field. */
  constructor(level: LogLevel, sink?: Sink, now: () => number = Date.now) {
    this.rank = RANK[level];
    // stdout gets a copy: a pipe may still hold what it was given when the batch refills.
    this.out =
      sink === undefined
        ? (batch, bytes) => void process.stdout.write(Buffer.from(batch.subarray(0, bytes)))
        : (batch, bytes) => {
            sink(batch.toString('utf8', 0, bytes));
          };
    this.now = now;
  }

  get infoEnabled(): boolean {
    return this.rank >= RANK.info;
  }

  get debugEnabled(): boolean {
    return this.rank >= RANK.debug;
  }

  /** The ISO time, as toISOString writes it: the text up to the second is formatted once a
   * second, the milliseconds appended (toISOString goes through V8's printf: docs/benchmark.md,
   * "The seventh pass", section 8). */
  private time(): string {
    const now = this.now();
    const second = Math.floor(now / 1000);
    if (second !== this.lastSecond) {
      this.lastSecond = second;
      this.secondText = new Date(second * 1000).toISOString().slice(0, -4); // "000Z" off
    }
    const ms = now - second * 1000;
    return `${this.secondText}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  }

  /** Queues one line: `json` (one JSON object) with what a reader could take for a line break
   * or a change of direction escaped (escapeJsonText), so a value can never forge a line. */
  private push(json: string): void {
    this.pushLine(`${escapeJsonText(json)}\n`);
  }

  /** Queues one line that holds nothing escapeJsonText would change. */
  private pushLine(line: string): void {
    if (line.length * 3 > BATCH_ROOM - this.used) {
      // Too long to be sure of room (a line is never split): after the batch, on its own.
      this.flush();
      const bytes = Buffer.from(line, 'utf8');
      this.out(bytes, bytes.length);
      return;
    }
    this.used += this.batch.write(line, this.used, 'utf8');
    if (this.used >= FLUSH_BYTES) this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(this.flushLater, FLUSH_MS);
      // Pending lines never keep the process alive: its exit handler flushes them.
      this.timer.unref();
    }
  }

  /** Writes every collected line now. */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.used === 0) return;
    const bytes = this.used;
    this.used = 0;
    this.out(this.batch, bytes);
  }

  private write(level: LogLevel, msg: string, fields?: Fields): void {
    this.push(JSON.stringify({ time: this.time(), level, msg, ...fields }));
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

  /** `value` as a JSON string, escaped as push escapes a line. The request line's values
   * repeat from request to request, so each distinct one goes through JSON.stringify and
   * escapeJsonText once (docs/benchmark.md, "The request path against the lean limit": the
   * log line). */
  private quoted(value: string): string {
    let text = this.quotes.get(value);
    if (text === undefined) {
      if (this.quotes.size >= QUOTED_VALUES) this.quotes.clear();
      text = escapeJsonText(JSON.stringify(value));
      this.quotes.set(value, text);
    }
    return text;
  }

  /** The per-request line (info). Same JSON as info('request', ...), and the same escapes,
   * built by hand because it runs for every request: every string value is JSON.stringify's
   * escaped by escapeJsonText (once per distinct value), except the id and the time, whose
   * characters need neither; reason and field only when there are any. So the line is not
   * scanned again as a whole. */
  request(r: RequestLine): void {
    if (this.rank < RANK.info) return;
    const reason = r.reason === null ? '' : `,"reason":${this.quoted(r.reason)}`;
    const field = r.field === null ? '' : `,"field":${escapeJsonText(JSON.stringify(r.field))}`;
    this.pushLine(
      `{"time":"${this.time()}","level":"info","msg":"request","id":"${r.id}","method":${this.quoted(r.method)},"route":${this.quoted(r.route)},"status":${r.status},"ms":${hundredthsText(r.ms)},"key":${r.key === null ? 'null' : this.quoted(r.key)},"client":${this.quoted(r.client)}${reason}${field}}\n`,
    );
  }
}
