/**
 * The key file's trust rule and a Kubernetes Secret or ConfigMap volume (issue 32): kubelet's
 * atomic writer mounts each key as `NAME -> ..data/NAME`, `..data -> ..<stamp>`, in a read-only
 * mount whose root has mode 1777. That exact layout is accepted; any other link still is not,
 * and a directory others can write still is not unless the mount is read-only.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { atomicWriterTarget, readTrustedFile } from '../../lib/files/trusted-file.ts';
import { readKeyFile } from '../../lib/keys/key-store.ts';

const root = mkdtempSync(join(tmpdir(), 'cg-atomic-'));
after(() => rmSync(root, { recursive: true, force: true }));
const me = [process.getuid?.() ?? 0, 0];
const STAMP = '..2026_11_26_19_00_00.123456789';

/** A volume directory as kubelet writes it: the stamped directory, `..data`, the name link. */
function volume(name: string, mode = 0o700): string {
  const dir = join(root, name);
  mkdirSync(join(dir, STAMP), { recursive: true });
  chmodSync(dir, mode);
  chmodSync(join(dir, STAMP), 0o755);
  writeFileSync(join(dir, STAMP, 'keys.json'), '{"version":1,"keys":[]}', { mode: 0o600 });
  symlinkSync(STAMP, join(dir, '..data'));
  symlinkSync('..data/keys.json', join(dir, 'keys.json'));
  return dir;
}

describe("a Secret volume's ..data layout", () => {
  it('is accepted for the key file, and read through to the stamped file', () => {
    const dir = volume('plain');
    assert.equal(atomicWriterTarget(join(dir, 'keys.json')), join(dir, STAMP, 'keys.json'));
    const read = readKeyFile(join(dir, 'keys.json'), me);
    assert.equal(read.kind, 'ok', read.kind === 'refused' ? read.reason : '');
    assert.equal(read.kind === 'ok' ? read.data.toString() : '', '{"version":1,"keys":[]}');
    assert.equal(readTrustedFile(join(dir, 'keys.json'), me, { links: 'resolve' }).kind, 'ok', 'TLS-style too');
  });

  it('refuses every other link: elsewhere, absolute, up a level, a linked stamp, another text', () => {
    const outside = join(root, 'outside.json');
    writeFileSync(outside, '{}', { mode: 0o600 });
    const cases: [string, (dir: string) => void][] = [
      [
        'name to elsewhere',
        (d) => {
          rmSync(join(d, 'keys.json'));
          symlinkSync(outside, join(d, 'keys.json'));
        },
      ],
      [
        'name through ./',
        (d) => {
          rmSync(join(d, 'keys.json'));
          symlinkSync('./..data/keys.json', join(d, 'keys.json'));
        },
      ],
      [
        '..data absolute',
        (d) => {
          rmSync(join(d, '..data'));
          symlinkSync(join(d, STAMP), join(d, '..data'));
        },
      ],
      [
        '..data up a level',
        (d) => {
          rmSync(join(d, '..data'));
          symlinkSync('../elsewhere', join(d, '..data'));
        },
      ],
      [
        'stamp is a link',
        (d) => {
          mkdirSync(join(root, 'real-stamp'));
          writeFileSync(join(root, 'real-stamp', 'keys.json'), '{}', { mode: 0o600 });
          rmSync(join(d, '..data'));
          symlinkSync('..linked', join(d, '..data'));
          symlinkSync(join(root, 'real-stamp'), join(d, '..linked'));
        },
      ],
      [
        '..data is a directory',
        (d) => {
          rmSync(join(d, '..data'));
          mkdirSync(join(d, '..data'));
          writeFileSync(join(d, '..data', 'keys.json'), '{}', { mode: 0o600 });
        },
      ],
    ];
    for (const [what, spoil] of cases) {
      const dir = volume(`spoiled-${what.replace(/\W+/g, '-')}`);
      spoil(dir);
      assert.equal(atomicWriterTarget(join(dir, 'keys.json')), null, what);
      const read = readKeyFile(join(dir, 'keys.json'), me);
      assert.equal(read.kind, 'refused', what);
    }
  });

  it('refuses the layout in a directory others can write, on a writable mount', () => {
    const dir = volume('open', 0o1777);
    const read = readKeyFile(join(dir, 'keys.json'), me);
    assert.equal(read.kind, 'refused');
    assert.match(read.kind === 'refused' ? read.reason : '', /writable by group or others \(mode 1777\)/);
  });

  it('accepts it in a mode-1777 directory once the mount is read-only, as kubelet mounts it (root only)', (t) => {
    const mountPoint = join(root, 'mounted');
    mkdirSync(mountPoint);
    const run = (...args: string[]) => spawnSync('mount', args, { encoding: 'utf8' });
    if (process.getuid?.() !== 0 || run('-t', 'tmpfs', '-o', 'size=1m,mode=1777', 'tmpfs', mountPoint).status !== 0) {
      t.skip('needs root and mount(8)');
      return;
    }
    try {
      mkdirSync(join(mountPoint, STAMP), { mode: 0o755 });
      writeFileSync(join(mountPoint, STAMP, 'keys.json'), '{"version":1,"keys":[]}', { mode: 0o600 });
      symlinkSync(STAMP, join(mountPoint, '..data'));
      symlinkSync('..data/keys.json', join(mountPoint, 'keys.json'));
      assert.equal(readKeyFile(join(mountPoint, 'keys.json'), me).kind, 'refused', 'read-write: refused');
      // kubelet's way: a read-only bind mount over the volume.
      assert.equal(run('--bind', mountPoint, mountPoint).status, 0);
      const remount = run('-o', 'remount,bind,ro', mountPoint);
      assert.equal(remount.status, 0, remount.stderr);
      try {
        const read = readKeyFile(join(mountPoint, 'keys.json'), me);
        assert.equal(read.kind, 'ok', read.kind === 'refused' ? read.reason : '');
      } finally {
        spawnSync('umount', [mountPoint]);
      }
    } finally {
      spawnSync('umount', [mountPoint]);
    }
  });
});
