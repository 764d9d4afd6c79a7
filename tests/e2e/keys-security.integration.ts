/**
 * The key file and the key CLI against the security review's findings (see
 * docs/security-review-keys.md): one test per finding, each reproducing what the review did.
 * Tests that need a second real user run the CLI or the server as `nobody` when this process is
 * root, and are skipped (reason printed) otherwise.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  newKey,
  newKeyId,
  parseKeyFile,
  serializeKeyFile,
  sha256Hex,
  verifyKey,
  type KeyRecord,
} from '../../lib/keys/api-keys.ts';
import { KeyStore, KeyStoreError } from '../../lib/keys/key-store.ts';
import { Logger } from '../../lib/log/logger.ts';
import { isRoot, NOBODY, needsRoot, runKeys, serverEnvAs } from '../helpers/other-user.ts';
import { launchServer, randomApiKey, startServer } from '../helpers/server.ts';
import { eventually, Ledger, post } from '../helpers/http.ts';
import { keysCli } from '../helpers/keys-cli.ts';

const ledger = new Ledger();
const outputs: (() => string)[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cg-keysec-'));
// mkdtemp makes it 0700; `nobody` must be able to reach the directories below it.
chmodSync(dir, 0o755);

after(() => {
  for (const output of outputs) ledger.assertAbsentFrom(output());
  rmSync(dir, { recursive: true, force: true });
});

let fresh = 0;
/** A new directory (mode 0700 unless said) for one case. */
function subdir(mode = 0o700): string {
  const path = join(dir, `case-${++fresh}`);
  mkdirSync(path);
  chmodSync(path, mode);
  return path;
}

/** The keys CLI on `file`; every key it prints is added to the ledger of secrets. */
function cli(file: string, ...argv: string[]) {
  const { code, stdout, stderr } = keysCli(file, dir, argv);
  if (code === 0 && argv[0] !== 'list' && argv[0] !== 'revoke') ledger.add(stdout.trim());
  return { code, stdout, stderr };
}

/** One line on stderr, nothing on stdout, exit 1: how every refusal must look. */
function assertRefusal(r: { code: number; stdout: string; stderr: string }, pattern: RegExp, what: string): void {
  assert.equal(r.code, 1, `${what}: exit code (stderr: ${r.stderr})`);
  assert.equal(r.stdout, '', `${what}: nothing on stdout`);
  assert.match(r.stderr, /^keys: [^\n]+\n$/, `${what}: one line`);
  assert.match(r.stderr, pattern, what);
}

function record(id: string, key: string, holder = 'h'): KeyRecord {
  return { id, holder, created: '2026-01-01T00:00:00.000Z', revoked: null, sha256: sha256Hex(key) };
}

function keyFileWith(...records: KeyRecord[]): string {
  return serializeKeyFile({ version: 1, keys: records });
}

function freshKey(): { id: string; key: string } {
  const id = newKeyId();
  const key = newKey(id);
  ledger.add(key);
  return { id, key };
}

const status = async (url: string, key: string): Promise<number> => {
  const r = await post(url, key, { mode: 'password' });
  if (r.status === 200) ledger.addGenerated(r.json);
  return r.status;
};

function logLines(lines: string[]) {
  return new Logger('info', (line) => lines.push(line));
}

describe('F1: a key revoked by another user than the server must stop working', () => {
  it('F1: a key revoked by root stays revoked for a server running as nobody', { skip: needsRoot }, async () => {
    const keyDir = subdir();
    chownSync(keyDir, NOBODY.uid, NOBODY.gid);
    const file = join(keyDir, 'keys.json');
    const issued = await runKeys(file, ['issue', '--holder', 'svc'], { cwd: dir, user: NOBODY });
    assert.equal(issued.code, 0, issued.stderr);
    const key = issued.stdout.trim();
    ledger.add(key);
    const kept = await runKeys(file, ['issue', '--holder', 'other'], { cwd: dir, user: NOBODY });
    assert.equal(kept.code, 0, kept.stderr);
    const other = kept.stdout.trim();
    ledger.add(other);
    const server = await startServer({ keysFile: file, env: serverEnvAs(NOBODY), rateLimitPerMinute: 100_000 });
    outputs.push(server.output);
    try {
      assert.equal(await status(server.url, key), 200);
      const beforeRevoke = server.output().length;
      const revoked = await runKeys(file, ['revoke', key.slice(4, 12)], { cwd: dir }); // as root
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.match(revoked.stderr, /^revoked key /);
      const st = statSync(file);
      assert.deepEqual(
        [st.uid, st.gid, st.mode & 0o7777],
        [NOBODY.uid, NOBODY.gid, 0o600],
        'the replacement has the owner, group and mode of the file it replaced',
      );
      // The server's "keys reloaded" line: the revocation is in use from then on.
      await server.waitForOutput(/"msg":"keys reloaded","file":[^\n]*"active":1\}/, undefined, beforeRevoke);
      assert.equal(await status(server.url, key), 401, 'the revoked key is refused');
      assert.equal(await status(server.url, other), 200, 'the other key still works');

      // What the CLI used to do by hand: a root-owned 0600 file the server cannot read. The
      // server keeps the last good keys and says so at error level, naming the file and why.
      const byHand = join(keyDir, 'by-hand');
      writeFileSync(byHand, readFileSync(file), { mode: 0o600 });
      renameSync(byHand, file);
      const out = await server.waitForOutput(/"level":"error","msg":"key file rejected; keeping the last good keys"/);
      const line = out.split('\n').find((l) => l.includes('key file rejected'))!;
      assert.ok(line.includes(`"file":${JSON.stringify(file)}`), line);
      assert.match(line, /"reason":"cannot be read by uid 65534 \(EACCES\); it belongs to uid 0, gid 0, mode 0600/);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it("F1: a file root creates in the service user's directory belongs to that user", { skip: needsRoot }, () => {
    const keyDir = subdir();
    chownSync(keyDir, NOBODY.uid, NOBODY.gid);
    const file = join(keyDir, 'keys.json');
    const issued = cli(file, 'issue', '--holder', 'first');
    assert.equal(issued.code, 0, issued.stderr);
    const st = statSync(file);
    assert.deepEqual([st.uid, st.gid, st.mode & 0o7777], [NOBODY.uid, NOBODY.gid, 0o600]);
  });

  it(
    "F1: the CLI refuses on one line, changing nothing, when it cannot give the new file the old one's owner",
    { skip: needsRoot },
    async () => {
      const keyDir = subdir();
      chownSync(keyDir, NOBODY.uid, NOBODY.gid);
      const file = join(keyDir, 'keys.json');
      const { id, key } = freshKey();
      const text = keyFileWith(record(id, key));
      writeFileSync(file, text, { mode: 0o644 }); // root's, readable by nobody
      for (const args of [
        ['issue', '--holder', 'x'],
        ['revoke', id],
        ['replace', id],
      ]) {
        const r = await runKeys(file, args, { cwd: dir, user: NOBODY });
        assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
        assert.equal(r.stdout, '', 'no key printed');
        assert.match(
          r.stderr,
          /^keys: [^\n]*belongs to uid 0, gid 0, and this command runs as uid 65534[^\n]*nothing was changed\n$/,
        );
        assert.equal(readFileSync(file, 'utf8'), text);
        assert.equal(statSync(file).uid, 0);
        assert.deepEqual(readdirSync(keyDir), ['keys.json'], 'no temp or lock file left');
      }
    },
  );

  it(
    'F1: a server that cannot read its key file says so at error level, naming the file, its owner and mode',
    {
      skip: isRoot
        ? 'root reads any file; as root, the first F1 test checks this with a server running as nobody'
        : false,
    },
    async () => {
      const lines: string[] = [];
      const file = join(subdir(), 'keys.json');
      const { id, key } = freshKey();
      writeFileSync(file, keyFileWith(record(id, key)), { mode: 0o600 });
      const store = new KeyStore({ file, fileExplicit: true, envKey: null, logger: logLines(lines), pollMs: 20 });
      store.start();
      try {
        chmodSync(file, 0o000);
        await eventually(() => lines.some((l) => l.includes('key file rejected')), 30_000, 10);
        const line = lines.find((l) => l.includes('key file rejected'))!;
        assert.match(line, /"level":"error"/);
        assert.ok(line.includes(`"file":${JSON.stringify(file)}`));
        assert.match(
          line,
          new RegExp(
            `"reason":"cannot be read by uid ${process.geteuid!()} \\(EACCES\\); it belongs to uid ${process.geteuid!()}, gid \\d+, mode 0000`,
          ),
        );
        assert.equal(store.verify(key), id, 'the last good keys stay');
      } finally {
        store.close();
      }
    },
  );

  it('F1: a replacement keeps the mode and group of the file it replaces; a new file is 0600', () => {
    const file = join(subdir(), 'keys.json');
    assert.equal(cli(file, 'issue', '--holder', 'a').code, 0);
    assert.equal(statSync(file).mode & 0o7777, 0o600);
    chmodSync(file, 0o640);
    const before = statSync(file);
    const id = parseKeyFile(readFileSync(file, 'utf8')).keys[0].id;
    assert.equal(cli(file, 'revoke', id).code, 0);
    const after = statSync(file);
    assert.notEqual(after.ino, before.ino, 'replaced by rename');
    assert.deepEqual([after.uid, after.gid, after.mode & 0o7777], [before.uid, before.gid, 0o640]);
  });
});

describe('F2: the lock keeps concurrent commands apart', () => {
  /** `count` real `issue` commands, lined up at a start barrier so they contend for the lock
   * at the same moment; every one must succeed and every printed key must be in the file. */
  async function concurrentIssues(file: string, count: number): Promise<void> {
    const barrierDir = mkdtempSync(join(tmpdir(), 'cg-barrier-'));
    const running = Array.from({ length: count }, (_, i) =>
      runKeys(file, ['issue', '--holder', `h${i}`], { cwd: dir, barrierDir }),
    );
    try {
      await eventually(() => readdirSync(barrierDir).length === count, 120_000);
    } finally {
      writeFileSync(join(barrierDir, 'go'), '');
    }
    const results = await Promise.all(running);
    rmSync(barrierDir, { recursive: true, force: true });
    const printed: string[] = [];
    for (const r of results) {
      assert.equal(r.code, 0, r.stderr);
      printed.push(r.stdout.trim());
      ledger.add(r.stdout.trim());
    }
    const stored = new Set(parseKeyFile(readFileSync(file, 'utf8')).keys.map((k) => k.sha256));
    const lost = printed.filter((k) => !stored.has(sha256Hex(k)));
    assert.equal(lost.length, 0, `${lost.length} of ${count} printed keys are not in the file`);
    assert.equal(stored.size, count);
  }

  it('F2: 20 concurrent issue commands all succeed and every printed key is in the file (3 rounds)', async () => {
    for (let round = 0; round < 3; round++) {
      const keyDir = subdir();
      const file = join(keyDir, 'keys.json');
      await concurrentIssues(file, 20);
      assert.deepEqual(readdirSync(keyDir), ['keys.json'], 'no lock, temp or claim file left');
    }
  });

  it('F2: a lock left by a crashed command is broken by one of 20 concurrent commands, atomically (2 rounds)', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    for (let round = 0; round < 2; round++) {
      const keyDir = subdir();
      const file = join(keyDir, 'keys.json');
      const old = new Date(Date.now() - 60_000);
      writeFileSync(
        `${file}.lock`,
        `${JSON.stringify({ pid: dead, host: hostname(), nonce: randomBytes(16).toString('hex'), time: old.getTime() })}\n`,
      );
      utimesSync(`${file}.lock`, old, old);
      await concurrentIssues(file, 20);
      assert.deepEqual(readdirSync(keyDir), ['keys.json']);
    }
  });

  it(
    "F2: another user's stale lock that this user may not claim is reported as held, not as a file system error",
    { skip: needsRoot },
    async () => {
      const keyDir = subdir();
      chownSync(keyDir, NOBODY.uid, NOBODY.gid);
      const file = join(keyDir, 'keys.json');
      const old = new Date(Date.now() - 60_000);
      writeFileSync(`${file}.lock`, '', { mode: 0o600 }); // root's, left by an older version
      utimesSync(`${file}.lock`, old, old);
      const r = await runKeys(file, ['issue', '--holder', 'x'], { cwd: dir, user: NOBODY });
      if (readFileSync('/proc/sys/fs/protected_hardlinks', 'utf8').trim() === '1') {
        // The kernel refuses nobody a hard link to root's file, so the claim cannot be made.
        assert.equal(r.code, 1, r.stderr);
        assert.match(
          r.stderr,
          /^keys: \S+keys\.json\.lock is held by another keys command; remove it if none is running\n$/,
        );
        assert.ok(existsSync(`${file}.lock`));
      } else {
        assert.equal(r.code, 0, r.stderr);
        ledger.add(r.stdout.trim());
      }
    },
  );

  it('F2: a lock held by a live command is never broken, however old', () => {
    const file = join(subdir(), 'keys.json');
    const old = new Date(Date.now() - 60_000);
    // pid 1 is always alive; its lock is "old" by its time and by the file's mtime.
    const held = `${JSON.stringify({ pid: 1, host: hostname(), nonce: randomBytes(16).toString('hex'), time: old.getTime() })}\n`;
    writeFileSync(`${file}.lock`, held);
    utimesSync(`${file}.lock`, old, old);
    assertRefusal(
      cli(file, 'issue', '--holder', 'x'),
      /\.lock is held by another keys command \(pid 1 on this host\)/,
      'live holder',
    );
    assert.equal(readFileSync(`${file}.lock`, 'utf8'), held, 'the lock is untouched');
    assert.ok(!existsSync(file));
  });
});

describe('S5: "created" is decided inside the locked update', () => {
  it('S5: six concurrent issue commands on a new file print "created" exactly once (3 rounds)', async () => {
    for (let round = 0; round < 3; round++) {
      const file = join(subdir(), 'keys.json');
      const barrierDir = mkdtempSync(join(tmpdir(), 'cg-barrier-'));
      const running = Array.from({ length: 6 }, (_, i) =>
        runKeys(file, ['issue', '--holder', `s5-${i}`], { cwd: dir, barrierDir }),
      );
      try {
        await eventually(() => readdirSync(barrierDir).length === 6, 120_000);
      } finally {
        writeFileSync(join(barrierDir, 'go'), '');
      }
      const results = await Promise.all(running);
      rmSync(barrierDir, { recursive: true, force: true });
      for (const r of results) {
        assert.equal(r.code, 0, r.stderr);
        ledger.add(r.stdout.trim());
      }
      const created = results.filter((r) => r.stderr.includes(`created ${file} `));
      assert.equal(created.length, 1, `round ${round}: ${created.length} of 6 said they created the file`);
      assert.equal(parseKeyFile(readFileSync(file, 'utf8')).keys.length, 6);
    }
  });
});

describe('F3: temp files and the places the CLI writes to', () => {
  it("F3: temp files get unpredictable names (128 random bits) in the key file's directory", async () => {
    const keyDir = subdir();
    const file = join(keyDir, 'keys.json');
    const events: string[] = [];
    const watcher = watch(keyDir, (_event, name) => {
      if (typeof name === 'string' && name !== 'keys.json' && !name.includes('.lock')) events.push(name);
    });
    const temps: string[] = [];
    try {
      for (const holder of ['a', 'b']) {
        const from = events.length;
        assert.equal(cli(file, 'issue', '--holder', holder).code, 0);
        await eventually(() => events.length > from, 30_000, 10);
        temps.push(events[from]);
      }
    } finally {
      watcher.close();
    }
    for (const name of temps) assert.match(name, /^\.keys\.json\.[0-9a-f]{32}\.tmp$/);
    assert.notEqual(temps[0], temps[1]);
    const st = lstatSync(file);
    assert.ok(st.isFile());
    assert.equal(st.mode & 0o7777, 0o600);
  });

  it('F3: refuses a key file or directory others can write, a symbolic link and a non-regular file, each on one line', () => {
    const { id, key } = freshKey();
    const text = keyFileWith(record(id, key));
    const cases: [string, () => string, RegExp][] = [
      [
        'world-writable file',
        () => {
          const f = join(subdir(), 'keys.json');
          writeFileSync(f, text);
          chmodSync(f, 0o666);
          return f;
        },
        /keys\.json is writable by group or others \(mode 0666; chmod go-w it\)/,
      ],
      [
        'group-writable file',
        () => {
          const f = join(subdir(), 'keys.json');
          writeFileSync(f, text);
          chmodSync(f, 0o620);
          return f;
        },
        /is writable by group or others \(mode 0620/,
      ],
      [
        'world-writable directory',
        () => join(subdir(0o777), 'keys.json'),
        /keys\.json is in [^ ]+, which is writable by group or others \(mode 0777\)/,
      ],
      [
        'sticky /tmp-like directory',
        () => join(subdir(0o1777), 'keys.json'),
        /which is writable by group or others \(mode 1777\)/,
      ],
      [
        'group-writable directory',
        () => join(subdir(0o770), 'keys.json'),
        /which is writable by group or others \(mode 0770\)/,
      ],
      [
        'symbolic link',
        () => {
          const d = subdir();
          writeFileSync(join(d, 'real.json'), text, { mode: 0o600 });
          symlinkSync('real.json', join(d, 'keys.json'));
          return join(d, 'keys.json');
        },
        /keys\.json is a symbolic link/,
      ],
      [
        'dangling symbolic link',
        () => {
          const d = subdir();
          symlinkSync(join(d, 'elsewhere'), join(d, 'keys.json'));
          return join(d, 'keys.json');
        },
        /keys\.json is a symbolic link/,
      ],
      [
        'directory',
        () => {
          const f = join(subdir(), 'keys.json');
          mkdirSync(f);
          return f;
        },
        /keys\.json is not a regular file/,
      ],
    ];
    for (const [what, make, pattern] of cases) {
      const file = make();
      const parent = join(file, '..');
      const before = readdirSync(parent).sort();
      const target = existsSync(join(parent, 'real.json')) ? readFileSync(join(parent, 'real.json'), 'utf8') : null;
      for (const argv of [['issue', '--holder', 'x'], ['revoke', id], ['list']])
        assertRefusal(cli(file, ...argv), pattern, `${what}, ${argv[0]}`);
      assert.deepEqual(readdirSync(parent).sort(), before, `${what}: nothing created or replaced`);
      if (target !== null)
        assert.equal(readFileSync(join(parent, 'real.json'), 'utf8'), target, `${what}: the link's target untouched`);
    }
  });
});

describe('F4: the server trusts a key file only if no one else can write it', () => {
  const lines: string[] = [];
  const logger = logLines(lines);
  const good = freshKey();

  it('F4: refuses at start a key file others can write, in a directory others can write, a symbolic link, not a file', () => {
    const text = keyFileWith(record(good.id, good.key));
    const cases: [() => string, RegExp][] = [
      [
        () => {
          const f = join(subdir(), 'k.json');
          writeFileSync(f, text);
          chmodSync(f, 0o666);
          return f;
        },
        /^API_KEYS_FILE \S+k\.json is writable by group or others \(mode 0666; chmod go-w it\)$/,
      ],
      [
        () => {
          const f = join(subdir(), 'k.json');
          writeFileSync(f, text);
          chmodSync(f, 0o664);
          return f;
        },
        /is writable by group or others \(mode 0664/,
      ],
      [
        () => {
          const d = subdir();
          writeFileSync(join(d, 'k.json'), text, { mode: 0o600 });
          chmodSync(d, 0o777);
          return join(d, 'k.json');
        },
        /k\.json is in \S+, which is writable by group or others \(mode 0777\)$/,
      ],
      [
        () => {
          const d = subdir();
          writeFileSync(join(d, 'k.json'), text, { mode: 0o600 });
          chmodSync(d, 0o1777);
          return join(d, 'k.json');
        },
        /which is writable by group or others \(mode 1777\)$/,
      ],
      [
        () => {
          const d = subdir();
          writeFileSync(join(d, 'real'), text, { mode: 0o600 });
          symlinkSync('real', join(d, 'k.json'));
          return join(d, 'k.json');
        },
        /k\.json is a symbolic link/,
      ],
      [
        () => {
          const f = join(subdir(), 'k.json');
          mkdirSync(f);
          return f;
        },
        /k\.json is not a regular file$/,
      ],
    ];
    for (const [make, pattern] of cases) {
      const file = make();
      const store = new KeyStore({ file, fileExplicit: true, envKey: null, logger });
      assert.throws(
        () => store.start(),
        (e: unknown) => e instanceof KeyStoreError && pattern.test(e.message),
        file,
      );
      store.close();
    }
  });

  it('F4: a directory higher up that others can write is refused unless sticky; a missing directory is waited for', () => {
    const text = keyFileWith(record(good.id, good.key));
    const outer = subdir(0o777);
    mkdirSync(join(outer, 'inner'), { mode: 0o700 });
    const file = join(outer, 'inner', 'k.json');
    writeFileSync(file, text, { mode: 0o600 });
    const store = new KeyStore({ file, fileExplicit: true, envKey: null, logger });
    assert.throws(
      () => store.start(),
      (e: Error) =>
        e.message ===
        `API_KEYS_FILE ${file} is in ${join(outer, 'inner')}, below ${outer}, which is writable by group or others (mode 0777)`,
    );
    store.close();
    chmodSync(outer, 0o1777);
    const sticky = new KeyStore({ file, fileExplicit: true, envKey: null, logger });
    sticky.start();
    assert.equal(sticky.verify(good.key), good.id, 'a sticky directory above is fine: no one else can rename "inner"');
    sticky.close();
    const later = new KeyStore({ file: join(subdir(), 'not-yet', 'k.json'), fileExplicit: true, envKey: null, logger });
    later.start();
    assert.equal(later.configured, false);
    later.close();
  });

  it('F4: a key file owned by another user (not root) is not trusted', { skip: needsRoot }, () => {
    const file = join(subdir(), 'k.json');
    writeFileSync(file, keyFileWith(record(good.id, good.key)), { mode: 0o600 });
    chownSync(file, NOBODY.uid, NOBODY.gid);
    const store = new KeyStore({ file, fileExplicit: true, envKey: null, logger });
    assert.throws(
      () => store.start(),
      (e: Error) =>
        /^API_KEYS_FILE \S+ belongs to uid 65534, not to this server's user \(uid 0\) or root \(chown it\)$/.test(
          e.message,
        ),
    );
    store.close();
    const otherDir = subdir();
    chownSync(otherDir, NOBODY.uid, NOBODY.gid);
    writeFileSync(join(otherDir, 'k.json'), keyFileWith(record(good.id, good.key)), { mode: 0o600 });
    const inOther = new KeyStore({ file: join(otherDir, 'k.json'), fileExplicit: true, envKey: null, logger });
    assert.throws(
      () => inOther.start(),
      (e: Error) =>
        /is in \S+, which belongs to uid 65534, not to this server's user \(uid 0\) or root$/.test(e.message),
    );
    inOther.close();
  });

  it('F4: while running, a file that turns untrusted is rejected with a reason and the last good keys stay', async () => {
    const file = join(subdir(), 'k.json');
    writeFileSync(file, keyFileWith(record(good.id, good.key)), { mode: 0o600 });
    const store = new KeyStore({ file, fileExplicit: true, envKey: null, logger, pollMs: 20 });
    store.start();
    try {
      assert.equal(store.verify(good.key), good.id);
      const other = freshKey();
      // The untrusted version arrives whole, by rename: written in place and then chmod-ed, the
      // 20 ms poll could read it in between, still trusted, and rightly load its key.
      writeFileSync(`${file}.new`, keyFileWith(record(other.id, other.key)));
      chmodSync(`${file}.new`, 0o666);
      renameSync(`${file}.new`, file);
      await eventually(() => lines.some((l) => l.includes('key file rejected') && l.includes('mode 0666')), 30_000, 10);
      assert.equal(store.verify(good.key), good.id, 'the last good keys stay');
      assert.equal(store.verify(other.key), null, "the untrusted file's key is not accepted");
      const line = lines.find((l) => l.includes('key file rejected'))!;
      assert.match(line, /"level":"error"/);
      assert.ok(line.includes(`"file":${JSON.stringify(file)}`));
      chmodSync(file, 0o600);
      await eventually(() => store.verify(other.key) === other.id, 30_000, 10);
    } finally {
      store.close();
    }
  });

  it('F4: keys.json dropped into a world-writable working directory is never trusted', async () => {
    const cwd = subdir(0o1777);
    const envKey = randomApiKey();
    ledger.add(envKey);
    const server = await startServer({ keysFile: null, cwd, apiKey: envKey, rateLimitPerMinute: 100_000 });
    outputs.push(server.output);
    try {
      assert.match(
        server.output(),
        /"level":"warn","msg":"keys.json in the working directory will not be trusted"[^\n]*which is writable by group or others \(mode 1777\)/,
      );
      const dropped = freshKey();
      const file = join(cwd, 'keys.json');
      writeFileSync(file, keyFileWith(record(dropped.id, dropped.key)), { mode: 0o644 });
      if (isRoot) chownSync(file, NOBODY.uid, NOBODY.gid); // as another user would leave it
      await server.waitForOutput(
        /"level":"error","msg":"key file rejected; keeping the last good keys"[^\n]*"reason":"is in [^"]+, which is writable by group or others \(mode 1777\)"/,
      );
      assert.equal(await status(server.url, dropped.key), 401);
      assert.equal(await status(server.url, envKey), 200);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it('F4: an API_KEYS_FILE in a directory others can write stops the start with one line, even while absent', async () => {
    const file = join(subdir(0o777), 'keys.json');
    const launched = launchServer({ keysFile: file });
    // Should it start after all, it is stopped (and exits 0, failing the test) rather than
    // waited for; the exit decides, however long a busy machine takes to get there.
    const listening = launched.waitForOutput(/listening on/, 60_000).then(
      () => launched.stop(),
      () => undefined,
    );
    const outcome = await launched.exited;
    await listening;
    assert.deepEqual(outcome, { code: 1, signal: null }, launched.output());
    assert.equal(
      launched.output(),
      `configuration error: API_KEYS_FILE ${file} is in ${join(file, '..')}, which is writable by group or others (mode 0777)\n`,
    );
  });
});

describe('F11: holder names cannot drive the terminal', () => {
  const SPOOFS = [
    'evil\u001b[2J\rrevoked',
    'a\rb',
    'a\nb',
    'a\tb',
    'del\u007f',
    'csi\u009b2J',
    'rtl\u202eevil',
    'iso\u2066x\u2069',
    'zero\u200bwidth',
    'zw\u200djoin',
    'b\ufeffom',
    'line\u2028sep',
    'nb\u00a0sp',
    'pua\ue000',
    'unassigned\u0378',
    'lone\ud800',
  ];

  it('F11: issue refuses holder names with control, format, bidi or other invisible characters', () => {
    const file = join(subdir(), 'keys.json');
    for (const holder of SPOOFS) {
      const r = cli(file, 'issue', '--holder', holder);
      assert.equal(r.code, 2, JSON.stringify(holder));
      assert.equal(r.stdout, '');
      assert.match(
        r.stderr,
        /^issue needs --holder NAME: 1 to 200 letters, marks, digits, punctuation, symbols or spaces\n/,
      );
      assert.ok(!r.stderr.includes(holder), 'the refused name is not echoed');
    }
    assert.ok(!existsSync(file), 'nothing written');
    for (const holder of [
      'Équipe ops',
      '運用チーム',
      "ci-bot (prod) #1 O'Brien",
      'ops 🔑',
      'Ünïcödé‐ñ',
      'x'.repeat(200),
    ]) {
      const r = cli(file, 'issue', '--holder', holder);
      assert.equal(r.code, 0, `${holder}: ${r.stderr}`);
    }
  });

  it('F11: list, revoke and replace escape what a hand-edited file holds', () => {
    const file = join(subdir(), 'keys.json');
    const a = freshKey();
    const b = freshKey();
    const spoof = { ...record(a.id, a.key, SPOOFS.join('|')), created: '1 Jan 2026 (\u001b[1A\r)' };
    assert.ok(!Number.isNaN(Date.parse(spoof.created)), 'the file parser accepts this date');
    writeFileSync(file, keyFileWith(spoof, record(b.id, b.key, 'bob\u202e')), { mode: 0o600 });
    const unsafe =
      // eslint-disable-next-line no-control-regex -- control characters are what this check looks for
      /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00a0\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ue000\u0378\ud800-\udfff]/;
    const list = cli(file, 'list');
    assert.equal(list.code, 0);
    assert.ok(!unsafe.test(list.stdout), JSON.stringify(list.stdout));
    assert.ok(
      list.stdout.includes(
        'evil\\x1b[2J\\rrevoked|a\\rb|a\\nb|a\\tb|del\\x7f|csi\\x9b2J|rtl\\u202eevil|iso\\u2066x\\u2069|zero\\u200bwidth|zw\\u200djoin|b\\ufeffom|line\\u2028sep|nb\\xa0sp|pua\\ue000|unassigned\\u0378|lone\\ud800',
      ),
      list.stdout,
    );
    assert.ok(list.stdout.includes('1 Jan 2026 (\\x1b[1A\\r)'));
    assert.equal(list.stdout.split('\n').length, 4, 'a header, two rows, the final newline');
    const revoked = cli(file, 'revoke', b.id);
    assert.equal(revoked.code, 0);
    assert.equal(revoked.stderr, `revoked key ${b.id} of "bob\\u202e"\n`);
    const replaced = cli(file, 'replace', a.id);
    assert.equal(replaced.code, 0);
    assert.ok(!unsafe.test(replaced.stderr), JSON.stringify(replaced.stderr));
  });
});

describe('F13: the checksum', () => {
  it('F13: the checksum is for scanners; the CLI never repeats a pasted key, and the verifier needs no checksum', () => {
    const file = join(subdir(), 'keys.json');
    const issued = cli(file, 'issue', '--holder', 'a');
    const key = issued.stdout.trim();
    for (const command of ['revoke', 'replace']) {
      const r = cli(file, command, key);
      assertRefusal(
        r,
        /not a key id: an id is the 8 characters after cgk_ \(the argument is not repeated, in case it is a key\)/,
        command,
      );
      assert.ok(!r.stderr.includes(key.slice(13)), 'the secret is not echoed');
    }
    const other = cli(file, 'revoke', 'not an id');
    assertRefusal(other, /not a key id/, 'any other text');
    assertRefusal(cli(file, 'revoke', 'ZZZZZZZZ'), /no key with id "ZZZZZZZZ"/, 'an unknown id is named');
    // A key with a valid checksum that was never issued is refused by the digest comparison
    // alone, like any other string: the server has no use for the checksum.
    const lookalike = newKey(key.slice(4, 12));
    assert.equal(verifyKey(lookalike, [{ id: 'a', digest: Buffer.from(sha256Hex(key), 'hex') }]), null);
    assert.equal(verifyKey(key, [{ id: 'a', digest: Buffer.from(sha256Hex(key), 'hex') }]), 'a');
  });
});
