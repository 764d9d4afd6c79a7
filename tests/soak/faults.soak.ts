/**
 * Issue 7, faults at soak size: 10,000 clients aborting mid-body; SIGTERM with 100 slow-body
 * requests in flight and 16 clients generating flat out; key file chaos under 8 clients.
 * Same assertions as tests/e2e/faults.integration.ts.
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
const servers: RunningServer[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cg-h7-soak-'));

after(() => {
  const scanned = seen.assertNowhere(servers.map((s) => s.output()));
  process.stdout.write(`faults (soak) leak check: ${JSON.stringify(scanned)}\n`);
  rmSync(dir, { recursive: true, force: true });
});

describe('faults (soak)', () => {
  it('10,000 clients aborting mid-body: no crash, fds and RSS back to baseline', async () => {
    const key = randomApiKey();
    seen.add(key);
    const server = await startServer({
      apiKey: key,
      rateLimitPerMinute: 1_000_000,
      env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect-port=0`.trim() },
    });
    servers.push(server);
    try {
      const f = await abortsMidBody(server, key, 10_000, seen, { rssSlackKb: 10_240, lanes: 50 });
      process.stdout.write(`aborts (soak): ${JSON.stringify(f)}\n`);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it('SIGTERM with 100 requests in flight under load: all answered, new connections refused, exit 0 within 10 s', async () => {
    const key = randomApiKey();
    seen.add(key);
    const server = await startServer({ apiKey: key, rateLimitPerMinute: 1_000_000 });
    servers.push(server);
    const f = await sigtermUnderLoad(server, key, seen, { inFlight: 100, lanes: 16 });
    process.stdout.write(`sigterm (soak): ${JSON.stringify(f)}\n`);
  });

  it('key file chaos under 8 clients', async () => {
    const keys = chaosKeys(dir);
    seen.add(keys.a.key);
    seen.add(keys.b.key);
    const server = await startServer({ keysFile: keys.file, rateLimitPerMinute: 1_000_000 });
    servers.push(server);
    try {
      const f = await keyFileChaos(server, keys, seen, { lanes: 8 });
      process.stdout.write(
        `key chaos (soak): ${f.requests} requests ${JSON.stringify(f.byStatus)}, switch ${f.switchMs} ms, steps ${f.steps.map((s) => `${s.step} ${s.ms} ms`).join('; ')}\n`,
      );
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});
