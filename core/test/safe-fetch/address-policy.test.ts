import { expect } from 'chai';
import { isBlockedAddress } from '../../src/infra/safe-fetch/address-policy.ts';

describe('address policy', () => {
  const blocked = [
    ['0.0.0.0', 'this network'],
    ['10.0.0.1', 'private 10/8'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback, end of range'],
    ['169.254.169.254', 'cloud metadata (link-local)'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12, end of range'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['192.168.1.1', 'private 192.168/16'],
    ['198.18.0.1', 'benchmarking'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'IPv6 loopback'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['ff02::1', 'multicast'],
    ['64:ff9b::808:808', 'NAT64'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata address'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::a00:1', 'IPv4-compatible private, hex'],
    ['::ffff:0:7f00:1', 'SIIT-translated loopback'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped, uncompressed'],
    ['localhost', 'not an IP at all'],
  ] as const;
  for (const [address, why] of blocked) {
    it(`blocks ${address} (${why})`, () => expect(isBlockedAddress(address)).to.equal(true));
  }

  const allowed = [
    '8.8.8.8',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2002:808:808::1',
  ];
  for (const address of allowed) {
    it(`allows the public address ${address}`, () => expect(isBlockedAddress(address)).to.equal(false));
  }
});
