/**
 * Issue 7, authentication properties (seed printed, FUZZ_SEED replays):
 * - random strings never authenticate: arbitrary text, key-shaped strings, and key-shaped
 *   strings with a *valid* checksum (so they pass every format check and reach the digest
 *   comparison) are all refused by the verifier, as is any prefix/suffix of a real key;
 * - every one-character change of a valid key fails: each substitution at each of the 51
 *   positions by each base62 character (and a few others), each deletion and each insertion,
 *   for issued keys and for an API_KEY-style plain key; CRC-32 also rejects every
 *   substitution offline (isWellFormedKey);
 * - over HTTP the same mutations get the one identical 401.
 */
import { crc32 } from 'node:zlib';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  isWellFormedKey,
  KEY_PREFIX,
  newKey,
  newKeyId,
  sha256,
  verifyKey,
  type ActiveKey,
} from '../../lib/keys/api-keys.ts';
import { fuzzSeed, runsFrom } from '../helpers/fuzz-bodies.ts';
import { postBytes, rawRequest, Seen } from '../helpers/hardening-kit.ts';
import { randomApiKey, startServer } from '../helpers/server.ts';

const seed = fuzzSeed('auth properties');
const RUNS = runsFrom('AUTH_RUNS', 100_000);
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const issued = Array.from({ length: 5 }, () => newKey(newKeyId()));
const plain = randomApiKey();
const active: ActiveKey[] = [...issued, plain].map((k, i) => ({ id: `id${i}`, digest: sha256(k) }));

/** A key-shaped string whose CRC matches, i.e. one that passes every offline check. */
function checksummed(id: string, secret: string): string {
  const body = `${KEY_PREFIX}${id}_${secret}`;
  let n = crc32(body);
  let check = '';
  for (let i = 0; i < 6; i++) {
    check = BASE62[n % 62] + check;
    n = Math.floor(n / 62);
  }
  return body + check;
}

const base62 = (n: number) => fc.string({ unit: fc.constantFrom(...BASE62), minLength: n, maxLength: n });

describe('API key verification', () => {
  it(`${RUNS.toLocaleString('en')} random strings never authenticate`, () => {
    let wellFormed = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.string({ unit: 'binary', maxLength: 80 }),
          fc.tuple(base62(8), base62(38)).map(([id, rest]) => `${KEY_PREFIX}${id}_${rest}`),
          fc.tuple(base62(8), base62(32)).map(([id, secret]) => checksummed(id, secret)),
          fc.tuple(fc.constantFrom(...issued), base62(32)).map(([k, secret]) => checksummed(k.slice(4, 12), secret)),
          fc
            .tuple(fc.constantFrom(...issued, plain), fc.nat(60))
            .map(([k, n]) => (n % 2 === 0 ? k.slice(0, n % k.length) : k.slice(n % k.length))),
        ),
        (candidate) => {
          fc.pre(!issued.includes(candidate) && candidate !== plain);
          if (isWellFormedKey(candidate)) wellFormed++;
          assert.equal(verifyKey(candidate, active), null);
        },
      ),
      { seed, numRuns: RUNS },
    );
    process.stdout.write(`auth: ${RUNS} random candidates refused (${wellFormed} of them had a valid checksum)\n`);
    assert.ok(wellFormed > RUNS / 10, 'a good share reached the digest comparison with a valid format');
  });

  it('every one-character change of a valid key fails (substitution, deletion, insertion)', () => {
    const alphabet = `${BASE62}_-. \u0000\u00e9`;
    let tried = 0;
    for (const key of [...issued, plain]) {
      assert.ok(verifyKey(key, active) !== null, 'the real key works');
      for (let i = 0; i < key.length; i++) {
        for (const ch of alphabet) {
          if (ch === key[i]) continue;
          const changed = key.slice(0, i) + ch + key.slice(i + 1);
          assert.equal(verifyKey(changed, active), null, `substitution at ${i}`);
          if (key !== plain) assert.equal(isWellFormedKey(changed), false, `checksum catches substitution at ${i}`);
          tried++;
        }
        assert.equal(verifyKey(key.slice(0, i) + key.slice(i + 1), active), null, `deletion at ${i}`);
        tried++;
      }
      for (let i = 0; i <= key.length; i++) {
        for (const ch of BASE62) {
          assert.equal(verifyKey(key.slice(0, i) + ch + key.slice(i), active), null, `insertion at ${i}`);
          tried++;
        }
      }
      // Case changes of the whole key, and surrounding whitespace, fail too.
      for (const variant of [key.toUpperCase(), key.toLowerCase(), ` ${key}`, `${key} `, `${key}\n`]) {
        if (variant !== key) assert.equal(verifyKey(variant, active), null);
      }
    }
    process.stdout.write(`auth: ${tried} one-character changes of ${issued.length + 1} keys refused\n`);
  });

  it('over HTTP, one-character changes get the same 401 body as no key at all', async () => {
    const seen = new Seen();
    const key = issued[0];
    seen.add(key);
    const server = await startServer({ apiKey: plain, rateLimitPerMinute: 1_000_000 });
    try {
      const bodies = new Set<string>();
      const mutants = fc.sample(fc.tuple(fc.nat(plain.length - 1), fc.constantFrom(...BASE62)), { seed, numRuns: 200 });
      for (const [i, ch] of mutants) {
        const changed = plain.slice(0, i) + (plain[i] === ch ? (ch === 'a' ? 'b' : 'a') : ch) + plain.slice(i + 1);
        const r = await rawRequest(server.port, postBytes(changed, '{"mode":"password"}', 'Connection: close\r\n'));
        assert.equal(r?.status, 401);
        bodies.add(`${r.body}|${r.headers['www-authenticate']}`);
      }
      const none = await rawRequest(
        server.port,
        'POST /generate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
      );
      bodies.add(`${none!.body}|${none!.headers['www-authenticate']}`);
      assert.equal(bodies.size, 1, 'one identical 401 for every failure');
      const good = await rawRequest(server.port, postBytes(plain, '{"mode":"password"}', 'Connection: close\r\n'));
      assert.equal(good?.status, 200);
      seen.addGenerated(JSON.parse(good.body));
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
    seen.add(plain);
    seen.assertNowhere([server.output()]);
  });
});
