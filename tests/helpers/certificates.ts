/**
 * Self-signed certificates for the TLS tests: fresh ones made by the real `openssl` (the
 * integration tests; CI installs it), or the committed fixtures (tests/fixtures/tls/, for the
 * in-process tests, which need no binary).
 * @module
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'tls');

/** A copy of the fixture pair of this kind (CN `fixture-<kind>`), written into `dir` as
 * `<name>.cert.pem` and `<name>.key.pem`. */
export function fixturePair(dir: string, name: string, kind: 'rsa' | 'ec' = 'ec'): { cert: string; key: string } {
  const cert = join(dir, `${name}.cert.pem`);
  const key = join(dir, `${name}.key.pem`);
  copyFileSync(join(FIXTURES, `${kind}.cert.pem`), cert);
  copyFileSync(join(FIXTURES, `${kind}.key.pem`), key);
  return { cert, key };
}

/**
 * A certificate for 127.0.0.1 (CN `name`, valid 2 days) and its key, written into `dir` as
 * `<name>.cert.pem` and `<name>.key.pem`: `ec` is P-256, `rsa` 2048 bits.
 */
export function selfSignedPair(dir: string, name: string, kind: 'rsa' | 'ec' = 'ec'): { cert: string; key: string } {
  const cert = join(dir, `${name}.cert.pem`);
  const key = join(dir, `${name}.key.pem`);
  const algorithm =
    kind === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      ...algorithm,
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}
