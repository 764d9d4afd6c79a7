/**
 * A real Logger whose lines go to memory, with a wait for a line (an observable event, never a
 * sleep).
 *
 *   const log = captureLogger('warn');
 *   await log.waitFor(/answering again/);
 *   log.lines('warn'); // parsed JSON lines of that level
 */
import { Logger, type LogLevel } from '../../lib/log/logger.ts';

export interface CapturedLogger {
  readonly logger: Logger;
  lines(level?: string): Record<string, unknown>[];
  text(): string;
  /** Resolves once a line matches (checked as the logger flushes), rejects after timeoutMs.
   * With `from` (an earlier `text().length`), only lines written after that point count. */
  waitFor(pattern: RegExp, timeoutMs?: number, from?: number): Promise<void>;
}

export function captureLogger(level: LogLevel = 'warn'): CapturedLogger {
  let text = '';
  const waiters = new Set<() => void>();
  const logger = new Logger(level, (chunk) => {
    text += chunk;
    for (const wake of waiters) wake();
  });
  return {
    logger,
    text: () => text,
    lines(wanted?: string) {
      const all = text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      return wanted === undefined ? all : all.filter((line) => line.level === wanted);
    },
    waitFor(pattern, timeoutMs = 15_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (!pattern.test(text.slice(from))) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`timed out after ${timeoutMs} ms waiting for a log line matching ${pattern}; got:\n${text}`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}
