/**
 * HTTPS: which protocol versions and suites a real TLS client (openssl s_client) can get
 * (security review F9), a certificate pair that does not match stopping the start, and
 * certificate renewal without a restart: a good new pair is served to new connections, a bad
 * one keeps the last good pair and says why. S3 (docs/security.md): a certificate or key that
 * others can write is refused at start and at renewal, through certbot's links too.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { X509Certificate } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { selfSignedPair } from '../helpers/certificates.ts';
import { launchServer, randomApiKey, startServer, type RunningServer } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-tls-'));

const makePair = (name: string, kind: 'rsa' | 'ec'): { cert: string; key: string } => selfSignedPair(dir, name, kind);

/** The suite openssl s_client negotiates with these flags, or null when the server refuses.
 * The kill timer only stops a client that hangs: a refusal or a handshake takes milliseconds. */
function negotiated(port: number, flags: readonly string[]): string | null {
  const r = spawnSync('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, ...flags], {
    input: '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.error, undefined, `openssl s_client: ${String(r.error)}`);
  const m = /Cipher is (\S+)/.exec(r.stdout);
  return m === null || m[1] === '(NONE)' ? null : m[1];
}

/** The certificate the server presents to a new connection (its subject CN). */
function presented(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const cert = socket.getPeerX509Certificate() as X509Certificate;
      socket.destroy();
      resolve(/CN=(\S+)/.exec(cert.subject)![1]);
    });
    socket.on('error', reject);
  });
}

let rsa: { cert: string; key: string };
let ec: { cert: string; key: string };

before(() => {
  rsa = makePair('rsa', 'rsa');
  ec = makePair('ec', 'ec');
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe('TLS protocol and suites (F9: forward secrecy and AEAD only)', () => {
  for (const kind of ['rsa', 'ec'] as const) {
    it(`F9: with an ${kind.toUpperCase()} certificate, no suite without forward secrecy or with CBC/SHA-1 is negotiated; ECDHE+AEAD and TLS 1.3 are`, async () => {
      const pair = kind === 'rsa' ? rsa : ec;
      const server = await startServer({
        apiKey: randomApiKey(),
        env: { TLS_CERT_FILE: pair.cert, TLS_KEY_FILE: pair.key },
      });
      try {
        const refused =
          kind === 'rsa'
            ? [
                'AES128-SHA',
                'AES256-GCM-SHA384',
                'AES128-GCM-SHA256',
                'ECDHE-RSA-AES128-SHA',
                'ECDHE-RSA-AES256-SHA384',
              ]
            : ['ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA384', 'ECDHE-ECDSA-AES128-SHA256'];
        for (const suite of refused) assert.equal(negotiated(server.port, ['-tls1_2', '-cipher', suite]), null, suite);
        const accepted =
          kind === 'rsa'
            ? ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-RSA-CHACHA20-POLY1305']
            : ['ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-CHACHA20-POLY1305'];
        for (const suite of accepted) assert.equal(negotiated(server.port, ['-tls1_2', '-cipher', suite]), suite);
        assert.match(
          negotiated(server.port, ['-tls1_3']) ?? 'none',
          /^TLS_(AES_(128|256)_GCM|CHACHA20_POLY1305)_SHA(256|384)$/,
        );
        assert.equal(negotiated(server.port, ['-tls1_1', '-cipher', 'DEFAULT@SECLEVEL=0']), null, 'TLS 1.1');
      } finally {
        assert.equal((await server.stop()).code, 0);
      }
    });
  }
});

describe('TLS certificate files', () => {
  it('a key that does not match the certificate stops the start with one line', async () => {
    const launched = launchServer({ apiKey: randomApiKey(), env: { TLS_CERT_FILE: rsa.cert, TLS_KEY_FILE: ec.key } });
    // Bounded: a server that starts anyway must fail this test, not hang it.
    const listening = launched.waitForOutput(/"msg":"listening on /, 60_000).then(
      () => launched.stop(),
      () => undefined,
    );
    const exit = await launched.exited;
    await listening;
    assert.equal(exit.code, 1);
    assert.match(
      launched.output(),
      /^configuration error: TLS_KEY_FILE and TLS_CERT_FILE do not make a usable pair \([^\n]+\)\n$/,
    );
  });

  it('renewal: a new pair on disk is served without a restart; a bad one keeps the last good pair and logs why', async () => {
    const live = { cert: join(dir, 'live.cert.pem'), key: join(dir, 'live.key.pem') };
    copyFileSync(ec.cert, live.cert);
    copyFileSync(ec.key, live.key);
    const server: RunningServer = await startServer({
      apiKey: randomApiKey(),
      env: { TLS_CERT_FILE: live.cert, TLS_KEY_FILE: live.key },
    });
    try {
      assert.equal(await presented(server.port), 'ec');

      // As a renewal tool does it: each file replaced by rename, the key a moment after the
      // cert. Both new files are written first, so the moment between the two renames is two
      // system calls: the server acts one poll (1 s) after the last change it saw, and a
      // stall between the renames longer than that would rightly show it a mismatched pair.
      const stage = (from: string, to: string): (() => void) => {
        writeFileSync(`${to}.new`, readFileSync(from));
        return () => renameSync(`${to}.new`, to);
      };
      const [certIn, keyIn] = [stage(rsa.cert, live.cert), stage(rsa.key, live.key)];
      certIn();
      keyIn();
      await server.waitForOutput(/"msg":"TLS certificate reloaded"/);
      assert.equal(await presented(server.port), 'rsa');
      assert.doesNotMatch(server.output(), /rejected/, 'the pair was read once both files had settled');

      // A certificate without its key: refused, the RSA pair keeps serving.
      stage(ec.cert, live.cert)();
      await server.waitForOutput(/"msg":"TLS certificate and key rejected; keeping the last good pair"/);
      assert.equal(await presented(server.port), 'rsa');
      const line = server
        .output()
        .split('\n')
        .find((l) => l.includes('rejected'))!;
      assert.ok(
        !line.includes('PRIVATE KEY') && !line.includes(readFileSync(rsa.key, 'utf8').split('\n')[1]),
        'no key material in the log',
      );
      assert.equal(JSON.parse(line).level, 'error');
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});

describe('S3: TLS files others can write are not trusted', () => {
  it('S3: a 0666 certificate and key stop the start with one line naming the variable', async () => {
    const open = { cert: join(dir, 'open.cert.pem'), key: join(dir, 'open.key.pem') };
    copyFileSync(ec.cert, open.cert);
    copyFileSync(ec.key, open.key);
    chmodSync(open.cert, 0o666);
    chmodSync(open.key, 0o666);
    const launched = launchServer({
      apiKey: randomApiKey(),
      env: { TLS_CERT_FILE: open.cert, TLS_KEY_FILE: open.key },
    });
    launched.waitForOutput(/listening on/).then(
      () => launched.stop(),
      () => undefined,
    );
    const exit = await launched.exited;
    assert.equal(exit.code, 1, launched.output());
    assert.match(
      launched.output(),
      /^configuration error: TLS_CERT_FILE names a file that cannot be used: ".+" is writable by group or others \(mode 0666; chmod go-w it\)\n$/,
    );
  });

  it("S3: renewal through certbot's links: a 0666 pair is refused (error line, the last good pair keeps serving), a private pair is served", async () => {
    // live/ names are links into archive/, which a renewal moves to the new files.
    const site = join(dir, 'letsencrypt');
    mkdirSync(join(site, 'archive'), { recursive: true, mode: 0o700 });
    mkdirSync(join(site, 'live'), { mode: 0o755 });
    const version = (n: number, pair: { cert: string; key: string }, mode: number): void => {
      copyFileSync(pair.cert, join(site, 'archive', `cert${n}.pem`));
      copyFileSync(pair.key, join(site, 'archive', `privkey${n}.pem`));
      chmodSync(join(site, 'archive', `cert${n}.pem`), mode);
      chmodSync(join(site, 'archive', `privkey${n}.pem`), mode === 0o666 ? 0o666 : 0o600);
    };
    const point = (n: number): void => {
      for (const [name, file] of [
        ['cert.pem', `cert${n}.pem`],
        ['privkey.pem', `privkey${n}.pem`],
      ]) {
        symlinkSync(`../archive/${file}`, join(site, 'live', `${name}.new`));
        renameSync(join(site, 'live', `${name}.new`), join(site, 'live', name));
      }
    };
    version(1, ec, 0o644);
    point(1);
    const server = await startServer({
      apiKey: randomApiKey(),
      env: { TLS_CERT_FILE: join(site, 'live', 'cert.pem'), TLS_KEY_FILE: join(site, 'live', 'privkey.pem') },
    });
    try {
      assert.equal(await presented(server.port), 'ec');
      // The review's renewal: a 0666 replacement pair, installed within 2 s before the fix.
      version(2, rsa, 0o666);
      let from = server.output().length;
      point(2);
      await server.waitForOutput(/"msg":"TLS files cannot be used; keeping the last good pair"/, 30_000, from);
      const line = JSON.parse(
        server
          .output()
          .slice(from)
          .split('\n')
          .find((l) => l.includes('cannot be used'))!,
      ) as Record<string, string>;
      assert.equal(line.level, 'error');
      assert.equal(line.reason, 'is writable by group or others (mode 0666; chmod go-w it)');
      assert.equal(await presented(server.port), 'ec');
      assert.doesNotMatch(server.output(), /TLS certificate reloaded/);
      // Made private, the same renewal is served.
      from = server.output().length;
      version(3, rsa, 0o644);
      point(3);
      await server.waitForOutput(/"msg":"TLS certificate reloaded"/, 30_000, from);
      assert.equal(await presented(server.port), 'rsa');
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});
