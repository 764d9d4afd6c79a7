/**
 * parseConfig: defaults, and every bad value refused with a message naming its variable.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fdLimitWarning, parseConfig } from '../../lib/server/config.ts';
import { ConfigError } from '../../lib/server/env.ts';
import { fixturePair } from '../helpers/certificates.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function refusal(env: Record<string, string>): ConfigError {
  try {
    parseConfig(env, dir);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
}

describe('parseConfig', () => {
  it('has the documented defaults (docs/deploy.md, Configuration)', () => {
    assert.deepEqual(parseConfig({}, dir), {
      port: 8080,
      host: '127.0.0.1',
      keysFile: join(dir, 'keys.json'),
      keysFileExplicit: false,
      policiesFile: null,
      apiKey: null,
      rateLimitPerMinute: 20,
      rateLimitSweepSeconds: 60,
      minEntropyBits: 0,
      rateLimitRedis: null,
      trustProxyHops: 0,
      connections: { total: 500, perAddress: 64 },
      tls: null,
      logLevel: 'info',
      metrics: null,
      warnings: [],
    });
  });

  it('warns when the fd limit leaves less than 128 fds beside MAX_CONNECTIONS', () => {
    const limits = (soft: string) =>
      `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                ${soft}                files\n`;
    assert.equal(fdLimitWarning(500, limits('1024')), null);
    assert.equal(fdLimitWarning(500, limits('628')), null);
    assert.equal(fdLimitWarning(500, limits('unlimited')), null);
    assert.equal(fdLimitWarning(500, null), null, 'no /proc');
    assert.equal(fdLimitWarning(500, 'nothing about files'), null);
    assert.deepEqual(fdLimitWarning(500, limits('627')), {
      message: 'the fd limit is below MAX_CONNECTIONS + 128: raise LimitNOFILE (or ulimit -n) or lower MAX_CONNECTIONS',
      fields: { fdLimit: '627', maxConnections: '500' },
    });
    // This process's own limit, read as the start reads it.
    const own = Number(/^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))![1]);
    const warned = parseConfig({ MAX_CONNECTIONS: String(Math.min(own, 100_000)) }, dir).warnings;
    assert.equal(warned.length, own <= 100_000 ? 1 : 0);
  });

  it('reads the connection caps (T1): behind a proxy the per-address cap defaults to the total', () => {
    const caps = (env: Record<string, string>) => parseConfig(env, dir).connections;
    assert.deepEqual(caps({ MAX_CONNECTIONS: '2000', MAX_CONNECTIONS_PER_ADDRESS: '10' }), {
      total: 2000,
      perAddress: 10,
    });
    assert.deepEqual(caps({ MAX_CONNECTIONS: '20' }), { total: 20, perAddress: 20 });
    assert.deepEqual(caps({ TRUST_PROXY_HOPS: '1' }), { total: 500, perAddress: 500 });
    assert.deepEqual(caps({ TRUST_PROXY_HOPS: '1', MAX_CONNECTIONS_PER_ADDRESS: '300' }), {
      total: 500,
      perAddress: 300,
    });
    assert.deepEqual(caps({ MAX_CONNECTIONS: '100000', MAX_CONNECTIONS_PER_ADDRESS: '100000' }), {
      total: 100_000,
      perAddress: 100_000,
    });
  });

  it('treats empty values as unset', () => {
    assert.equal(parseConfig({ PORT: '', LOG_LEVEL: '' }, dir).port, 8080);
  });

  it('reads every variable', () => {
    fixturePair(dir, 'c');
    const c = parseConfig(
      {
        PORT: '0',
        HOST: '::1',
        API_KEYS_FILE: 'sub/k.json',
        POLICIES_FILE: 'sub/policies.json',
        API_KEY: 'k'.repeat(16),
        RATE_LIMIT_PER_MINUTE: '1000',
        RATE_LIMIT_SWEEP_SECONDS: '1',
        MIN_ENTROPY_BITS: '64.5',
        TRUST_PROXY_HOPS: '2',
        TLS_CERT_FILE: 'c.cert.pem',
        TLS_KEY_FILE: join(dir, 'c.key.pem'),
        LOG_LEVEL: 'debug',
        METRICS_PORT: '9464',
        METRICS_HOST: '::1',
      },
      dir,
    );
    assert.equal(c.port, 0);
    assert.equal(c.host, '::1');
    assert.equal(c.keysFile, join(dir, 'sub', 'k.json'));
    assert.equal(c.keysFileExplicit, true);
    assert.equal(c.policiesFile, join(dir, 'sub', 'policies.json'));
    assert.equal(c.apiKey, 'k'.repeat(16));
    assert.equal(c.rateLimitPerMinute, 1000);
    assert.equal(c.rateLimitSweepSeconds, 1);
    assert.equal(parseConfig({ RATE_LIMIT_SWEEP_SECONDS: '60' }, dir).rateLimitSweepSeconds, 60);
    assert.equal(c.minEntropyBits, 64.5);
    assert.equal(parseConfig({ MIN_ENTROPY_BITS: '256' }, dir).minEntropyBits, 256);
    assert.equal(parseConfig({ MIN_ENTROPY_BITS: '0' }, dir).minEntropyBits, 0);
    assert.equal(c.trustProxyHops, 2);
    assert.match(c.tls!.cert.toString(), /CERTIFICATE/);
    assert.deepEqual([c.tls!.certFile, c.tls!.keyFile], [join(dir, 'c.cert.pem'), join(dir, 'c.key.pem')]);
    assert.equal(c.logLevel, 'debug');
    assert.equal(parseConfig({ HOST: 'localhost' }, dir).host, 'localhost');
    assert.deepEqual(c.metrics, { port: 9464, host: '::1' });
    assert.deepEqual(parseConfig({ METRICS_PORT: '9464' }, dir).metrics, { port: 9464, host: '127.0.0.1' });
    assert.deepEqual(parseConfig({ METRICS_PORT: '0', PORT: '0' }, dir).metrics, { port: 0, host: '127.0.0.1' });
  });

  it('refuses bad values, naming the variable', () => {
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ PORT: 'http' }, 'PORT', /^PORT must be an integer from 0 to 65535 \(got "http"\)$/],
      [{ PORT: '65536' }, 'PORT', /65535/],
      [{ PORT: '0x50' }, 'PORT', /0x50/],
      [{ PORT: '-1' }, 'PORT', /PORT/],
      [{ PORT: '1e3' }, 'PORT', /PORT/],
      [{ HOST: 'example.com' }, 'HOST', /^HOST must be an IPv4 or IPv6 address/],
      [{ API_KEY: 'short' }, 'API_KEY', /^API_KEY must be 16 to 256 printable ASCII characters without spaces$/],
      [{ API_KEY: 'has a space in it somewhere' }, 'API_KEY', /API_KEY/],
      [{ RATE_LIMIT_PER_MINUTE: '0' }, 'RATE_LIMIT_PER_MINUTE', /from 1 to/],
      [{ RATE_LIMIT_PER_MINUTE: '2.5' }, 'RATE_LIMIT_PER_MINUTE', /2\.5/],
      [
        { RATE_LIMIT_SWEEP_SECONDS: '0' },
        'RATE_LIMIT_SWEEP_SECONDS',
        /^RATE_LIMIT_SWEEP_SECONDS must be an integer from 1 to 60 \(seconds; got "0"\)$/,
      ],
      [{ RATE_LIMIT_SWEEP_SECONDS: '61' }, 'RATE_LIMIT_SWEEP_SECONDS', /from 1 to 60/],
      [{ RATE_LIMIT_SWEEP_SECONDS: '0.5' }, 'RATE_LIMIT_SWEEP_SECONDS', /"0\.5"/],
      [{ RATE_LIMIT_SWEEP_SECONDS: '1m' }, 'RATE_LIMIT_SWEEP_SECONDS', /"1m"/],
      [{ TRUST_PROXY_HOPS: '11' }, 'TRUST_PROXY_HOPS', /from 0 to 10/],
      [{ TRUST_PROXY_HOPS: 'true' }, 'TRUST_PROXY_HOPS', /TRUST_PROXY_HOPS/],
      [
        { MIN_ENTROPY_BITS: '257' },
        'MIN_ENTROPY_BITS',
        /^MIN_ENTROPY_BITS must be a number of bits from 0 to 256 \(got "257"\)$/,
      ],
      [{ MIN_ENTROPY_BITS: '-1' }, 'MIN_ENTROPY_BITS', /MIN_ENTROPY_BITS/],
      [{ MIN_ENTROPY_BITS: '64 bits' }, 'MIN_ENTROPY_BITS', /"64 bits"/],
      [{ MIN_ENTROPY_BITS: '1e2' }, 'MIN_ENTROPY_BITS', /MIN_ENTROPY_BITS/],
      [{ MIN_ENTROPY_BITS: 'Infinity' }, 'MIN_ENTROPY_BITS', /MIN_ENTROPY_BITS/],
      [
        { LOG_LEVEL: 'verbose' },
        'LOG_LEVEL',
        /^LOG_LEVEL must be one of silent, error, warn, info, debug \(got "verbose"\)$/,
      ],
      [{ TLS_CERT_FILE: 'c.cert.pem' }, 'TLS_KEY_FILE', /must be set together with TLS_CERT_FILE/],
      [{ TLS_KEY_FILE: 'c.key.pem' }, 'TLS_CERT_FILE', /must be set together with TLS_KEY_FILE/],
      [{ TLS_CERT_FILE: 'nope.pem', TLS_KEY_FILE: 'c.key.pem' }, 'TLS_CERT_FILE', /does not exist/],
      [
        { TLS_CERT_FILE: 'a-dir', TLS_KEY_FILE: 'c.key.pem' },
        'TLS_CERT_FILE',
        /cannot be used: "a-dir" is not a regular file$/,
      ],
      [{ TLS_CERT_FILE: 'c.cert.pem', TLS_KEY_FILE: 'plain.txt' }, 'TLS_KEY_FILE', /is not a PEM file/],
      [{ PORT: 'x'.repeat(100) }, 'PORT', /"x{40}\.\.\."/],
      [{ METRICS_PORT: '65536' }, 'METRICS_PORT', /^METRICS_PORT must be an integer from 0 to 65535/],
      [{ METRICS_PORT: '8080' }, 'METRICS_PORT', /^METRICS_PORT must differ from PORT/],
      [{ METRICS_PORT: '9000', PORT: '9000' }, 'METRICS_PORT', /must differ from PORT/],
      [{ METRICS_PORT: '9464', METRICS_HOST: 'metrics.local' }, 'METRICS_HOST', /^METRICS_HOST must be an IPv4/],
      [{ METRICS_HOST: '0.0.0.0' }, 'METRICS_HOST', /^METRICS_HOST is set but METRICS_PORT is not$/],
      [
        { MAX_CONNECTIONS: '0' },
        'MAX_CONNECTIONS',
        /^MAX_CONNECTIONS must be an integer from 1 to 100000 \(got "0"\)$/,
      ],
      [{ MAX_CONNECTIONS: '100001' }, 'MAX_CONNECTIONS', /from 1 to 100000/],
      [{ MAX_CONNECTIONS: 'many' }, 'MAX_CONNECTIONS', /"many"/],
      [{ MAX_CONNECTIONS_PER_ADDRESS: '0' }, 'MAX_CONNECTIONS_PER_ADDRESS', /from 1 to 100000/],
      [{ MAX_CONNECTIONS_PER_ADDRESS: '1.5' }, 'MAX_CONNECTIONS_PER_ADDRESS', /"1\.5"/],
      [
        { MAX_CONNECTIONS: '100', MAX_CONNECTIONS_PER_ADDRESS: '101' },
        'MAX_CONNECTIONS_PER_ADDRESS',
        /^MAX_CONNECTIONS_PER_ADDRESS must not exceed MAX_CONNECTIONS \(100\) \(got "101"\)$/,
      ],
      [
        { MAX_CONNECTIONS_PER_ADDRESS: '501' },
        'MAX_CONNECTIONS_PER_ADDRESS',
        /must not exceed MAX_CONNECTIONS \(500\)/,
      ],
    ];
    writeFileSync(join(dir, 'plain.txt'), 'hello');
    mkdirSync(join(dir, 'a-dir'));
    for (const [env, variable, message] of cases) {
      const error = refusal(env);
      assert.equal(error.variable, variable, JSON.stringify(env));
      assert.match(error.message, message);
      assert.ok(!error.message.includes('\n'), 'one line');
    }
    assert.ok(!refusal({ API_KEY: 'secret!' }).message.includes('secret!'), 'a key is never echoed');
  });

  it('S3: a TLS file others can write, or in a directory others can write, stops the start naming its variable; a key others can read is a warning', () => {
    const tlsDir = join(dir, 's3');
    mkdirSync(tlsDir, { mode: 0o700 });
    const { cert, key } = fixturePair(tlsDir, 'p');
    chmodSync(cert, 0o644);
    chmodSync(key, 0o600);
    const env = { TLS_CERT_FILE: cert, TLS_KEY_FILE: key };
    assert.deepEqual(parseConfig(env, dir).warnings, []);

    chmodSync(key, 0o644);
    assert.deepEqual(parseConfig(env, dir).warnings, [
      { message: 'TLS private key is readable by other users; chmod o-r it', fields: { key, mode: '0644' } },
    ]);
    chmodSync(key, 0o666);
    let error = refusal(env);
    assert.equal(error.variable, 'TLS_KEY_FILE');
    assert.match(
      error.message,
      /^TLS_KEY_FILE names a file that cannot be used: ".+" is writable by group or others \(mode 0666; chmod go-w it\)$/,
    );
    chmodSync(key, 0o600);
    chmodSync(cert, 0o666);
    assert.equal(refusal(env).variable, 'TLS_CERT_FILE');
    chmodSync(cert, 0o644);
    chmodSync(tlsDir, 0o777);
    error = refusal(env);
    assert.equal(error.variable, 'TLS_CERT_FILE');
    assert.match(error.message, /which is writable by group or others \(mode 0777\)$/);
    chmodSync(tlsDir, 0o700);

    // certbot's layout: the names are links into archive/; what they lead to is judged.
    mkdirSync(join(tlsDir, 'live'));
    symlinkSync(cert, join(tlsDir, 'live', 'fullchain.pem'));
    symlinkSync(key, join(tlsDir, 'live', 'privkey.pem'));
    const linked = parseConfig({ TLS_CERT_FILE: 'live/fullchain.pem', TLS_KEY_FILE: 'live/privkey.pem' }, tlsDir);
    assert.match(linked.tls!.key.toString(), /PRIVATE KEY/);
    chmodSync(key, 0o666);
    assert.equal(
      refusal({
        TLS_CERT_FILE: join(tlsDir, 'live', 'fullchain.pem'),
        TLS_KEY_FILE: join(tlsDir, 'live', 'privkey.pem'),
      }).variable,
      'TLS_KEY_FILE',
    );
  });
});
