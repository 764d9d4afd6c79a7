/**
 * Which files the server trusts (lib/files/trusted-file.ts): key files, which refuse a link
 * at their name, and the TLS and Redis password files, which resolve it (S3), for the cases
 * one user can set up in-process; the second-user cases (another owner, EACCES) are in
 * tests/e2e/keys-security.integration.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readableByOthers, readTrustedFile } from '../../lib/files/trusted-file.ts';
import { readKeyFile } from '../../lib/keys/key-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-trust-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const me = [process.getuid?.() ?? 0];

function refusal(file: string): string {
  const read = readKeyFile(file, me);
  assert.equal(read.kind, 'refused', file);
  return read.kind === 'refused' ? read.reason : '';
}

describe('readKeyFile', () => {
  it('reads a private regular file and calls an absent one missing', () => {
    const file = join(dir, 'keys.json');
    writeFileSync(file, '{}', { mode: 0o600 });
    const read = readKeyFile(file, me);
    assert.equal(read.kind, 'ok');
    assert.equal(read.kind === 'ok' ? read.data.toString('utf8') : '', '{}');
    assert.deepEqual(readKeyFile(join(dir, 'absent.json'), me), { kind: 'missing' });
  });

  it('refuses a symbolic link, a FIFO, a path through a file and a file others can write, saying why', () => {
    const target = join(dir, 'target.json');
    writeFileSync(target, '{}', { mode: 0o600 });
    const link = join(dir, 'link.json');
    symlinkSync(target, link);
    assert.equal(refusal(link), 'is a symbolic link (name the file itself)');
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    assert.match(refusal(fifo), /^is not a regular file/);
    assert.equal(refusal(join(target, 'keys.json')), 'cannot be read (ENOTDIR)');
    const shared = join(dir, 'shared.json');
    writeFileSync(shared, '{}', { mode: 0o600 });
    chmodSync(shared, 0o666);
    assert.equal(refusal(shared), 'is writable by group or others (mode 0666; chmod go-w it)');
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    writeFileSync(join(open, 'keys.json'), '{}', { mode: 0o600 });
    assert.match(refusal(join(open, 'keys.json')), /writable by group or others/);
  });
});

describe('readTrustedFile with links resolved (TLS files, the Redis password file)', () => {
  const resolving = (file: string): ReturnType<typeof readTrustedFile> =>
    readTrustedFile(file, me, { links: 'resolve' });

  it("S3: reads certbot's layout (live/ names linking into archive/) and judges the file the link leads to", () => {
    const root = join(dir, 'letsencrypt');
    mkdirSync(join(root, 'archive', 'site'), { recursive: true });
    mkdirSync(join(root, 'live', 'site'), { recursive: true });
    writeFileSync(join(root, 'archive', 'site', 'privkey1.pem'), 'KEY', { mode: 0o600 });
    symlinkSync('../../archive/site/privkey1.pem', join(root, 'live', 'site', 'privkey.pem'));
    const read = resolving(join(root, 'live', 'site', 'privkey.pem'));
    assert.equal(read.kind === 'ok' ? read.data.toString() : read.kind, 'KEY');
    assert.equal(read.kind === 'ok' && readableByOthers(read.stats), false);

    chmodSync(join(root, 'archive', 'site', 'privkey1.pem'), 0o646);
    assert.deepEqual(resolving(join(root, 'live', 'site', 'privkey.pem')), {
      kind: 'refused',
      reason: 'is writable by group or others (mode 0646; chmod go-w it)',
    });
    chmodSync(join(root, 'archive', 'site', 'privkey1.pem'), 0o644);
    const exposed = resolving(join(root, 'live', 'site', 'privkey.pem'));
    assert.equal(exposed.kind === 'ok' && readableByOthers(exposed.stats), true, 'used, and said to be readable');

    // Whoever can write the directory of the link can point it anywhere: judged too.
    chmodSync(join(root, 'live', 'site'), 0o777);
    const viaOpenLink = resolving(join(root, 'live', 'site', 'privkey.pem'));
    assert.equal(viaOpenLink.kind, 'refused');
    assert.match(
      viaOpenLink.kind === 'refused' ? viaOpenLink.reason : '',
      /live\/site, which is writable by group or others \(mode 0777\)$/,
    );
    chmodSync(join(root, 'live', 'site'), 0o755);
    chmodSync(join(root, 'archive', 'site'), 0o777);
    assert.match(refusalOf(resolving(join(root, 'live', 'site', 'privkey.pem'))), /archive\/site, which is writable/);
    chmodSync(join(root, 'archive', 'site'), 0o755);
    assert.deepEqual(resolving(join(root, 'live', 'site', 'absent.pem')), { kind: 'missing' });
    symlinkSync('../../archive/site/gone.pem', join(root, 'live', 'site', 'dangling.pem'));
    assert.deepEqual(resolving(join(root, 'live', 'site', 'dangling.pem')), { kind: 'missing' });
  });

  it(
    'S3: refuses a file of another owner when the server is root (a second user)',
    { skip: process.getuid?.() !== 0 ? 'needs root to give a file away' : false },
    () => {
      const file = join(dir, 'nobody.pem');
      writeFileSync(file, 'KEY', { mode: 0o600 });
      chownSync(file, 65534, 65534);
      assert.equal(
        refusalOf(readTrustedFile(file, [0], { links: 'resolve' })),
        "belongs to uid 65534, not to this server's user (uid 0) or root (chown it)",
      );
    },
  );
});

function refusalOf(read: ReturnType<typeof readTrustedFile>): string {
  assert.equal(read.kind, 'refused');
  return read.kind === 'refused' ? read.reason : '';
}
