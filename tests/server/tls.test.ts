/**
 * Certificate renewal's decision (lib/server/tls.ts CertificateWatcher.reload) on the fixture
 * pairs: only a new, good pair is installed, and a bad one keeps the last good pair with the
 * reason logged. The real TLS handshakes are in tls.integration.ts.
 */
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Logger } from '../../lib/log/logger.ts';
import { CertificateWatcher, pairProblem, readPair, type PemPair, type TlsFiles } from '../../lib/server/tls.ts';
import { fixturePair } from '../helpers/certificates.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-tls-unit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const ec = fixturePair(dir, 'ec', 'ec');
const rsa = fixturePair(dir, 'rsa', 'rsa');

/** A watcher on `files` with a logger whose lines `lines()` returns parsed (and forgets). */
function watched(files: TlsFiles): {
  watcher: CertificateWatcher;
  installed: unknown[];
  lines: () => Record<string, unknown>[];
} {
  const logged: string[] = [];
  const logger = new Logger('info', (l) => logged.push(l));
  const installed: unknown[] = [];
  const watcher = new CertificateWatcher({ files, loaded: pairOf(files), logger, install: (o) => installed.push(o) });
  const lines = (): Record<string, unknown>[] => {
    logger.flush();
    return logged
      .splice(0)
      .join('')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };
  return { watcher, installed, lines };
}

/** The pair under the trust rule; fails the test when it is refused. */
function pairOf(files: TlsFiles): PemPair {
  const read = readPair(files);
  assert.ok('pair' in read, JSON.stringify(read));
  return read.pair;
}

describe('pairProblem', () => {
  it('accepts a matching pair and names a mismatch or a bad PEM', () => {
    assert.equal(pairProblem(pairOf({ certFile: ec.cert, keyFile: ec.key })), null);
    assert.equal(pairProblem(pairOf({ certFile: rsa.cert, keyFile: ec.key })), "the key is not the certificate's");
    assert.equal(typeof pairProblem({ cert: Buffer.from('not a pem'), key: Buffer.from('x') }), 'string');
  });
});

describe('CertificateWatcher.reload', () => {
  it('installs only a new, good pair; says why it keeps the old one otherwise', () => {
    const files = { certFile: join(dir, 'w.cert.pem'), keyFile: join(dir, 'w.key.pem') };
    copyFileSync(ec.cert, files.certFile);
    copyFileSync(ec.key, files.keyFile);
    const { watcher, installed, lines: flush } = watched(files);
    assert.equal(watcher.reload(), 'unchanged');
    rmSync(files.keyFile);
    assert.equal(watcher.reload(), 'rejected');
    assert.deepEqual(
      flush().map((l) => [l.level, l.msg, l.reason]),
      [['error', 'TLS files cannot be used; keeping the last good pair', 'ENOENT']],
    );
    copyFileSync(rsa.key, files.keyFile);
    assert.equal(watcher.reload(), 'rejected');
    assert.deepEqual(
      flush().map((l) => [l.level, l.msg]),
      [['error', 'TLS certificate and key rejected; keeping the last good pair']],
    );
    copyFileSync(rsa.cert, files.certFile);
    assert.equal(watcher.reload(), 'installed');
    assert.equal(installed.length, 1);
    assert.match(String((installed[0] as { ciphers: string }).ciphers), /^TLS_AES_128_GCM_SHA256:/);
    assert.equal(watcher.reload(), 'unchanged');
    watcher.close();
  });

  it('S3: at renewal, a pair others can write is not installed (the last good pair stays, one error line); a key others can read is installed with a warning', () => {
    const files = { certFile: join(dir, 's3.cert.pem'), keyFile: join(dir, 's3.key.pem') };
    copyFileSync(ec.cert, files.certFile);
    copyFileSync(ec.key, files.keyFile);
    chmodSync(files.keyFile, 0o600);
    const { watcher, installed, lines } = watched(files);
    // The review's renewal: a 0666 replacement pair.
    copyFileSync(rsa.cert, files.certFile);
    copyFileSync(rsa.key, files.keyFile);
    chmodSync(files.certFile, 0o666);
    chmodSync(files.keyFile, 0o666);
    assert.equal(watcher.reload(), 'rejected');
    assert.deepEqual(
      lines().map((l) => [l.level, l.msg, l.file, l.reason]),
      [
        [
          'error',
          'TLS files cannot be used; keeping the last good pair',
          files.certFile,
          'is writable by group or others (mode 0666; chmod go-w it)',
        ],
      ],
    );
    chmodSync(files.certFile, 0o644);
    assert.equal(watcher.reload(), 'rejected');
    assert.deepEqual(
      lines().map((l) => [l.level, l.file]),
      [['error', files.keyFile]],
    );
    assert.equal(installed.length, 0);
    chmodSync(files.keyFile, 0o644);
    assert.equal(watcher.reload(), 'installed');
    assert.deepEqual(
      lines().map((l) => [l.level, l.msg, l.key, l.mode]),
      [
        ['info', 'TLS certificate reloaded', undefined, undefined],
        ['warn', 'TLS private key is readable by other users; chmod o-r it', files.keyFile, '0644'],
      ],
    );
    watcher.close();
  });
});
