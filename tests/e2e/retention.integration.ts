/**
 * What the server process keeps once its requests are over (docs/audit.md, claims 5 and 8):
 * the single file is started with `--heapsnapshot-signal`, answers requests carrying a valid
 * key and a wrong one over keep-alive connections, the connections close, and a heap snapshot
 * is taken (V8 collects all garbage first, so it holds what is still reachable). Neither key,
 * nor any generated value, may be among its strings. The server knows the valid key only as
 * the SHA-256 digest in its key file.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, startServer, type RunningServer } from '../helpers/server.ts';

const SINGLE_FILE = join(ROOT, 'dist', 'credential-generator.mjs');
const dir = mkdtempSync(join(tmpdir(), 'cg-retention-'));
const hex = (bytes: number): string => createHash('sha256').update(String(Math.random())).digest('hex').slice(0, bytes);

/** Keys held by the test as parts, so the whole key string lives only in requests in flight. */
const VALID = ['retention-', hex(24)] as const;
const WRONG = ['retention-', hex(24)] as const;

/** POST /generate on a keep-alive agent; the generated values come back. */
function generate(
  url: string,
  agent: Agent,
  key: readonly string[],
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/generate`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': key.join('') } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('after its requests, the server process holds no presented key and no generated value', () => {
  let server: RunningServer;

  before(async () => {
    const file = join(dir, 'keys.json');
    const digest = createHash('sha256').update(VALID.join('')).digest('hex');
    const record = { id: 'Rtn0Test', holder: 'retention test', created: new Date().toISOString(), revoked: null };
    writeFileSync(file, JSON.stringify({ version: 1, keys: [{ ...record, sha256: digest }] }), { mode: 0o600 });
    server = await startServer({
      keysFile: file,
      cwd: dir,
      rateLimitPerMinute: 100_000,
      command: [process.execPath, '--heapsnapshot-signal=SIGUSR2', SINGLE_FILE],
    });
  });

  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds neither key nor any of 400 generated values among the heap snapshot strings', async () => {
    const values: string[] = [];
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    for (let i = 0; i < 10; i++) {
      for (const body of ['{"mode":"password","count":20}', '{"mode":"passphrase","count":20}']) {
        const ok = await generate(server.url, agent, VALID, body);
        assert.equal(ok.status, 200);
        for (const r of (JSON.parse(ok.text) as { results: { value: string }[] }).results) values.push(r.value);
      }
      assert.equal((await generate(server.url, agent, WRONG, '{"mode":"password"}')).status, 401);
    }
    agent.destroy();
    process.kill(server.pid, 'SIGUSR2');
    // node prints nothing when the snapshot is written: poll until the file parses whole.
    let snapshot: { strings: string[] } | null = null;
    for (let tries = 0; snapshot === null; tries++) {
      const name = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot'));
      if (name !== undefined) {
        try {
          snapshot = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { strings: string[] };
        } catch {
          // still being written
        }
      }
      assert.ok(tries < 600, 'no heap snapshot within 60 s');
      if (snapshot === null) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(snapshot.strings.length > 10_000, 'a real snapshot');
    const strings = snapshot.strings;
    assert.ok(strings.includes('Rtn0Test'), 'the key file was read: its id is held, for the log');
    assert.equal(strings.filter((s) => s.includes(VALID.join(''))).length, 0, 'the valid key is held');
    assert.equal(strings.filter((s) => s.includes(WRONG.join(''))).length, 0, 'the wrong key is held');
    // Values would sit in a reply, a log line or a cache: any string up to 64 KB is searched.
    assert.equal(values.length, 400);
    const searched = strings.filter((s) => s.length >= 8 && s.length <= 65_536);
    assert.deepEqual(
      values.filter((v) => searched.some((s) => s.includes(v))),
      [],
      'generated values still held',
    );
  });
});
