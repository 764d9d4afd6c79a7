/**
 * The served certificate's expiry as a metric (issue 32: an alert on a certificate near its end
 * needs it): credential_generator_tls_certificate_expiry_timestamp_seconds.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { certificateExpiry } from '../../lib/server/main.ts';
import { parseExposition, sample } from '../helpers/exposition.ts';
import { request } from '../helpers/http.ts';
import { startInProcess } from '../helpers/in-process.ts';
import { randomApiKey, ROOT } from '../helpers/server.ts';

const TLS = join(ROOT, 'tests', 'fixtures', 'tls');

/** openssl's notAfter of a PEM file, Unix seconds: a reading independent of node:crypto. */
function opensslNotAfter(file: string): number {
  const r = spawnSync('openssl', ['x509', '-noout', '-enddate', '-in', file], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return Date.parse(r.stdout.trim().replace(/^notAfter=/, '')) / 1000;
}

describe('certificate expiry metric', () => {
  it("reads the leaf certificate's notAfter, as openssl does; null for anything else", () => {
    for (const name of ['rsa', 'ec']) {
      const file = join(TLS, `${name}.cert.pem`);
      assert.equal(certificateExpiry(readFileSync(file)), opensslNotAfter(file), name);
    }
    assert.equal(certificateExpiry(Buffer.from('not a certificate')), null);
  });

  it('is served on /metrics by a TLS instance, and absent without TLS', async () => {
    const server = await startInProcess({
      apiKey: randomApiKey(),
      env: {
        METRICS_PORT: '0',
        TLS_CERT_FILE: join(TLS, 'rsa.cert.pem'),
        TLS_KEY_FILE: join(TLS, 'rsa.key.pem'),
      },
    });
    try {
      const families = parseExposition((await request(server.metricsUrl!, '/metrics')).text);
      assert.equal(
        sample(families, 'credential_generator_tls_certificate_expiry_timestamp_seconds'),
        opensslNotAfter(join(TLS, 'rsa.cert.pem')),
      );
    } finally {
      await server.stop();
    }
    const plain = await startInProcess({ apiKey: randomApiKey(), env: { METRICS_PORT: '0' } });
    try {
      const families = parseExposition((await request(plain.metricsUrl!, '/metrics')).text);
      assert.equal(families.has('credential_generator_tls_certificate_expiry_timestamp_seconds'), false);
    } finally {
      await plain.stop();
    }
  });
});
