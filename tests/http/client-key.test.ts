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
    for (const a of [
      '::ffff:127.0.0.2',
      '::FFFF:127.0.0.2',
      '::ffff:7f00:2',
      '0:0:0:0:0:ffff:7f00:0002',
      '0000::ffff:127.0.0.2',
    ]) {
      assert.equal(clientKeyOf(a), '127.0.0.2', a);
    }
  });

  it('groups other IPv6 addresses by /56', () => {
    assert.equal(clientKeyOf('2001:db8:aa:bb01::1'), '2001:db8:aa:bb00::/56');
    assert.equal(clientKeyOf('2001:db8:aa:bbff:ffff:ffff:ffff:ffff'), '2001:db8:aa:bb00::/56');
    assert.notEqual(clientKeyOf('2001:db8:aa:bc00::1'), clientKeyOf('2001:db8:aa:bb00::1'));
    assert.equal(clientKeyOf('::1'), '0:0:0:0::/56');
    assert.equal(clientKeyOf('::127.0.0.1'), '0:0:0:0::/56', 'IPv4-compatible is not mapped');
    assert.equal(clientKeyOf('1:2:3:4:5:6:7:8'), '1:2:3:0::/56');
    assert.equal(clientKeyOf('1:2:3:4ff:5:6:7:8'), '1:2:3:400::/56');
  });

  it('returns anything unparseable unchanged', () => {
    for (const a of ['unknown', '', 'not:an:address::x', '1::2::3', '::ffff:999.0.0.1'])
      assert.equal(clientKeyOf(a), a);
  });
});

describe('F12: client grouping edge cases', () => {
  // Before: 6to4 gave 256 /56 buckets per IPv4 address; every NAT64-translated IPv4 client
  // shared one bucket, every client of one Teredo server another, a whole link a third; and an
  // X-Forwarded-For entry with a port fell back to the proxy's address.
  const keys: [address: string, key: string, why: string][] = [
    ['2002:c000:0204::1', '192.0.2.4', '6to4 carries its IPv4 address in bits 16-47'],
    ['2002:c000:204:ff00::1', '192.0.2.4', '6to4: every subnet of the /48 is the same IPv4 host'],
    ['2002:c000:204:1::2', '192.0.2.4', '6to4: another subnet, the same bucket'],
    ['2002:c000:205::1', '192.0.2.5', '6to4: another IPv4 address, another bucket'],
    ['64:ff9b::192.0.2.33', '192.0.2.33', 'NAT64 well-known prefix: the translated IPv4 client'],
    ['64:ff9b::c000:222', '192.0.2.34', 'NAT64 in hex'],
    ['64:ff9b:0:0:0:0:c000:223', '192.0.2.35', 'NAT64 written out'],
    [
      '64:ff9b:1::c000:221',
      '64:ff9b:1:0::/56',
      'local-use NAT64 (RFC 8215): where the IPv4 sits depends on the operator, so /56',
    ],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '192.0.2.45', "Teredo: the client's public IPv4, bits inverted"],
    ['2001::4136:e378:8000:63bf:3fff:fdd3', '192.0.2.44', 'Teredo, another client of the same server'],
    ['2001:db8::1', '2001:db8:0:0::/56', '2001:db8::/32 is not Teredo'],
    ['fe80::1%eth0', 'fe80:0:0:0:0:0:0:1%eth0', 'link-local: per address and zone'],
    ['fe80::2%eth0', 'fe80:0:0:0:0:0:0:2%eth0', 'link-local: another host of the link'],
    ['fe80::1%eth1', 'fe80:0:0:0:0:0:0:1%eth1', 'link-local: the same address on another link'],
    ['FE80:0:0:0:0:0:0:1', 'fe80:0:0:0:0:0:0:1', 'link-local: whatever the spelling'],
    ['febf::1', 'febf:0:0:0:0:0:0:1', 'link-local is fe80::/10'],
    ['fec0::1', 'fec0:0:0:0::/56', 'fec0::/10 is not link-local'],
    ['::ffff:192.0.2.4', '192.0.2.4', 'IPv4-mapped, as before'],
  ];
  it('F12: maps 6to4, NAT64 and Teredo to their IPv4 bucket and link-local addresses per address', () => {
    for (const [address, key, why] of keys) assert.equal(clientKeyOf(address), key, `${address}: ${why}`);
    assert.equal(maskedAddress(clientKeyOf('fe80::1%eth0')), 'fe80::/10', 'the log does not show a link-local address');
    assert.equal(maskedAddress(clientKeyOf('2002:c000:204::1')), '192.0.2.0/24');
  });

  const forwarded: [entry: string, address: string][] = [
    ['203.0.113.7:5678', '203.0.113.7'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    [' 203.0.113.7:1 ', '203.0.113.7'],
    ['2001:db8::1', '2001:db8::1'],
    ['203.0.113.7:', '10.0.0.1'],
    ['203.0.113.7:123456', '10.0.0.1'],
    ['[2001:db8::1]:x', '10.0.0.1'],
    ['[2001:db8::1', '10.0.0.1'],
    ['[203.0.113.7]:80', '10.0.0.1'],
    ['2001:db8::1:443', '2001:db8::1:443'],
    ['unknown:80', '10.0.0.1'],
  ];
  it('F12: strips a port (and brackets) from an X-Forwarded-For entry instead of falling back to the proxy', () => {
    for (const [entry, address] of forwarded)
      assert.equal(clientAddress('10.0.0.1', `198.51.100.1, ${entry}`, 1), address, entry);
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
