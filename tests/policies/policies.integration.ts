/**
 * Named policies in a real server process: an invalid policy stops the start with one line
 * naming the policy and the field (exit 1, nothing listens); a running server watches the file,
 * keeps its last good set through a bad rewrite (logged, and shown by /ready), and takes a good
 * one without a restart.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchServer, randomApiKey, startServer } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-policies-int-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes the file as operators' tooling does: a temp file renamed over it. */
function write(file: string, content: unknown): void {
  const temp = `${file}.tmp`;
  writeFileSync(temp, JSON.stringify(content), { mode: 0o600 });
  renameSync(temp, file);
}

describe('policies: a real server process', () => {
  it('refuses to start on an invalid policy, in one line naming the policy and the field', async () => {
    const file = join(dir, 'invalid.json');
    write(file, {
      policies: { fine: { mode: 'password' }, 'too-short': { mode: 'password', options: { length: 6 } } },
    });
    const server = launchServer({ apiKey: randomApiKey(), env: { POLICIES_FILE: file } });
    const status = await server.exited;
    assert.equal(status.code, 1);
    const lines = server.output().trim().split('\n');
    assert.deepEqual(lines.slice(-1), [
      `configuration error: POLICIES_FILE ${file} policy "too-short", field options.length: options.length must be between 8 and 128`,
    ]);
    assert.doesNotMatch(server.output(), /listening on/);
  });

  it('refuses a policy under MIN_ENTROPY_BITS at start', async () => {
    const file = join(dir, 'weak.json');
    write(file, { policies: { pin: { mode: 'passphrase', options: { wordCount: 4 } } } });
    const server = launchServer({ apiKey: randomApiKey(), env: { POLICIES_FILE: file, MIN_ENTROPY_BITS: '64' } });
    assert.equal((await server.exited).code, 1);
    assert.match(
      server.output(),
      /policy "pin", field minBits: this service requires at least 64 bits; these options give 51\.70 bits\n$/,
    );
  });

  it('keeps the last good set through a bad rewrite (logged, shown by /ready) and takes a good one', async () => {
    const file = join(dir, 'watched.json');
    write(file, { policies: { wifi: { mode: 'passphrase', options: { wordCount: 6 } } } });
    const apiKey = randomApiKey();
    const server = await startServer({ apiKey, env: { POLICIES_FILE: file } });
    const post = async (body: unknown) => {
      const res = await fetch(`${server.url}/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const ready = async () => (await (await fetch(`${server.url}/ready`)).json()) as Record<string, unknown>;
    try {
      const first = await post({ mode: 'passphrase', policy: 'wifi' });
      assert.equal(first.status, 200);
      assert.deepEqual(await ready(), {
        status: 'ready',
        rateLimitStore: 'in-process',
        policies: { state: 'loaded', count: 1 },
      });

      let from = server.output().length;
      write(file, { policies: { wifi: { mode: 'passphrase', options: { wordCount: 2 } }, db: { mode: 'password' } } });
      await server.waitForOutput(/"msg":"policies file rejected; keeping the last good policies"/, undefined, from);
      const kept = await post({ mode: 'passphrase', policy: 'wifi' });
      assert.equal(kept.status, 200);
      assert.equal((kept.body.metadata as { wordCount: number }).wordCount, 6, 'the last good wifi');
      assert.equal((await post({ mode: 'password', policy: 'db' })).status, 400, 'nothing of the bad file');
      const stale = await ready();
      assert.equal(stale.status, 'ready');
      // A fixed word (U6); the reason in words is in the error log line only.
      assert.deepEqual(stale.policies, { state: 'stale', count: 1, reason: 'schema' });
      assert.match(
        server.output().slice(from),
        /"reason":"policy \\"wifi\\", field options.wordCount: options.wordCount must be between 4 and 8"/,
      );

      from = server.output().length;
      write(file, { policies: { wifi: { mode: 'passphrase', options: { wordCount: 7 } }, db: { mode: 'password' } } });
      await server.waitForOutput(/"msg":"policies reloaded"[^\n]*"policies":2/, undefined, from);
      const fresh = await post({ mode: 'passphrase', policy: 'wifi' });
      assert.equal((fresh.body.metadata as { wordCount: number }).wordCount, 7);
      assert.equal((await post({ mode: 'password', policy: 'db' })).status, 200);
      assert.deepEqual((await ready()).policies, { state: 'loaded', count: 2 });
      const listed = (await (await fetch(`${server.url}/generate`)).json()) as { policies: { name: string }[] };
      assert.deepEqual(
        listed.policies.map((p) => p.name),
        ['wifi', 'db'],
      );
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});
