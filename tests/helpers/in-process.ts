/**
 * The whole service started in the test's own process (lib/server/main.ts, the composition
 * root server.ts runs), on a free loopback port, with the same environment rules as the
 * spawned server of ./server.ts and the same handle, so a suite that needs no process of its
 * own (no signal, no exit code, no second user, no stepped clock) runs in `npm test` in
 * milliseconds instead of a process start per server.
 *
 *   const server = await startInProcess({ apiKey: randomApiKey() });
 *   const res = await fetch(`${server.url}/health`);
 *   await server.stop(); // { code: 0 } after a drain with nothing cut
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { readFromProject } from '../../lib/http/assets.ts';
import { startService } from '../../lib/server/main.ts';
import { OutputWatch, ROOT, serverEnv, type ExitStatus, type RunningServer, type StartOptions } from './server.ts';

const fromProject = readFromProject(ROOT);
const copies = new Map<string, Buffer | null>();
const BROTLI_FAST = { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } };

/** The project's files as the service reads them (readFromProject), and for a file the build
 * leaves uncompressed (spec/'s documents, some 270 KB) its `.br` and `.gz` copies made here once
 * a test process: each of the many services the suites start then loads them as it loads the
 * page's built copies, instead of compressing them again (about 70 ms a start). The home page is
 * compressed at every load whatever is beside it, and tests/http/app.test.ts loads the project
 * without these copies. */
function readAsset(file: string): Buffer | null {
  const found = fromProject(file);
  const coded = /^(.+)\.(br|gz)$/.exec(file);
  if (found !== null || coded === null) return found;
  let copy = copies.get(file);
  if (copy === undefined) {
    const body = fromProject(coded[1]);
    copy = body === null ? null : coded[2] === 'br' ? brotliCompressSync(body, BROTLI_FAST) : gzipSync(body);
    copies.set(file, copy);
  }
  return copy;
}

export type InProcessOptions = Omit<StartOptions, 'command' | 'user' | 'steppedClock' | 'startTimeoutMs'>;

export async function startInProcess(options: InProcessOptions = {}): Promise<RunningServer> {
  let scratch: string | null = null;
  const scratchDir = (): string => (scratch ??= mkdtempSync(join(tmpdir(), 'cg-inprocess-')));
  const env = serverEnv(options, scratchDir);
  const watch = new OutputWatch();
  const service = await startService({
    env,
    cwd: options.cwd ?? ROOT,
    readAsset,
    keysCommand: 'credential-generator keys',
    sink: (text) => {
      watch.append(text);
    },
  });
  service.logger.flush();
  let stopping: Promise<ExitStatus> | null = null;
  let exit: (status: ExitStatus) => void = () => undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    exit = resolve;
  });
  const stop = (): Promise<ExitStatus> =>
    (stopping ??= service.stop().then((clean) => {
      service.logger.flush();
      if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
      const status = { code: clean ? 0 : 1, signal: null };
      exit(status);
      return status;
    }));
  const waitForOutput = (pattern: RegExp, timeoutMs?: number, from?: number): Promise<string> =>
    watch.waitFor(pattern, timeoutMs, from);
  return {
    url: service.url,
    port: service.address.port,
    metricsUrl: service.metricsUrl,
    pid: process.pid,
    output: () => {
      service.logger.flush();
      return watch.text;
    },
    waitForOutput,
    setClock: () => Promise.reject(new Error('a stepped clock needs the spawned server (startServer)')),
    stop,
    exited,
  };
}
