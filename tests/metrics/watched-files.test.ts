/**
 * Issue 41, item 6: credential_generator_watched_file_state says, for each watched file, whether
 * it is in use as it is now or its last change was refused (the last good version serving),
 * for as long as that lasts. The alerts read it (deploy/prometheus/alerts.yml, tested by
 * promtool in tests/deploy/monitoring.integration.ts); the reload counters they read before
 * only moved once, so a file that stayed bad went quiet after 15 minutes, and one refused
 * before the first scrape never showed.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sha256Hex } from '../../lib/keys/api-keys.ts';
import { fixturePair } from '../helpers/certificates.ts';
import { parseExposition, sample } from '../helpers/exposition.ts';
import { request } from '../helpers/http.ts';
import { startInProcess } from '../helpers/in-process.ts';
import { randomApiKey, type RunningServer } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-watched-files-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Replaces `file` by rename, mode 0600. */
function put(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

async function states(server: RunningServer): Promise<Record<string, string>> {
  const families = parseExposition((await request(server.metricsUrl!, '/metrics')).text);
  const out: Record<string, string> = {};
  for (const file of ['keys', 'policies', 'tls']) {
    const loaded = sample(families, 'credential_generator_watched_file_state', { file, state: 'loaded' });
    const rejected = sample(families, 'credential_generator_watched_file_state', { file, state: 'rejected' });
    if (loaded !== undefined)
      out[file] = loaded === 1 && rejected === 0 ? 'loaded' : rejected === 1 && loaded === 0 ? 'rejected' : '?';
  }
  return out;
}

describe('the state of each watched file', () => {
  it('is loaded at start; rejected while a refused change stays, however long; loaded again once fixed', async () => {
    const keys = join(dir, 'keys.json');
    const record = {
      id: 'AAAAAAAA',
      holder: 'watched',
      created: '2026-01-01T00:00:00Z',
      revoked: null,
      sha256: sha256Hex(randomApiKey()),
    };
    const goodKeys = JSON.stringify({ version: 1, keys: [record] });
    put(keys, goodKeys);
    const policies = join(dir, 'policies.json');
    const goodPolicies = JSON.stringify({ policies: { wifi: { mode: 'passphrase', options: { wordCount: 6 } } } });
    put(policies, goodPolicies);
    const ec = fixturePair(dir, 'served', 'ec');
    const rsa = fixturePair(dir, 'other', 'rsa');
    const server = await startInProcess({
      keysFile: keys,
      env: { METRICS_PORT: '0', POLICIES_FILE: policies, TLS_CERT_FILE: ec.cert, TLS_KEY_FILE: ec.key },
    });
    try {
      assert.deepEqual(await states(server), { keys: 'loaded', policies: 'loaded', tls: 'loaded' });
      let from = server.output().length;
      put(keys, '{ not json');
      put(policies, '{ not json');
      copyFileSync(rsa.key, `${ec.key}.tmp`);
      renameSync(`${ec.key}.tmp`, ec.key);
      await server.waitForOutput(/"msg":"key file rejected/, 30_000, from);
      await server.waitForOutput(/"msg":"policies file rejected/, 30_000, from);
      await server.waitForOutput(/"msg":"TLS certificate and key rejected/, 30_000, from);
      assert.deepEqual(await states(server), { keys: 'rejected', policies: 'rejected', tls: 'rejected' });
      // Nothing else happens: the state stays (a counter would not move again).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.deepEqual(await states(server), { keys: 'rejected', policies: 'rejected', tls: 'rejected' });
      from = server.output().length;
      put(keys, goodKeys);
      put(policies, goodPolicies);
      copyFileSync(rsa.cert, `${ec.cert}.tmp`);
      renameSync(`${ec.cert}.tmp`, ec.cert);
      await server.waitForOutput(/"msg":"keys reloaded"/, 30_000, from);
      await server.waitForOutput(/"msg":"policies reloaded"/, 30_000, from);
      await server.waitForOutput(/"msg":"TLS certificate reloaded"/, 30_000, from);
      assert.deepEqual(await states(server), { keys: 'loaded', policies: 'loaded', tls: 'loaded' });
    } finally {
      await server.stop();
    }
  });

  it('has no series for a file that is not configured', async () => {
    const server = await startInProcess({ env: { METRICS_PORT: '0' } });
    try {
      assert.deepEqual(await states(server), { keys: 'loaded' });
    } finally {
      await server.stop();
    }
  });
});
