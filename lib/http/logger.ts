/**
 * One JSON object per line on stdout (DECISIONS.md, logs). Callers pass only fields that are
 * safe to log: the request log carries method, route name, status, duration, key id and a
 * masked address, never a key, a body or a generated value. process.stdout.write is async for
 * pipes and files, so logging stays off the request's critical path.
 * @module
 */
import type { LogLevel } from './config.ts';

const RANK: Record<LogLevel, number> = { silent: 0, error: 1, info: 2, debug: 3 };

export type Fields = Record<string, string | number | boolean | null | undefined>;
export type Sink = (line: string) => void;

export class Logger {
  private readonly rank: number;
  private readonly sink: Sink;

  constructor(level: LogLevel, sink: Sink = (line) => void process.stdout.write(line)) {
    this.rank = RANK[level];
    this.sink = sink;
  }

  get infoEnabled(): boolean {
    return this.rank >= RANK.info;
  }

  get debugEnabled(): boolean {
    return this.rank >= RANK.debug;
  }

  private write(level: LogLevel, msg: string, fields?: Fields): void {
    // JSON.stringify escapes control characters, so a value can never forge a second line.
    this.sink(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  }

  error(msg: string, fields?: Fields): void {
    if (this.rank >= RANK.error) this.write('error', msg, fields);
  }

  info(msg: string, fields?: Fields): void {
    if (this.rank >= RANK.info) this.write('info', msg, fields);
  }

  debug(msg: string, fields?: Fields): void {
    if (this.rank >= RANK.debug) this.write('debug', msg, fields);
  }
}
