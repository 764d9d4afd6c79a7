/**
 * Key format, key file parsing, constant-time verification, the key store's reloads and the
 * operator CLI, in process.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pbkdf2, randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import {
  isWellFormedKey,
  newKey,
  parseKeyFile,
  serializeKeyFile,
  sha256,
  sha256Hex,
  verifyKey,
  activeKeysOf,
  type KeyFile,
} from '../../lib/keys/api-keys.ts';
import { runKeysCli } from '../../lib/keys/key-admin.ts';
import { keysCli } from '../helpers/keys-cli.ts';
import { LockError, STALE_MS, withLock } from '../../lib/keys/key-lock.ts';
import { KeyStore, KeyStoreError } from '../../lib/keys/key-store.ts';
import { Logger } from '../../lib/log/logger.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-keys-unit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The keys CLI on `file`, on a fixed clock (2026-01-02T03:04:05Z). */
const cli = (file: string, ...argv: string[]) => keysCli(file, dir, argv, () => new Date('2026-01-02T03:04:05.000Z'));

describe('key format', () => {
  it('has a prefix, a public id, a random secret and a checksum', () => {
    const key = newKey('AbCd1234');
    assert.match(key, /^cgk_AbCd1234_[0-9A-Za-z]{38}$/);
    assert.ok(isWellFormedKey(key));
    const flipped = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21);
    assert.ok(!isWellFormedKey(flipped), 'a changed character fails the checksum');
    assert.ok(!isWellFormedKey('cgk_short'));
    assert.notEqual(newKey('AbCd1234'), key);
  });

  it('hashes with SHA-256 (the FIPS 180-2 "abc" vector), as bytes and as hex', () => {
    const abc = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    assert.equal(sha256Hex('abc'), abc);
    assert.equal(sha256('abc').toString('hex'), abc);
  });
});

describe('parseKeyFile', () => {
  const record = {
    id: 'AbCd1234',
    holder: 'h',
    created: '2026-01-01T00:00:00Z',
    revoked: null,
    sha256: 'a'.repeat(64),
  };
  it('accepts a valid file and round-trips it', () => {
    const file: KeyFile = {
      version: 1,
      keys: [record, { ...record, id: 'Zz999999', revoked: '2026-01-02T00:00:00Z' }],
    };
    assert.deepEqual(parseKeyFile(serializeKeyFile(file)), file);
    assert.deepEqual(
      parseKeyFile(
        '{"version":1,"keys":[{"id":"AbCd1234","holder":"h","created":"2026-01-01","sha256":"' +
          'b'.repeat(64) +
          '"}]}',
      ).keys[0].revoked,
      null,
    );
    assert.deepEqual(
      activeKeysOf(file).map((k) => k.id),
      ['AbCd1234'],
    );
  });

  it('rejects a file that is anything else, saying what is wrong', () => {
    const bad: [string, RegExp][] = [
      ['{', /valid JSON/],
      ['[]', /JSON object/],
      ['{"version":2,"keys":[]}', /version/],
      ['{"version":1}', /"keys" array/],
      [JSON.stringify({ version: 1, keys: [1] }), /keys\[0\] must be an object/],
      [JSON.stringify({ version: 1, keys: [{ ...record, id: 'x' }] }), /keys\[0\]\.id/],
      [JSON.stringify({ version: 1, keys: [record, record] }), /keys\[1\]\.id is a duplicate/],
      [JSON.stringify({ version: 1, keys: [{ ...record, holder: '' }] }), /holder/],
      [JSON.stringify({ version: 1, keys: [{ ...record, created: 'yesterday' }] }), /created/],
      [JSON.stringify({ version: 1, keys: [{ ...record, revoked: 5 }] }), /revoked/],
      [JSON.stringify({ version: 1, keys: [{ ...record, sha256: 'A'.repeat(64) }] }), /sha256/],
    ];
    for (const [text, message] of bad) assert.throws(() => parseKeyFile(text), message, text);
  });
});

describe('verifyKey', () => {
  it('finds the matching key among all, by digest', () => {
    const keys = ['one-key-0123456789', 'two-key-0123456789'].map((k, i) => ({
      id: `id${i}`,
      digest: Buffer.from(sha256Hex(k), 'hex'),
    }));
    assert.equal(verifyKey('two-key-0123456789', keys), 'id1');
    assert.equal(verifyKey('one-key-0123456789', keys), 'id0');
    assert.equal(verifyKey('three', keys), null);
    assert.equal(verifyKey('', keys), null);
    assert.equal(verifyKey('x'.repeat(10_000), keys), null, 'any length: digests are compared');
    assert.equal(verifyKey('one-key-0123456789', []), null);
    const twice = [...keys, { id: 'dup', digest: keys[0].digest }];
    assert.equal(verifyKey('one-key-0123456789', twice), 'id0', 'the first match wins, all are compared');
  });
});

describe('operator CLI (in process)', () => {
  it('issues, lists, replaces and revokes; the key appears once, on stdout only', () => {
    const file = join(dir, 'cli.json');
    const issued = cli(file, 'issue', '--holder', 'Ops Team');
    assert.equal(issued.code, 0);
    const key = issued.stdout.trim();
    assert.ok(isWellFormedKey(key));
    assert.ok(!issued.stderr.includes(key));
    assert.match(issued.stderr, /issued key \w{8} for "Ops Team"/);
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(key));
    assert.ok(text.includes(sha256Hex(key)));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(!existsSync(`${file}.lock`));

    const id = key.slice(4, 12);
    const list = cli(file, 'list');
    assert.equal(
      list.stdout,
      `ID        HOLDER    CREATED                   STATUS\n${id}  Ops Team  2026-01-02T03:04:05.000Z  active\n`,
    );

    const replaced = cli(file, 'replace', id);
    assert.equal(replaced.code, 0);
    const newKey = replaced.stdout.trim();
    assert.ok(isWellFormedKey(newKey));
    assert.match(replaced.stderr, new RegExp(`revoked ${id}`));
    assert.equal(cli(file, 'replace', id).code, 1, 'a revoked key cannot be replaced');

    assert.equal(cli(file, 'revoke', newKey.slice(4, 12)).code, 0);
    const again = cli(file, 'revoke', newKey.slice(4, 12));
    assert.equal(again.code, 0);
    assert.match(again.stderr, /already revoked/);
    const data = parseKeyFile(readFileSync(file, 'utf8'));
    assert.deepEqual(
      data.keys.map((k) => [k.holder, k.revoked]),
      [
        ['Ops Team', '2026-01-02T03:04:05.000Z'],
        ['Ops Team', '2026-01-02T03:04:05.000Z'],
      ],
    );
  });

  it('explains usage and errors with exit codes 2 and 1', () => {
    const file = join(dir, 'usage.json');
    const help = cli(file, '--help');
    assert.equal(help.code, 0, 'asked for: stdout, exit 0');
    assert.match(help.stdout, /^usage: npm run keys -- <command>/);
    assert.equal(help.stderr, '');
    for (const argv of [
      [],
      ['frobnicate'],
      ['issue'],
      ['issue', '--holder'],
      ['issue', '--holder', ' '],
      ['issue', '--holder', 'x'.repeat(201)],
      ['revoke'],
      ['list', 'x'],
      ['replace'],
      ['--file'],
    ]) {
      const r = cli(file, ...argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.match(r.stderr, /usage: npm run keys/);
      assert.equal(r.stdout, '');
    }
    assert.match(cli(file, 'list').stderr, /no keys in/);
    const unknown = cli(file, 'revoke', 'nope0000');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no key with id "nope0000"/);
    writeFileSync(file, 'not json', { mode: 0o600 });
    const broken = cli(file, 'issue', '--holder', 'x');
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /is not valid JSON; fix or move it first/);
    assert.equal(readFileSync(file, 'utf8'), 'not json', 'a broken file is left alone');
  });

  it('reports a file system refusal on one line', () => {
    const r = cli(join(dir, 'no-such-dir', 'keys.json'), 'issue', '--holder', 'x');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^keys: cannot update .*no-such-dir\/keys\.json \(ENOENT\)\n$/);
    assert.equal(r.stdout, '');
  });

  it('takes --file over API_KEYS_FILE, and keys.json in the working directory by default', () => {
    const other = join(dir, 'other.json');
    assert.equal(cli(join(dir, 'ignored.json'), '--file', other, 'issue', '--holder', 'a').code, 0);
    assert.ok(existsSync(other));
    assert.ok(!existsSync(join(dir, 'ignored.json')));
    let out = '';
    assert.equal(
      runKeysCli(['issue', '--holder', 'b'], { env: {}, cwd: dir, stdout: (t) => (out += t), stderr: () => {} }),
      0,
    );
    assert.ok(existsSync(join(dir, 'keys.json')));
    assert.ok(isWellFormedKey(out.trim()));
  });

  it('waits for a held lock, clears a stale one, and gives up on a live one', () => {
    const file = join(dir, 'locked.json');
    writeFileSync(`${file}.lock`, '');
    const started = performance.now();
    const r = cli(file, 'issue', '--holder', 'x');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /is held by another keys command/);
    assert.ok(performance.now() - started >= 300, 'it waited lockWaitMs');
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    assert.equal(cli(file, 'issue', '--holder', 'x').code, 0, 'a stale lock is cleared');
  });
});

describe('key lock', () => {
  const lockOf = (name: string) => {
    const file = join(dir, name);
    return { file, lock: `${file}.lock` };
  };
  const holder = (fields: Partial<{ pid: number; host: string; nonce: string; time: number }>) =>
    `${JSON.stringify({ pid: 1, host: hostname(), nonce: randomBytes(16).toString('hex'), time: Date.now(), ...fields })}\n`;

  it('runs the function holding the lock, and removes only its own lock afterwards', () => {
    const { file, lock } = lockOf('lock-own.json');
    const seen = withLock(file, 0, (stillHeld) => {
      const record = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number; nonce: string };
      assert.equal(record.pid, process.pid);
      assert.match(record.nonce, /^[0-9a-f]{32}$/);
      assert.equal(stillHeld(), true);
      return 'done';
    });
    assert.equal(seen, 'done');
    assert.ok(!existsSync(lock));
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.includes('lock-own')),
      [],
      'no staging or claim file left',
    );
  });

  it("tells the holder when its lock was taken over, and leaves the new holder's lock alone", () => {
    const { file, lock } = lockOf('lock-taken.json');
    const other = holder({ pid: 1 });
    const held = withLock(file, 0, (stillHeld) => {
      rmSync(lock);
      writeFileSync(lock, other);
      return stillHeld();
    });
    assert.equal(held, false);
    assert.equal(readFileSync(lock, 'utf8'), other, 'the other lock stays');
    rmSync(lock);
  });

  it('breaks a lock from a crashed predecessor with this pid, and an old one from another host, but not a fresh one', () => {
    const { file, lock } = lockOf('lock-hosts.json');
    writeFileSync(lock, holder({ pid: process.pid }));
    assert.equal(
      withLock(file, 0, () => 1),
      1,
      'this pid cannot hold a lock it is waiting for',
    );
    writeFileSync(lock, holder({ host: 'elsewhere.example', time: Date.now() - STALE_MS - 1_000 }));
    assert.equal(
      withLock(file, 0, () => 2),
      2,
      'another host, older than STALE_MS',
    );
    const fresh = holder({ host: 'elsewhere.example', pid: 4321 });
    writeFileSync(lock, fresh);
    assert.throws(
      () => withLock(file, 200, () => 3),
      (e: Error) =>
        e instanceof LockError &&
        /held by another keys command \(pid 4321 on elsewhere\.example\); remove it if none is running$/.test(
          e.message,
        ),
    );
    assert.equal(readFileSync(lock, 'utf8'), fresh);
    rmSync(lock);
  });

  it('leaves a lock alone while another command is removing it (its claim exists)', () => {
    const { file, lock } = lockOf('lock-claimed.json');
    const nonce = randomBytes(16).toString('hex');
    writeFileSync(lock, holder({ pid: spawnSync(process.execPath, ['-e', '']).pid, nonce }));
    const claim = join(dir, `.lock-claimed.json.lock.${nonce}.claim`);
    writeFileSync(claim, '');
    assert.throws(() => withLock(file, 0, () => 0), LockError);
    assert.ok(existsSync(lock));
    rmSync(claim);
    assert.equal(
      withLock(file, 0, () => 4),
      4,
      "once the claim is gone, the dead holder's lock is broken",
    );
  });

  it("judges a lock it cannot read (a symbolic link) by the entry's age", () => {
    const { file, lock } = lockOf('lock-link.json');
    symlinkSync('nowhere', lock);
    assert.throws(() => withLock(file, 0, () => 0), /held by another keys command; remove it/);
    const old = new Date(Date.now() - 60_000);
    lutimesSync(lock, old, old);
    assert.equal(
      withLock(file, 0, () => 5),
      5,
    );
    assert.ok(!existsSync(lock));
  });
});

describe('KeyStore', () => {
  const lines: string[] = [];
  const logger = new Logger('info', (line) => lines.push(line));

  it('loads, reloads on change, keeps the last good keys on a bad or deleted file', async () => {
    const file = join(dir, 'store.json');
    const one = 'first-key-0123456789';
    const two = 'second-key-0123456789';
    const fileWith = (...keys: [string, string, string | null][]) =>
      serializeKeyFile({
        version: 1,
        keys: keys.map(([id, key, revoked]) => ({
          id,
          holder: 'h',
          created: '2026-01-01T00:00:00Z',
          revoked,
          sha256: sha256Hex(key),
        })),
      });
    writeFileSync(file, fileWith(['AAAAAAAA', one, null]), { mode: 0o600 });
    const store = new KeyStore({ file, fileExplicit: true, envKey: null, logger, pollMs: 20 });
    store.start();
    assert.equal(store.configured, true);
    assert.equal(store.verify(one), 'AAAAAAAA');
    assert.equal(store.verify(two), null);

    // Written in place, as an editor does: the 20 ms poll may also catch the emptied file
    // between truncate and write and reject that version first ("is not valid JSON"), so each
    // wait below is for its own outcome, not for the first rejection of any kind.
    writeFileSync(file, fileWith(['AAAAAAAA', one, '2026-01-02T00:00:00Z'], ['BBBBBBBB', two, null]));
    await waitFor(() => store.verify(two) === 'BBBBBBBB');
    assert.equal(store.verify(one), null);

    writeFileSync(file, '{"version":1,"keys":[{}]}');
    const schemaReason =
      /"msg":"key file rejected; keeping the last good keys".*"reason":"keys\[0\]\.id must be 8 base62 characters"/;
    await waitFor(() => lines.some((l) => schemaReason.test(l)));
    assert.equal(store.verify(two), 'BBBBBBBB', 'the last good keys stay');

    rmSync(file);
    await waitFor(() => lines.some((l) => l.includes('key file missing; keeping the last good keys')));
    assert.equal(store.verify(two), 'BBBBBBBB', 'a deleted file keeps the last good keys');
    store.close();
    store.close();
  });

  it('sees a change made right after start, before the watcher took its first look', async () => {
    const file = join(dir, 'race.json');
    const record = (id: string, key: string) => ({
      id,
      holder: 'h',
      created: '2026-01-01T00:00:00Z',
      revoked: null,
      sha256: sha256Hex(key),
    });
    writeFileSync(file, serializeKeyFile({ version: 1, keys: [record('AAAAAAAA', 'race-key-one-0123456789')] }), {
      mode: 0o600,
    });
    // Keep libuv's threadpool (4 threads) busy so the watcher's first stat, which runs there,
    // certainly comes after the rewrite below: the race, made deterministic.
    const busy = Array.from({ length: 4 }, () => new Promise((r) => pbkdf2('x', 'y', 300_000, 32, 'sha256', r)));
    const store = new KeyStore({ file, fileExplicit: true, envKey: null, logger, pollMs: 20 });
    store.start();
    // A rewrite of another size: a version is told apart by inode, size and timestamps, and a
    // same-size rewrite within one tick of a kernel's coarse file timestamps (4 ms at 250 Hz;
    // kernels before 6.13) would look like no change at all, to this store as to fs.watchFile.
    writeFileSync(
      file,
      serializeKeyFile({
        version: 1,
        keys: [
          record('BBBBBBBB', 'race-key-two-0123456789'),
          { ...record('CCCCCCCC', 'race-key-three-0123456789'), revoked: '2026-01-01T00:00:00Z' },
        ],
      }),
    );
    await Promise.all(busy);
    await waitFor(() => store.verify('race-key-two-0123456789') === 'BBBBBBBB');
    assert.equal(store.verify('race-key-one-0123456789'), null);
    store.close();
  });

  it('adds API_KEY to the file keys, and reports an unusable file at start', () => {
    const store = new KeyStore({
      file: join(dir, 'absent.json'),
      fileExplicit: false,
      envKey: 'env-key-0123456789',
      logger,
    });
    store.start();
    assert.equal(store.verify('env-key-0123456789'), 'env');
    store.close();
    const bad = join(dir, 'bad-start.json');
    writeFileSync(bad, '{}', { mode: 0o600 });
    assert.throws(() => new KeyStore({ file: bad, fileExplicit: true, envKey: null, logger }).start(), KeyStoreError);
    const notAFile = join(dir, 'a-directory');
    mkdirSync(notAFile);
    assert.throws(
      () => new KeyStore({ file: notAFile, fileExplicit: true, envKey: null, logger }).start(),
      /is not a regular file/,
    );
  });
});

/** Polls every 10 ms (the store polls every 20 ms); the 30 s only bound a failure. */
async function waitFor(condition: () => boolean): Promise<void> {
  const started = performance.now();
  while (!condition() && performance.now() - started < 30_000) await sleep(10);
  assert.ok(condition(), 'condition reached within 30 s');
}
