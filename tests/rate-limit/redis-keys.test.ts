/**
 * The Redis key layout (lib/rate-limit/redis-keys.ts): each bucket's key is the prefix, the
 * bucket's marker, then the client in a hash tag, so all of one client's buckets share a
 * cluster slot and different clients spread over all of them; the slot function is the
 * cluster's own (checked here against values `CLUSTER KEYSLOT` gave on Redis 7.0.15, and in
 * tests/rate-limit/redis-cluster.integration.ts against a live cluster).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failedKeyBucket, noKeyBucket } from '../../lib/rate-limit/client-limits.ts';
import { CLUSTER_SLOTS, keySlot, probeKey, redisKey } from '../../lib/rate-limit/redis-keys.ts';

describe('Redis key layout', () => {
  it('puts the client part, and only it, in a hash tag, after the prefix and the marker', () => {
    assert.equal(redisKey('cg:rl:', '203.0.113.7'), 'cg:rl:{203.0.113.7}');
    assert.equal(redisKey('cg:rl:', noKeyBucket('203.0.113.7')), 'cg:rl:nokey:{203.0.113.7}');
    assert.equal(redisKey('cg:rl:', failedKeyBucket('203.0.113.7')), 'cg:rl:badkey:{203.0.113.7}');
    assert.equal(
      redisKey('p:', failedKeyBucket('2001:db8:abcd:1200::/56')),
      'p:badkey:{2001:db8:abcd:1200::/56}',
      'an IPv6 /56 key',
    );
    assert.equal(probeKey('cg:rl:', 3), 'cg:rl:{ probe 3}');
  });

  it('keeps all three buckets of a client in one slot, whatever the client string', () => {
    for (const client of [
      '203.0.113.7',
      '2001:db8::/56',
      'fe80::1%eth0',
      'a}b',
      'x{y}z',
      'ünï',
      ' ',
      'a'.repeat(300),
    ]) {
      const slot = keySlot(redisKey('cg:rl:', client));
      assert.equal(keySlot(redisKey('cg:rl:', noKeyBucket(client))), slot, client);
      assert.equal(keySlot(redisKey('cg:rl:', failedKeyBucket(client))), slot, client);
      assert.equal(keySlot(redisKey('other-prefix:', client)), slot, 'the prefix does not move it');
    }
  });

  it('spreads clients over the slots: 10,000 addresses hit every quarter of the slot range', () => {
    const quarters = [0, 0, 0, 0];
    for (let i = 0; i < 10_000; i++) {
      quarters[Math.floor((keySlot(redisKey('cg:rl:', `10.${i >> 8}.${i & 255}.1`)) * 4) / CLUSTER_SLOTS)]++;
    }
    // 2,500 expected per quarter; fewer than 2,000 is over 11 standard deviations away (false
    // alarm rate below 1e-28), yet a layout that hashed the prefix would put all in one.
    for (const n of quarters) assert.ok(n > 2_000, quarters.join(','));
  });

  it("is the cluster's slot function: CRC16/XMODEM of the tag, or of the whole key without one", () => {
    // Values from CLUSTER KEYSLOT on Redis 7.0.15 (0x31C3 is the specification's check value).
    const known: [string, number][] = [
      ['123456789', 0x31c3],
      ['somekey', 11_058],
      ['foo{hash_tag}', 2_515],
      ['foo{}{bar}', 8_363],
      ['foo{{bar}}zap', 4_015],
      ['foo{bar}{zap}', 5_061],
      ['{ probe 0}', 14_692],
      ['cg:rl:{203.0.113.7}', 8_508],
      ['x:{üñí}', 4_914],
    ];
    for (const [key, slot] of known) assert.equal(keySlot(key), slot, key);
  });
});
