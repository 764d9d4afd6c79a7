/**
 * Traceable key use (issue 32, item 4): a revoked key's 401 names the revoked record in the
 * log (and nowhere else), a reload says which ids changed, `keys list --json`, and `keys issue`
 * refusing a second active key for one holder unless `--another`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { matchKey, newKey, serializeKeyFile, sha256, sha256Hex, type KeyRecord } from '../../lib/keys/api-keys.ts';
import { keysCli } from '../helpers/keys-cli.ts';
import { keyChanges, KeyStore } from '../../lib/keys/key-store.ts';
import { Logger } from '../../lib/log/logger.ts';
import { startInProcess } from '../helpers/in-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-traceable-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function record(id: string, key: string, holder: string, revoked: string | null = null): KeyRecord {
  return { id, holder, created: '2026-01-01T00:00:00.000Z', revoked, sha256: sha256Hex(key) };
}

/** The keys CLI on `file`, on a fixed clock (2026-01-02T03:04:05Z). */
const cli = (file: string, ...argv: string[]) => keysCli(file, dir, argv, () => new Date('2026-01-02T03:04:05.000Z'));

function headerList(headers: Headers): [string, string][] {
  const out: [string, string][] = [];
  headers.forEach((value, name) => out.push([name, value]));
  return out;
}

async function waitFor(condition: () => boolean): Promise<void> {
  const started = performance.now();
  while (!condition() && performance.now() - started < 30_000) await sleep(10);
  assert.ok(condition(), 'condition reached within 30 s');
}

describe('matchKey', () => {
  const keys = [
    { id: 'AAAAAAAA', digest: sha256('active-key-0123456789'), revoked: false },
    { id: 'RRRRRRRR', digest: sha256('revoked-key-0123456789'), revoked: true },
  ];

  it('names an active key, a revoked record, or nothing', () => {
    assert.deepEqual(matchKey('active-key-0123456789', keys), { kind: 'active', id: 'AAAAAAAA' });
    assert.deepEqual(matchKey('revoked-key-0123456789', keys), { kind: 'revoked', id: 'RRRRRRRR' });
    assert.deepEqual(matchKey('random-string', keys), { kind: 'unknown' });
    assert.deepEqual(matchKey('x'.repeat(10_000), keys), { kind: 'unknown' }, 'any length: digests are compared');
    assert.deepEqual(matchKey('active-key-0123456789', []), { kind: 'unknown' });
  });

  it('lets an active record win over a revoked one with the same digest, wherever it stands', () => {
    const same = sha256('shared-key-0123456789');
    const revokedFirst = [
      { id: 'RRRRRRRR', digest: same, revoked: true },
      { id: 'AAAAAAAA', digest: same, revoked: false },
    ];
    assert.deepEqual(matchKey('shared-key-0123456789', revokedFirst), { kind: 'active', id: 'AAAAAAAA' });
    assert.deepEqual(matchKey('shared-key-0123456789', [...revokedFirst].reverse()), {
      kind: 'active',
      id: 'AAAAAAAA',
    });
  });
});

describe('a reload logs which ids changed', () => {
  it('keyChanges: added (new or un-revoked), revoked (still listed), removed (gone)', () => {
    const k = (id: string, revoked = false) => ({ id, digest: sha256(id), revoked });
    assert.deepEqual(keyChanges([k('A'), k('B'), k('C'), k('D', true)], [k('A'), k('B', true), k('D'), k('E')]), {
      added: ['D', 'E'],
      revoked: ['B'],
      removed: ['C'],
    });
    assert.deepEqual(keyChanges([], []), { added: [], revoked: [], removed: [] });
  });

  it('the "keys reloaded" line names the ids, never a digest, and ends on "active"', async () => {
    const lines: string[] = [];
    const file = join(dir, 'reload.json');
    const keys = ['one', 'two', 'three'].map((n) => `${n}-key-0123456789`);
    const write = (...records: KeyRecord[]) => {
      writeFileSync(file, serializeKeyFile({ version: 1, keys: records }), { mode: 0o600 });
    };
    write(record('AAAAAAAA', keys[0], 'a'), record('BBBBBBBB', keys[1], 'b'));
    const store = new KeyStore({
      file,
      fileExplicit: true,
      envKey: null,
      logger: new Logger('info', (text) => lines.push(...text.split('\n').filter((l) => l !== ''))),
      pollMs: 20,
    });
    store.start();
    try {
      write(
        record('AAAAAAAA', keys[0], 'a', '2026-01-03T00:00:00.000Z'),
        record('CCCCCCCC', keys[2], 'c'),
        record('DDDDDDDD', 'four-key-0123456789', 'd', '2026-01-03T00:00:00.000Z'),
      );
      await waitFor(() => lines.some((l) => l.includes('"msg":"keys reloaded"')));
      const line = lines.find((l) => l.includes('"msg":"keys reloaded"'))!;
      const logged = JSON.parse(line) as Record<string, unknown>;
      assert.deepEqual(
        [logged.added, logged.revoked, logged.removed, logged.active],
        [['CCCCCCCC'], ['AAAAAAAA'], ['BBBBBBBB'], 1],
      );
      assert.match(line, /"active":1\}$/, 'active stays the last field');
      for (const key of keys) assert.ok(!line.includes(sha256Hex(key)), 'no digest in the line');
      assert.equal(store.check(keys[0]).kind, 'revoked');
      assert.equal(store.verify(keys[0]), null, 'a revoked key is not accepted');
      assert.equal(store.verify(keys[2]), 'CCCCCCCC');
      assert.equal(store.configured, true);
    } finally {
      store.close();
    }
  });
});

describe('the 401 for a revoked key', () => {
  it('logs the revoked entry id and reason revoked; a random string logs no id; the replies are identical', async () => {
    const file = join(dir, 'server-keys.json');
    const active = newKey('AAAAAAAA');
    const revoked = newKey('RRRRRRRR');
    writeFileSync(
      file,
      serializeKeyFile({
        version: 1,
        keys: [record('AAAAAAAA', active, 'a'), record('RRRRRRRR', revoked, 'r', '2026-01-03T00:00:00.000Z')],
      }),
      { mode: 0o600 },
    );
    const server = await startInProcess({ keysFile: file, rateLimitPerMinute: 1000 });
    try {
      const post = (key: string) =>
        fetch(`${server.url}/generate`, {
          method: 'POST',
          headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' },
          body: '{"mode":"password"}',
        });
      const random = 'cgk_ZZZZZZZZ_' + 'x'.repeat(38);
      const replies = [];
      for (const key of [revoked, random]) {
        const res = await post(key);
        // Headers that differ per request by design: its id, the date and the bucket's count.
        const varying = /^(x-request-id|date|x-ratelimit-remaining|ratelimit)$/;
        replies.push({
          status: res.status,
          body: await res.text(),
          headers: headerList(res.headers).filter(([name]) => !varying.test(name)),
        });
      }
      assert.equal(replies[0].status, 401);
      assert.deepEqual(replies[0], replies[1], 'the same 401 body and headers for a revoked key and a random one');
      assert.equal((await post(active)).status, 200, 'the active key still works');
      await server.waitForOutput(/"status":200/);
      const requests = server
        .output()
        .split('\n')
        .filter((l) => l.includes('"msg":"request"') && l.includes('"route":"/generate"'))
        .map((l) => JSON.parse(l) as { status: number; key: string | null; reason?: string });
      assert.deepEqual(
        requests.map((r) => [r.status, r.key, r.reason ?? null]),
        [
          [401, 'RRRRRRRR', 'revoked'],
          [401, null, 'invalidKey'],
          [200, 'AAAAAAAA', null],
        ],
      );
      assert.ok(!server.output().includes(revoked), 'the key itself is never logged');
    } finally {
      await server.stop();
    }
  });
});

describe('keys list --json', () => {
  it('prints every record as one JSON array (no digest), terminal controls escaped, [] when empty', () => {
    const file = join(dir, 'list.json');
    assert.equal(cli(file, 'list', '--json').stdout, '[]\n');
    const key = newKey('AAAAAAAA');
    const spoof = 'ops\u202eevil\u001b[2J';
    writeFileSync(
      file,
      serializeKeyFile({
        version: 1,
        keys: [
          record('AAAAAAAA', key, 'Équipe 🔑'),
          record('BBBBBBBB', newKey('BBBBBBBB'), spoof, '2026-01-05T00:00:00.000Z'),
        ],
      }),
      { mode: 0o600 },
    );
    const r = cli(file, 'list', '--json');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.ok(!r.stdout.includes(sha256Hex(key)));
    assert.ok(
      [...r.stdout.slice(0, -1)].every((ch) => ch.charCodeAt(0) >= 0x20 && ch !== '\u202e'),
      'no control or bidi character as such',
    );
    assert.deepEqual(JSON.parse(r.stdout), [
      { id: 'AAAAAAAA', holder: 'Équipe 🔑', created: '2026-01-01T00:00:00.000Z', revoked: null },
      { id: 'BBBBBBBB', holder: spoof, created: '2026-01-01T00:00:00.000Z', revoked: '2026-01-05T00:00:00.000Z' },
    ]);
    assert.equal(cli(file, 'list', '--yaml').code, 2, 'another option is a usage error');
  });
});

describe('keys issue for a holder who has an active key', () => {
  it('refuses on one line, changing nothing, unless --another; a revoked key does not count', () => {
    const file = join(dir, 'issue-twice.json');
    const first = cli(file, 'issue', '--holder', 'you');
    assert.equal(first.code, 0, first.stderr);
    const id = first.stdout.slice(4, 12);
    const before = readFileSync(file, 'utf8');

    const again = cli(file, 'issue', '--holder', 'you');
    assert.equal(again.code, 1);
    assert.equal(again.stdout, '', 'no key printed');
    assert.equal(
      again.stderr,
      `keys: "you" already has an active key (${id}); nothing was issued: add --another for a second one, or use replace ${id}\n`,
    );
    assert.equal(readFileSync(file, 'utf8'), before, 'the file is unchanged');
    assert.equal(cli(file, 'issue', '--holder', 'someone else').code, 0, 'another holder is not affected');

    const second = cli(file, 'issue', '--another', '--holder', 'you');
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /^cgk_\w{8}_\w{38}\n$/);
    const third = cli(file, 'issue', '--holder', 'you', '--another');
    assert.equal(third.code, 0, 'the flag may come last too');

    const fresh = join(dir, 'issue-after-revoke.json');
    const issued = cli(fresh, 'issue', '--holder', 'you');
    assert.equal(cli(fresh, 'revoke', issued.stdout.slice(4, 12)).code, 0);
    assert.equal(cli(fresh, 'issue', '--holder', 'you').code, 0, 'a holder whose keys are all revoked gets one');
    assert.equal(cli(fresh, 'issue', '--holder', 'you', '--another', 'x').code, 2, 'a stray argument is a usage error');
  });
});
