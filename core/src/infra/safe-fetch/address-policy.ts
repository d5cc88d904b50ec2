import { BlockList, isIP } from 'node:net';

/** Addresses no user-supplied URL may reach: private, loopback, link-local (metadata), CGNAT, multicast, reserved. */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The 8 hextets of an IPv6 address (handles `::` and a dotted IPv4 tail). */
function hextets(address: string): number[] {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address hidden in an IPv4-mapped (::ffff:a.b.c.d) or IPv4-compatible (::a.b.c.d) IPv6 address. */
export function embeddedIPv4(address: string): string | undefined {
  const h = hextets(address);
  if (h.length !== 8) return undefined;
  const zeros5 = h.slice(0, 5).every((x) => x === 0);
  const mapped = zeros5 && h[5] === 0xffff;
  const compatible = zeros5 && h[5] === 0 && (h[6] !== 0 || h[7]! > 1);
  if (!mapped && !compatible) return undefined;
  return [h[6]! >> 8, h[6]! & 0xff, h[7]! >> 8, h[7]! & 0xff].join('.');
}

/** True when `address` (an IP literal) must not be reached from a user-supplied URL. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIPv4(address);
    if (v4) return blocked.check(v4, 'ipv4');
    return blocked.check(address.split('%')[0]!, 'ipv6');
  }
  return true;
}
