/**
 * Keys end to end: the operator CLI issues, replaces and revokes keys in a file of hashes;
 * the running server picks every change up within 2 s; a broken file keeps the last good
 * keys; no key at all is a 503; the API_KEY variable; start-up errors.
 *
 * "Picked up" is the server's "keys reloaded" line: the new keys are in use from then on, so
 * the tests wait for that line (an event) and then send one request each, instead of polling
 * with requests, whose own latency on a busy machine would count against the 2 s and whose
 * refusals would spend the failed-key bucket.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchServer, randomApiKey, ROOT, startServer, type RunningServer } from '../helpers/server.ts';
import { assertCommonHeaders, Ledger, post } from '../helpers/http.ts';

const ledger = new Ledger();
const outputs: (() => string)[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cg-keys-'));
const TSX = import.meta.resolve('tsx');

after(() => {
  for (const output of outputs) ledger.assertAbsentFrom(output());
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the operator CLI as an operator would: the program's `keys` command. */
function keys(file: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', TSX, join(ROOT, 'server.ts'), 'keys', ...args], {
      cwd: dir,
      env: { ...process.env, API_KEYS_FILE: file },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function issue(file: string, holder: string): Promise<{ key: string; id: string }> {
  const result = await keys(file, 'issue', '--holder', holder);
  assert.equal(result.code, 0, result.stderr);
  const key = result.stdout.trim();
  assert.match(key, /^cgk_[0-9A-Za-z]{8}_[0-9A-Za-z]{38}$/);
  assert.equal(result.stdout, `${key}\n`, 'stdout holds the key and nothing else');
  assert.ok(!result.stderr.includes(key), 'the key is printed once');
  ledger.add(key);
  return { key, id: key.slice(4, 12) };
}

/** The server's promise: a change to the key file is in use within this long. */
const PICKED_UP_MS = 2_000;

/**
 * Runs `change` (something that rewrites the key file) and waits for the server's next "keys
 * reloaded" line. Returns the ms from the end of `change` to that line (the poll is every
 * 500 ms, so well within PICKED_UP_MS even with a busy machine's timer delays).
 */
async function pickedUp(server: RunningServer, change: () => Promise<unknown> | void): Promise<number> {
  const from = server.output().length;
  await change();
  const changed = performance.now();
  await server.waitForOutput(/"msg":"keys reloaded"/, 30_000, from);
  return performance.now() - changed;
}

const status = async (url: string, key: string): Promise<number> => {
  const r = await post(url, key, { mode: 'password' });
  if (r.status === 200) ledger.addGenerated(r.json);
  return r.status;
};

describe('keys from the operator CLI, live', () => {
  const file = join(dir, 'keys.json');
  let server: RunningServer;
  let alice: { key: string; id: string };

  before(async () => {
    alice = await issue(file, 'alice');
    server = await startServer({ keysFile: file, rateLimitPerMinute: 100_000 });
    outputs.push(server.output);
  });
  after(async () => {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  });

  it('stores only id, holder, created, revoked and the SHA-256 of the key', () => {
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(alice.key));
    assert.ok(!text.includes(alice.key.slice(13)), 'not even the secret part');
    const data = JSON.parse(text) as { version: number; keys: Record<string, unknown>[] };
    assert.equal(data.version, 1);
    assert.deepEqual(Object.keys(data.keys[0]).sort(), ['created', 'holder', 'id', 'revoked', 'sha256']);
    assert.equal(data.keys[0].id, alice.id);
  });

  it('accepts an issued key and logs its id, never the key', async () => {
    assert.equal(await status(server.url, alice.key), 200);
    await server.waitForOutput(new RegExp(`"key":"${alice.id}"`));
  });

  it('picks up a newly issued key within 2 s, revokes one within 2 s, and replaces one', async () => {
    let bob!: { key: string; id: string };
    const issuedIn = await pickedUp(server, async () => (bob = await issue(file, 'bob')));
    assert.ok(issuedIn <= PICKED_UP_MS, `a new key took ${Math.round(issuedIn)} ms`);
    assert.equal(await status(server.url, bob.key), 200);

    const revokedIn = await pickedUp(server, async () => {
      const revoked = await keys(file, 'revoke', alice.id);
      assert.equal(revoked.code, 0, revoked.stderr);
    });
    assert.ok(revokedIn <= PICKED_UP_MS, `revocation took ${Math.round(revokedIn)} ms`);
    assert.equal(await status(server.url, alice.key), 401, 'the revoked key is refused');
    assert.equal(await status(server.url, bob.key), 200, 'the other key still works');

    let bob2 = '';
    const replacedIn = await pickedUp(server, async () => {
      const replaced = await keys(file, 'replace', bob.id);
      assert.equal(replaced.code, 0, replaced.stderr);
      bob2 = replaced.stdout.trim();
      ledger.add(bob2);
    });
    assert.ok(replacedIn <= PICKED_UP_MS, `replacement took ${Math.round(replacedIn)} ms`);
    assert.equal(await status(server.url, bob2), 200);
    assert.equal(await status(server.url, bob.key), 401, 'the replaced key stopped at once');

    const list = await keys(file, 'list');
    assert.equal(list.code, 0);
    assert.match(list.stdout, new RegExp(`${alice.id}\\s+alice\\s+\\S+\\s+revoked`));
    assert.match(list.stdout, new RegExp(`${bob.id}\\s+bob\\s+\\S+\\s+revoked`));
    assert.match(list.stdout, /\s+bob\s+\S+\s+active/);
    for (const key of [alice.key, bob.key, bob2]) assert.ok(!list.stdout.includes(key));
    bobNow = bob2;
  });

  let bobNow = '';

  it('keeps the last good keys when the file turns invalid, and logs it once', async () => {
    const good = readFileSync(file, 'utf8');
    // One bad version, put in place at once: written in place, the poll could also catch the
    // emptied file between truncate and write, a second bad version with a line of its own.
    writeFileSync(`${file}.broken`, '{"version":1,"keys":[{"id":"broken"', { mode: 0o600 });
    renameSync(`${file}.broken`, file);
    await server.waitForOutput(/key file rejected; keeping the last good keys/);
    assert.equal(await status(server.url, bobNow), 200);
    assert.equal(server.output().match(/key file rejected/g)!.length, 1);
    writeFileSync(file, good);
    await server.waitForOutput(/keys reloaded[^\n]*\n(?![\s\S]*key file rejected)/);
    assert.equal(await status(server.url, bobNow), 200);
  });

  it('answers 503 within 2 s once every key is revoked, and the 401/503 bodies are exact', async () => {
    const bobId = bobNow.slice(4, 12);
    const revokedIn = await pickedUp(server, async () => assert.equal((await keys(file, 'revoke', bobId)).code, 0));
    assert.ok(revokedIn <= PICKED_UP_MS, `revocation took ${Math.round(revokedIn)} ms`);
    assert.equal(await status(server.url, bobNow), 503);
    const r = await post(server.url, bobNow, { mode: 'password' });
    assert.deepEqual(r.json, { error: 'no API key configured on the server', status: 503 });
    assertCommonHeaders(r);
  });
});

describe('no key configured', () => {
  it('answers 503 to POST /generate, still serves the GETs, and turns on when a key is issued', async () => {
    const file = join(dir, 'later.json');
    const server = await startServer({ keysFile: file });
    outputs.push(server.output);
    try {
      const r = await post(server.url, 'anything-at-all-123', { mode: 'password' });
      assert.equal(r.status, 503);
      assert.deepEqual(r.json, { error: 'no API key configured on the server', status: 503 });
      assert.equal(r.headers['x-ratelimit-remaining'], '19', 'a 503 attempt used a slot');
      assertCommonHeaders(r);
      let key = '';
      const issuedIn = await pickedUp(server, async () => ({ key } = await issue(file, 'carol')));
      assert.ok(issuedIn <= PICKED_UP_MS, `the first key took ${Math.round(issuedIn)} ms`);
      assert.equal(await status(server.url, key), 200);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});

describe('API_KEY and the default key file', () => {
  it('accepts API_KEY alongside the file keys, and reads keys.json from the working directory', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const file = join(cwd, 'keys.json');
    const { key: fileKey } = await issue(file, 'dave');
    const envKey = randomApiKey();
    ledger.add(envKey);
    const server = await startServer({ keysFile: null, cwd, apiKey: envKey });
    outputs.push(server.output);
    try {
      assert.equal(await status(server.url, fileKey), 200);
      assert.equal(await status(server.url, envKey), 200);
      await server.waitForOutput(/"key":"env"/);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it('refuses to start with an invalid key file, naming API_KEYS_FILE', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, '[1,2,3]', { mode: 0o600 });
    const launched = launchServer({ keysFile: file });
    const { code } = await launched.exited;
    assert.equal(code, 1);
    assert.match(launched.output(), /^configuration error: API_KEYS_FILE .*bad\.json must be a JSON object\n$/m);
  });

  it('refuses to start with a bad API_KEY without echoing it', async () => {
    const launched = launchServer({ apiKey: 'short-secret' });
    const { code } = await launched.exited;
    assert.equal(code, 1);
    assert.equal(
      launched.output(),
      'configuration error: API_KEY must be 16 to 256 printable ASCII characters without spaces\n',
    );
  });
});
