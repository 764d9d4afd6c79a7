/**
 * Section 3: start-up time (spawn to the first 200 from GET /health) and idle RSS of the single
 * file against the bare server, and `npm start` against the single file run by node, all
 * pinned to core 0, started one after the other in an order that rotates by round; figures
 * are the per-round ratios real / bare and npm start / real.
 * @module
 */
import { performance } from 'node:perf_hooks';
import { freePort, httpRequest, rss, sleep, startServer, type ServerKind } from './procs.ts';
import { pairedRatios, roundOrder, summarize, type Summary } from './stats.ts';

export interface StartupOptions {
  readonly rounds: number;
  /** How long the server sits idle after its first /health before RSS is read. */
  readonly idleMs: number;
  readonly log: (line: string) => void;
}

export interface StartupSide {
  readonly startupMs: readonly number[];
  readonly idleRssBytes: readonly number[];
  readonly startup: Summary;
  readonly idleRss: Summary;
}

export interface StartupResult {
  readonly real: StartupSide;
  readonly bare: StartupSide;
  readonly npmStart: StartupSide;
  readonly ratios: { readonly startup: Summary; readonly idleRss: Summary; readonly npmStartVsReal: Summary };
}

const POLL_MS = 2;
const START_TIMEOUT_MS = 20_000;

/** Milliseconds from spawn to the first 200 of GET /health, polling every 2 ms. */
async function once(kind: ServerKind, idleMs: number): Promise<{ ms: number; rss: number }> {
  const port = await freePort();
  const server = startServer({
    kind,
    cpu: 0,
    port,
    apiKey: 'bench-startup-key-0123456789',
    bareBodies: { '/health': 15 },
  });
  const url = `http://127.0.0.1:${port}/health`;
  try {
    let ms = -1;
    let exited = false;
    server.listening.catch(() => (exited = true));
    while (ms < 0) {
      if (exited) await server.listening; // rethrows with the server's output
      if (performance.now() - server.spawnedAt > START_TIMEOUT_MS)
        throw new Error(`${kind} server: no 200 from /health in ${START_TIMEOUT_MS} ms`);
      try {
        const reply = await httpRequest(url, { timeoutMs: 1_000 });
        if (reply.status === 200) ms = performance.now() - server.spawnedAt;
      } catch {
        await sleep(POLL_MS); // not listening yet
      }
    }
    await sleep(idleMs);
    return { ms, rss: rss(server.pid) };
  } finally {
    await server.stop();
  }
}

export async function runStartup(options: StartupOptions): Promise<StartupResult> {
  const kinds = ['real', 'bare', 'npm-start'] as const satisfies readonly ServerKind[];
  const data: Record<(typeof kinds)[number], { ms: number[]; rss: number[] }> = {
    real: { ms: [], rss: [] },
    bare: { ms: [], rss: [] },
    'npm-start': { ms: [], rss: [] },
  };
  for (const kind of kinds) await once(kind, 0); // page caches warm for all before anything counts
  for (let round = 0; round < options.rounds; round++) {
    for (const kind of roundOrder(kinds, round)) {
      const r = await once(kind, options.idleMs);
      data[kind].ms.push(r.ms);
      data[kind].rss.push(r.rss);
    }
  }
  options.log('  start-up: done');
  const sideOf = (d: { ms: number[]; rss: number[] }): StartupSide => ({
    startupMs: d.ms,
    idleRssBytes: d.rss,
    startup: summarize(d.ms),
    idleRss: summarize(d.rss),
  });
  return {
    real: sideOf(data.real),
    bare: sideOf(data.bare),
    npmStart: sideOf(data['npm-start']),
    ratios: {
      startup: summarize(pairedRatios(data.real.ms, data.bare.ms)),
      idleRss: summarize(pairedRatios(data.real.rss, data.bare.rss)),
      npmStartVsReal: summarize(pairedRatios(data['npm-start'].ms, data.real.ms)),
    },
  };
}
