/**
 * The key check's timing promise (lib/keys/api-keys.ts verifyKey; docs/audit.md, claim 4),
 * checked on the calls it makes rather than on a clock: the presented key is hashed, then
 * `timingSafeEqual` runs on two 32-byte digests once per configured key, whichever key
 * matches, whether one matches, and whatever the presented key's length.
 */
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { sha256, verifyKey, type ActiveKey } from '../../lib/keys/api-keys.ts';

describe('verifyKey compares in constant time', () => {
  let calls: [Buffer, Buffer][] = [];

  beforeEach(() => {
    calls = [];
    const real = crypto.timingSafeEqual;
    mock.method(crypto, 'timingSafeEqual', (a: Buffer, b: Buffer) => {
      calls.push([a, b]);
      return real(a, b);
    });
    syncBuiltinESMExports(); // the named import in api-keys.ts now sees the spy
  });

  afterEach(() => {
    mock.restoreAll();
    syncBuiltinESMExports();
  });

  const keys: ActiveKey[] = ['first', 'second', 'third', 'fourth'].map((name, i) => ({
    id: `id${i}`,
    digest: sha256(`key-${name}-0123456789`),
  }));

  it('compares every configured digest, with no early exit, first key, last key or none', () => {
    for (const [presented, id] of [
      ['key-first-0123456789', 'id0'],
      ['key-fourth-0123456789', 'id3'],
      ['key-fifth-0123456789', null],
    ] as const) {
      calls = [];
      assert.equal(verifyKey(presented, keys), id);
      assert.equal(calls.length, keys.length, presented);
      assert.deepEqual(
        calls.map(([, stored]) => stored),
        keys.map((k) => k.digest),
      );
    }
  });

  it('compares 32-byte digests whatever the presented length: never the key itself', () => {
    for (const presented of ['', 'x', 'key-first-0123456789', 'y'.repeat(10_000)]) {
      calls = [];
      verifyKey(presented, keys);
      assert.equal(calls.length, keys.length);
      for (const [a, b] of calls) {
        assert.equal(a.length, 32);
        assert.equal(b.length, 32);
        assert.deepEqual(a, sha256(presented));
      }
    }
  });
});
