import { BlockList, isIP } from 'node:net';

/**
 * Address ranges an outbound request must never reach: this host, private networks,
 * link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, documentation and
 * benchmark ranges, multicast and reserved space.
 */
const BLOCKED_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4], // includes 255.255.255.255
];

const BLOCKED_V6: ReadonlyArray<readonly [string, number]> = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10], // deprecated site-local, still routed inside some networks
  ['ff00::', 8],
  ['64:ff9b::', 96], // NAT64: a gateway would forward to any IPv4, private ones included
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215), same reason
  ['2001:db8::', 32],
  ['100::', 64], // discard-only
];

const v4List = new BlockList();
for (const [net, prefix] of BLOCKED_V4) v4List.addSubnet(net, prefix, 'ipv4');
const v6List = new BlockList();
for (const [net, prefix] of BLOCKED_V6) v6List.addSubnet(net, prefix, 'ipv6');

/**
 * True when `address` must not be contacted. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped `::ffff:a.b.c.d` in either notation, IPv4-compatible `::a.b.c.d`,
 * SIIT `::ffff:0:a.b.c.d`, 6to4 `2002:AABB:CCDD::`) are judged by that IPv4 address,
 * because the kernel or a relay may route them there. Anything that is not an IP is
 * refused rather than guessed at.
 */
export function isBlockedAddress(address: string): boolean {
  const ip = address.replace(/%.*$/, ''); // a zone id (fe80::1%eth0) says nothing about the range
  const family = isIP(ip);
  if (family === 4) return v4List.check(ip, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIpv4(ipv6Bytes(ip));
  if (embedded !== undefined) return v4List.check(embedded, 'ipv4');
  return v6List.check(ip, 'ipv6');
}

function embeddedIpv4(b: Uint8Array): string | undefined {
  const zeros = (from: number, to: number): boolean => b.subarray(from, to).every((x) => x === 0);
  const last4 = (): string => `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return last4(); // ::ffff:0:0/96 mapped
  if (zeros(0, 12)) return last4(); // ::/96 compatible (:: and ::1 land in 0.0.0.0/8)
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return last4(); // ::ffff:0:0:0/96 SIIT
  if (b[0] === 0x20 && b[1] === 0x02) return `${b[2]}.${b[3]}.${b[4]}.${b[5]}`; // 2002::/16 6to4
  return undefined;
}

/** Expands a valid IPv6 text form (already checked with `isIP`) into its 16 bytes. */
function ipv6Bytes(ip: string): Uint8Array {
  const bytes = new Uint8Array(16);
  let text = ip;
  const tail = text.slice(text.lastIndexOf(':') + 1);
  if (tail.includes('.')) {
    tail.split('.').forEach((part, i) => (bytes[12 + i] = Number(part)));
    text = `${text.slice(0, text.lastIndexOf(':') + 1)}0:0`;
  }
  const [left = '', right] = text.split('::');
  const groups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const head = groups(left);
  const rest = right === undefined ? [] : groups(right);
  const all = [...head, ...new Array<string>(8 - head.length - rest.length).fill('0'), ...rest];
  all.forEach((g, i) => {
    if (i >= 6 && tail.includes('.')) return; // already written from the dotted tail
    const n = parseInt(g, 16);
    bytes[i * 2] = n >> 8;
    bytes[i * 2 + 1] = n & 0xff;
  });
  return bytes;
}
