/**
 * Issue 7, faults on the real server process (fast versions; the soak repeats them bigger):
 * - 1,000 clients abort mid-body (FIN and RST, mid-headers, mid-body, mid-chunk, after
 *   Expect): no crash, open fds back to the baseline, RSS back near it (read from /proc; the
 *   server exposes nothing for this);
 * - SIGTERM under load: in-flight slow-body requests are answered, new connections refused,
 *   exit 0 within 10 s;
 * - key file chaos under load: truncated, invalid JSON, invalid schema, deleted, invalid by
 *   rename: the last good keys keep working with one clear log line each; then a good file
 *   by rename wins within 2 s.
 * Every generated value seen is then searched for in the servers' output and in every file
 * written meanwhile: 0 hits.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { abortsMidBody, chaosKeys, keyFileChaos, sigtermUnderLoad } from '../helpers/chaos.ts';
import { Seen } from '../helpers/hardening-kit.ts';
import { randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';

const seen = new Seen();
const outputs: RunningServer[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cg-h7-faults-'));

after(() => {
  const scanned = seen.assertNowhere(outputs.map((s) => s.output()));
  process.stdout.write(`faults leak check: ${JSON.stringify(scanned)}\n`);
  rmSync(dir, { recursive: true, force: true });
});

describe('faults', () => {
  it('1,000 clients aborting mid-body: no crash, fds and RSS back to baseline', async () => {
    const key = randomApiKey();
    seen.add(key);
    const server = await startServer({
      apiKey: key,
      rateLimitPerMinute: 1_000_000,
      env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect-port=0`.trim() },
    });
    outputs.push(server);
    try {
      const f = await abortsMidBody(server, key, 1_000, seen, { rssSlackKb: 10_240 });
      process.stdout.write(`aborts: ${JSON.stringify(f)}\n`);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it('SIGTERM under load: in-flight requests answered, new connections refused, exit 0 within 10 s', async () => {
    const key = randomApiKey();
    seen.add(key);
    const server = await startServer({ apiKey: key, rateLimitPerMinute: 1_000_000 });
    outputs.push(server);
    const f = await sigtermUnderLoad(server, key, seen, { inFlight: 20, lanes: 8 });
    process.stdout.write(`sigterm: ${JSON.stringify(f)}\n`);
    assert.ok(f.loadAnswered > 0);
  });

  it('key file chaos under load: the last good keys keep working, each event logged, the next good file wins', async () => {
    const keys = chaosKeys(dir);
    seen.add(keys.a.key);
    seen.add(keys.b.key);
    const server = await startServer({ keysFile: keys.file, rateLimitPerMinute: 1_000_000 });
    outputs.push(server);
    try {
      const f = await keyFileChaos(server, keys, seen, { lanes: 4 });
      process.stdout.write(`key chaos: ${JSON.stringify(f)}\n`);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});
