/**
 * Watching a file the running server reads (the key file, the policies file, the TLS pair):
 * polled with fs.watchFile (a stat every `pollMs`, not a read), which sees in-place writes and
 * write-then-rename alike, also for a file that does not exist yet.
 * @module
 */
import { statSync, unwatchFile, watchFile as pollFile, type Stats } from 'node:fs';

export interface FileWatch {
  /** Stops the polling and the recheck; safe to call twice. */
  close(): void;
}

/** The file's stat, or undefined when there is none. */
export function statOf(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

/** What identifies one version of a file: a rename-replace changes ino, an in-place write
 * mtime, ctime or size. 'missing' when there is no file. */
export function fileVersion(stats: Stats | undefined): string {
  return stats === undefined || stats.nlink === 0
    ? 'missing'
    : `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/**
 * Calls `onChange` with the file's stat (undefined: no file) each time a poll sees it change,
 * and once more 2 x `pollMs` + 50 ms after the start: fs.watchFile takes its baseline stat
 * asynchronously, so a change between the caller's first read and that stat would never be
 * reported. A call may so repeat a version the caller has seen: it compares fileVersion.
 */
export function watchFile(file: string, pollMs: number, onChange: (stats: Stats | undefined) => void): FileWatch {
  const listener = (curr: Stats): void => {
    onChange(curr.nlink === 0 ? undefined : curr);
  };
  pollFile(file, { interval: pollMs, persistent: false }, listener);
  let recheck: NodeJS.Timeout | null = setTimeout(
    () => {
      recheck = null;
      onChange(statOf(file));
    },
    2 * pollMs + 50,
  );
  recheck.unref();
  let open = true;
  return {
    close() {
      if (!open) return;
      open = false;
      unwatchFile(file, listener);
      if (recheck !== null) clearTimeout(recheck);
      recheck = null;
    },
  };
}
