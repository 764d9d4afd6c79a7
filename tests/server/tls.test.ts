/**
 * Certificate renewal's decision (lib/server/tls.ts CertificateWatcher.reload) on the fixture
 * pairs: only a new, good pair is installed, and a bad one keeps the last good pair with the
 * reason logged. The real TLS handshakes are in tls.integration.ts.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Logger } from '../../lib/log/logger.ts';
import { CertificateWatcher, pairProblem, readPair } from '../../lib/server/tls.ts';
import { fixturePair } from '../helpers/certificates.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-tls-unit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const ec = fixturePair(dir, 'ec', 'ec');
const rsa = fixturePair(dir, 'rsa', 'rsa');

describe('pairProblem', () => {
  it('accepts a matching pair and names a mismatch or a bad PEM', () => {
    assert.equal(pairProblem(readPair({ certFile: ec.cert, keyFile: ec.key })), null);
    assert.equal(pairProblem(readPair({ certFile: rsa.cert, keyFile: ec.key })), "the key is not the certificate's");
    assert.equal(typeof pairProblem({ cert: Buffer.from('not a pem'), key: Buffer.from('x') }), 'string');
  });
});

describe('CertificateWatcher.reload', () => {
  it('installs only a new, good pair; says why it keeps the old one otherwise', () => {
    const files = { certFile: join(dir, 'w.cert.pem'), keyFile: join(dir, 'w.key.pem') };
    copyFileSync(ec.cert, files.certFile);
    copyFileSync(ec.key, files.keyFile);
    const logged: string[] = [];
    const installed: unknown[] = [];
    const watcher = new CertificateWatcher({
      files,
      loaded: readPair(files),
      logger: new Logger('info', (l) => logged.push(l)),
      install: (o) => installed.push(o),
    });
    const flush = (): Record<string, unknown>[] => {
      (watcher as unknown as { logger: Logger }).logger.flush();
      return logged
        .splice(0)
        .join('')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    };
    assert.equal(watcher.reload(), 'unchanged');
    rmSync(files.keyFile);
    assert.equal(watcher.reload(), 'rejected');
    assert.deepEqual(
      flush().map((l) => [l.level, l.msg, l.reason]),
      [['error', 'TLS files cannot be read; keeping the last good certificate', 'ENOENT']],
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
});
