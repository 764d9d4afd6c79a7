/**
 * Which key files the server trusts (lib/keys/key-file-trust.ts), for the cases one user can
 * set up in-process; the second-user cases (another owner, EACCES) are in
 * tests/e2e/keys-security.integration.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readKeyFile } from '../../lib/keys/key-file-trust.ts';

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
    assert.equal(read.kind === 'ok' ? read.text : '', '{}');
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
