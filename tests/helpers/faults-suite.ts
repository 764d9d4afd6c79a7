/**
 * The faults suite (issue 7) on the real server process, at one size: the integration run's
 * (tests/e2e/faults.integration.ts) or the soak's (tests/soak/faults.soak.ts), the same
 * assertions at both.
 * - Clients abort mid-body (FIN and RST, mid-headers, mid-body, mid-chunk, after Expect): no
 *   crash, open fds back to the baseline, RSS back near it (read from /proc; the server exposes
 *   nothing for this).
 * - SIGTERM under load: in-flight slow-body requests are answered, new connections refused,
 *   exit 0 within 10 s.
 * - Key file chaos under load: truncated, invalid JSON, invalid schema, deleted, invalid by
 *   rename: the last good keys keep working with one clear log line each; then a good file by
 *   rename wins within 2 s.
 * Every generated value seen is then searched for in the servers' output and in every file
 * written meanwhile: 0 hits.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { abortsMidBody, chaosKeys, keyFileChaos, sigtermUnderLoad } from './chaos.ts';
import { Seen } from './hardening-kit.ts';
import { randomApiKey, startServer, type RunningServer } from './server.ts';

export interface FaultsSize {
  /** The suite's name, and the prefix of its report lines. */
  readonly name: string;
  /** Clients aborting mid-body, and how many at once (the helper's default when not given). */
  readonly aborts: number;
  readonly abortLanes?: number;
  /** Slow-body requests in flight at SIGTERM, beside `sigtermLanes` clients generating. */
  readonly inFlight: number;
  readonly sigtermLanes: number;
  /** Clients generating while the key file changes. */
  readonly chaosLanes: number;
}

export function describeFaults(size: FaultsSize): void {
  const seen = new Seen();
  const servers: RunningServer[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'cg-faults-'));
  const report = (what: string, figures: unknown): void => {
    process.stdout.write(`${size.name} ${what}: ${JSON.stringify(figures)}\n`);
  };

  after(() => {
    report('leak check', seen.assertNowhere(servers.map((s) => s.output())));
    rmSync(dir, { recursive: true, force: true });
  });

  describe(size.name, () => {
    it(`${size.aborts.toLocaleString('en')} clients aborting mid-body: no crash, fds and RSS back to baseline`, async () => {
      const key = randomApiKey();
      seen.add(key);
      const server = await startServer({
        apiKey: key,
        rateLimitPerMinute: 1_000_000,
        env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect-port=0`.trim() },
      });
      servers.push(server);
      try {
        const lanes = size.abortLanes === undefined ? {} : { lanes: size.abortLanes };
        report('aborts', await abortsMidBody(server, key, size.aborts, seen, { rssSlackKb: 10_240, ...lanes }));
      } finally {
        assert.equal((await server.stop()).code, 0);
      }
    });

    it(`SIGTERM with ${size.inFlight} requests in flight under load: all answered, new connections refused, exit 0 within 10 s`, async () => {
      const key = randomApiKey();
      seen.add(key);
      const server = await startServer({ apiKey: key, rateLimitPerMinute: 1_000_000 });
      servers.push(server);
      const f = await sigtermUnderLoad(server, key, seen, { inFlight: size.inFlight, lanes: size.sigtermLanes });
      report('sigterm', f);
      assert.ok(f.loadAnswered > 0);
    });

    it(`key file chaos under ${size.chaosLanes} clients: the last good keys keep working, each event logged, the next good file wins`, async () => {
      const keys = chaosKeys(dir);
      seen.add(keys.a.key);
      seen.add(keys.b.key);
      const server = await startServer({ keysFile: keys.file, rateLimitPerMinute: 1_000_000 });
      servers.push(server);
      try {
        report('key chaos', await keyFileChaos(server, keys, seen, { lanes: size.chaosLanes }));
      } finally {
        assert.equal((await server.stop()).code, 0);
      }
    });
  });
}
