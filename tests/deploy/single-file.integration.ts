/**
 * The one-file deployment as an operator does it: only dist/credential-generator.mjs, copied
 * into an empty directory with no node_modules or package.json on any parent path, run by a
 * user who cannot write that directory (nobody when the tests run as root, else the directory
 * is made read-only), keys issued with the file's own `keys` command into a separate
 * directory. Everything the service serves must come out of the file itself.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { randomApiKey, ROOT, startServer, type RunningServer } from '../helpers/server.ts';
import { WORD_LISTS } from '../../lib/core/index.ts';
import { Ledger, request } from '../helpers/http.ts';

const BUNDLE = join(ROOT, 'dist', 'credential-generator.mjs');
const asRoot = process.getuid?.() === 0;
/** The user the deployment runs as: nobody when we can switch to it, else ourselves. */
const user = asRoot ? { uid: 65534, gid: 65534 } : undefined;
const ledger = new Ledger();

let appDir: string;
let keyDir: string;
let keysFile: string;
let file: string;

function run(args: readonly string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [file, ...args], {
    cwd: appDir,
    env: { PATH: process.env.PATH, API_KEYS_FILE: keysFile },
    encoding: 'utf8',
    ...(user === undefined ? {} : user),
  });
}

before(() => {
  assert.ok(existsSync(BUNDLE), `${BUNDLE} is built by npm run build:dist, which npm run test:integration runs first`);
  appDir = mkdtempSync(join(tmpdir(), 'cg-one-file-'));
  keyDir = mkdtempSync(join(tmpdir(), 'cg-one-file-keys-'));
  keysFile = join(keyDir, 'keys.json');
  file = join(appDir, 'credential-generator.mjs');
  copyFileSync(BUNDLE, file);
  if (user !== undefined) {
    chmodSync(appDir, 0o755); // root's: nobody may read and enter, not write
    chownSync(keyDir, user.uid, user.gid);
  } else {
    chmodSync(appDir, 0o555);
  }
  chmodSync(keyDir, 0o700);
});

after(() => {
  chmodSync(appDir, 0o755);
  rmSync(appDir, { recursive: true, force: true });
  rmSync(keyDir, { recursive: true, force: true });
});

describe('the single file, deployed alone', () => {
  it('has nothing to lean on: no node_modules or package.json above it, and its directory is not writable for the user', (t) => {
    for (let dir = appDir; ; dir = dirname(dir)) {
      assert.ok(!existsSync(join(dir, 'node_modules')), `node_modules in ${dir}`);
      assert.ok(!existsSync(join(dir, 'package.json')), `package.json in ${dir}`);
      if (dirname(dir) === dir) break;
    }
    const write = spawnSync(
      process.execPath,
      ['-e', `require('fs').writeFileSync(${JSON.stringify(join(appDir, 'probe'))}, '')`],
      { encoding: 'utf8', ...(user ?? {}) },
    );
    assert.notEqual(write.status, 0);
    assert.match(write.stderr, /EACCES/);
    if (!asRoot) t.diagnostic('not root: runs as the current user with a read-only directory instead of as nobody');
  });

  it('matches the SHA-256 the build printed and wrote beside it', () => {
    const [digest, name] = readFileSync(`${BUNDLE}.sha256`, 'utf8').trim().split(/\s+/);
    assert.equal(name, 'credential-generator.mjs');
    assert.equal(createHash('sha256').update(readFileSync(file)).digest('hex'), digest);
  });

  it('is ASCII throughout (deploy/rollup.config.mjs), and its escaped word lists are the same words', async () => {
    const bytes = readFileSync(BUNDLE);
    const beyond = bytes.findIndex((byte) => byte > 0x7f);
    assert.equal(beyond, -1, `a byte beyond ASCII at offset ${beyond}`);
    // Every word a list's passphrases are made of is a word of the sources' list: an escape that
    // changed a character would put words in the replies that the list does not have.
    const apiKey = randomApiKey();
    const server = await startServer({ command: [process.execPath, BUNDLE], apiKey, rateLimitPerMinute: 10_000 });
    try {
      for (const list of Object.values(WORD_LISTS)) {
        const reply = await request(server.url, '/generate', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify({
            mode: 'passphrase',
            count: 20,
            options: { wordList: list.id, wordCount: 8, separator: 'space' },
          }),
        });
        assert.equal(reply.status, 200, reply.text);
        const known = new Set(list.words);
        const results = (reply.json as { results: { value: string }[] }).results;
        for (const { value } of results)
          for (const word of value.split(list.space)) assert.ok(known.has(word), `${list.id}: ${word}`);
      }
    } finally {
      await server.stop();
    }
  });

  it('names itself as it was run in its usage texts', () => {
    const help = run(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^usage: node credential-generator\.mjs \[serve\] /);
    const keys = run(['keys']);
    assert.equal(keys.status, 2);
    assert.match(keys.stderr, /^usage: node credential-generator\.mjs keys <command>/);
    const unknown = run(['frobnicate']);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /^unknown command "frobnicate"\n/);
  });

  it('issues a key, serves every route from inside the file, and stops honouring a revoked key within 2 s', async (t) => {
    const issued = run(['keys', 'issue', '--holder', 'ci']);
    assert.equal(issued.status, 0, issued.stderr);
    const key = issued.stdout.trim();
    ledger.add(key);
    const id = /^cgk_([0-9A-Za-z]{8})_/.exec(key)![1];
    assert.ok(existsSync(keysFile));
    // A second holder stays active, so after the revocation a key is still configured (with
    // none left, every POST would be a 503, not a 401).
    const other = run(['keys', 'issue', '--holder', 'other']);
    assert.equal(other.status, 0, other.stderr);
    ledger.add(other.stdout.trim());

    let server: RunningServer | null = null;
    try {
      server = await startServer({
        command: [process.execPath, file],
        cwd: appDir,
        keysFile,
        rateLimitPerMinute: 10_000,
        ...(user === undefined ? {} : { user }),
      });
      const health = await request(server.url, '/health');
      assert.deepEqual([health.status, (health.json as { status: string }).status], [200, 'ok']);
      const probe = spawnSync(process.execPath, [file, 'health'], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, PORT: String(server.port) },
        ...(user ?? {}),
      });
      assert.equal(probe.status, 0, probe.stderr);
      const home = await request(server.url, '/');
      assert.equal(home.status, 200);
      assert.equal(home.text, readFileSync(join(ROOT, 'dist', 'browser', 'index.html'), 'utf8'));
      for (const part of ['app.js', 'service-api.js', 'styles.css']) {
        const reply = await request(server.url, `/${part}`);
        assert.equal(reply.status, 200, part);
        assert.equal(reply.text, readFileSync(join(ROOT, 'dist', 'browser', part), 'utf8'), part);
      }
      const openapi = await request(server.url, '/openapi.json');
      assert.equal(openapi.status, 200);
      assert.equal(openapi.text, readFileSync(join(ROOT, 'spec', 'openapi.json'), 'utf8'));
      for (const name of [
        'credential-generator.postman_collection.json',
        'credential-generator.postman_environment.json',
      ]) {
        const reply = await request(server.url, `/postman/${name}`);
        assert.equal(reply.status, 200, name);
        assert.equal(reply.text, readFileSync(join(ROOT, 'spec', name), 'utf8'), name);
      }
      const post = (): Promise<Awaited<ReturnType<typeof request>>> =>
        request(server!.url, '/generate', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: '{"mode":"passphrase"}',
        });
      const ok = await post();
      assert.equal(ok.status, 200);
      ledger.addGenerated(ok.json);

      // In use once the server logs "keys reloaded": that line is waited for (an event) and
      // timed, then the key is tried once (a loop of requests would count their own latency on
      // a busy machine against the 2 s).
      const from = server.output().length;
      const revoked = run(['keys', 'revoke', id]);
      assert.equal(revoked.status, 0, revoked.stderr);
      const since = performance.now();
      await server.waitForOutput(/"msg":"keys reloaded"[^\n]*"active":1\}/, undefined, from);
      const ms = performance.now() - since;
      assert.equal((await post()).status, 401);
      assert.ok(ms < 2_000, `revocation took ${Math.round(ms)} ms`);
      t.diagnostic(`revoked key in use ${Math.round(ms)} ms after the command`);
    } finally {
      if (server !== null) {
        assert.deepEqual(await server.stop(), { code: 0, signal: null });
        ledger.assertAbsentFrom(server.output());
      }
    }
  });

  it('writes MIN_ENTROPY_BITS into the page it carries, and publishes it at GET /generate', async () => {
    const server = await startServer({
      command: [process.execPath, file],
      cwd: appDir,
      keysFile,
      env: { MIN_ENTROPY_BITS: '60' },
      ...(user === undefined ? {} : { user }),
    });
    try {
      const built = readFileSync(join(ROOT, 'dist', 'browser', 'index.html'), 'utf8');
      const home = await request(server.url, '/');
      assert.equal(
        home.text,
        built.replace('<meta name="min-entropy-bits" content="0">', '<meta name="min-entropy-bits" content="60">'),
      );
      assert.notEqual(home.text, built);
      const described = await request(server.url, '/generate');
      assert.equal((described.json as { limits: { minEntropyBits: number } }).limits.minEntropyBits, 60);
    } finally {
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
    }
  });
});
