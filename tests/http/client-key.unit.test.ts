/**
 * Which bucket an address lands in, and which address X-Forwarded-For yields.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientAddress, clientKeyOf, maskedAddress } from '../../lib/http/client-key.ts';

describe('clientKeyOf', () => {
  it('keeps IPv4 as it is', () => {
    assert.equal(clientKeyOf('127.0.0.1'), '127.0.0.1');
    assert.equal(clientKeyOf('203.0.113.250'), '203.0.113.250');
  });

  it('folds IPv4-mapped IPv6 to IPv4 by range, whatever the spelling', () => {
    for (const a of ['::ffff:127.0.0.2', '::FFFF:127.0.0.2', '::ffff:7f00:2', '0:0:0:0:0:ffff:7f00:0002', '0000::ffff:127.0.0.2']) {
      assert.equal(clientKeyOf(a), '127.0.0.2', a);
    }
  });

  it('groups other IPv6 addresses by /56', () => {
    assert.equal(clientKeyOf('2001:db8:aa:bb01::1'), '2001:db8:aa:bb00::/56');
    assert.equal(clientKeyOf('2001:db8:aa:bbff:ffff:ffff:ffff:ffff'), '2001:db8:aa:bb00::/56');
    assert.notEqual(clientKeyOf('2001:db8:aa:bc00::1'), clientKeyOf('2001:db8:aa:bb00::1'));
    assert.equal(clientKeyOf('::1'), '0:0:0:0::/56');
    assert.equal(clientKeyOf('fe80::1%eth0'), 'fe80:0:0:0::/56');
    assert.equal(clientKeyOf('::127.0.0.1'), '0:0:0:0::/56', 'IPv4-compatible is not mapped');
    assert.equal(clientKeyOf('1:2:3:4:5:6:7:8'), '1:2:3:0::/56');
    assert.equal(clientKeyOf('1:2:3:4ff:5:6:7:8'), '1:2:3:400::/56');
  });

  it('returns anything unparseable unchanged', () => {
    for (const a of ['unknown', '', 'not:an:address::x', '1::2::3', '::ffff:999.0.0.1']) assert.equal(clientKeyOf(a), a);
  });
});

describe('clientAddress', () => {
  it('uses the socket address when no proxy is trusted', () => {
    assert.equal(clientAddress('10.0.0.1', '203.0.113.1', 0), '10.0.0.1');
    assert.equal(clientAddress(undefined, undefined, 0), 'unknown');
  });

  it('reads X-Forwarded-For from the right, hops entries in', () => {
    assert.equal(clientAddress('10.0.0.1', '198.51.100.1, 203.0.113.1', 1), '203.0.113.1');
    assert.equal(clientAddress('10.0.0.1', '198.51.100.1, 203.0.113.1', 2), '198.51.100.1');
    assert.equal(clientAddress('10.0.0.1', ['198.51.100.1', '203.0.113.1 , 192.0.2.1'], 2), '203.0.113.1');
    assert.equal(clientAddress('10.0.0.1', ' 2001:db8::1 ', 1), '2001:db8::1');
  });

  it('falls back to the socket address for a short or bogus chain', () => {
    assert.equal(clientAddress('10.0.0.1', undefined, 1), '10.0.0.1');
    assert.equal(clientAddress('10.0.0.1', '203.0.113.1', 2), '10.0.0.1');
    assert.equal(clientAddress('10.0.0.1', 'spoofed, nonsense', 1), '10.0.0.1');
  });
});

describe('maskedAddress', () => {
  it('hides the host part', () => {
    assert.equal(maskedAddress('203.0.113.77'), '203.0.113.0/24');
    assert.equal(maskedAddress('2001:db8:aa:bb00::/56'), '2001:db8:aa:bb00::/56');
  });
});
