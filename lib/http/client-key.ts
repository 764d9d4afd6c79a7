/**
 * Which bucket a request belongs to (docs/security.md, The limiter): the socket address,
 * with every IPv6 form that carries an IPv4 address folded to that address (one host must not
 * own two buckets, and one IPv4 host must not own 65,536 of them), link-local addresses per
 * address, and other IPv6 grouped by /56 (one subscriber usually holds a /56 or /64;
 * per-address buckets would let them rotate through 2^64 addresses, the express-rate-limit
 * 8.0 bypass). X-Forwarded-For is read only when the operator says how many proxies stand in
 * front, and then from the right, because every entry left of our own proxies' is written by
 * the client.
 * @module
 */
import { isIPv4, isIPv6 } from 'node:net';

/** Expands an IPv6 literal (no zone) into its 8 hextets, or null if it is not one. */
function hextets(address: string): number[] | null {
  let text = address;
  // A trailing dotted quad (::ffff:1.2.3.4, ::1.2.3.4) becomes two hextets.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return null;
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
  return all.every((h) => Number.isInteger(h) && h >= 0 && h <= 0xffff) ? all : null;
}

const ipv4Of = (hi: number, lo: number): string => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/**
 * The bucket key of one address, by range, never by spelling (express-rate-limit 8.6.2 fixed
 * exactly this):
 * - IPv4: as is;
 * - IPv6 that carries an IPv4 address: that address, so it shares the IPv4 host's bucket:
 *   IPv4-mapped `::ffff:0:0/96`; the well-known NAT64 prefix `64:ff9b::/96` (RFC 6052: an
 *   IPv4 client translated to IPv6, which would otherwise put every IPv4 client in one /56);
 *   6to4 `2002::/16` (RFC 3056: the IPv4 address in bits 16-47, whose /48 holds 256 /56s);
 *   Teredo `2001::/32` (RFC 4380: the client's public IPv4 address, inverted, in the last 32
 *   bits; the /56 would group every client of one Teredo server);
 * - link-local `fe80::/10`: the whole address with its zone (all of a link is one /56, and
 *   such a client can only be on the server's own link);
 * - any other IPv6: its /56 (`2001:db8:ab:cd00::/56`).
 * Anything unparseable is returned unchanged (node only hands us valid addresses; XFF input
 * is checked before it gets here).
 */
export function clientKeyOf(address: string): string {
  if (isIPv4(address)) return address;
  const zone = address.indexOf('%');
  const bare = zone === -1 ? address : address.slice(0, zone);
  const h = isIPv6(bare) ? hextets(bare) : null;
  if (h === null) return address;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = h as [number, number, number, number, number, number, number, number];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return ipv4Of(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Of(g6, g7);
  if (g0 === 0x2002) return ipv4Of(g1, g2);
  if (g0 === 0x2001 && g1 === 0) return ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff);
  if ((g0 & 0xffc0) === 0xfe80)
    return `${h.map((x) => x.toString(16)).join(':')}${zone === -1 ? '' : address.slice(zone)}`;
  return `${g0.toString(16)}:${g1.toString(16)}:${g2.toString(16)}:${(g3 & 0xff00).toString(16)}::/56`;
}

/** One X-Forwarded-For entry as an address: proxies write `1.2.3.4`, but some add a port
 * (`1.2.3.4:5678`, `[2001:db8::1]:443`) or brackets (`[2001:db8::1]`). Null if it is no IP. */
function forwardedAddress(entry: string): string | null {
  let text = entry.trim();
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    const rest = close === -1 ? '' : text.slice(close + 1);
    if (close === -1 || !(rest === '' || /^:\d{1,5}$/.test(rest))) return null;
    text = text.slice(1, close);
    return isIPv6(text) ? text : null;
  }
  const port = /^([^:]+):\d{1,5}$/.exec(text);
  if (port !== null) text = port[1];
  return isIPv4(text) || (port === null && isIPv6(text)) ? text : null;
}

/**
 * The address to rate-limit: the socket peer, or with `hops` trusted proxies the entry
 * `hops` places from the right of X-Forwarded-For. Too few entries or a non-IP entry means a
 * misconfigured chain; we then fall back to the peer (one shared bucket fails safe, while
 * trusting a client-written entry would let anyone pick their own bucket).
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  hops: number,
): string {
  const peer = socketAddress ?? 'unknown';
  if (hops === 0 || forwardedFor === undefined) return peer;
  const joined = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  const entries = joined.split(',');
  if (entries.length < hops) return peer;
  return forwardedAddress(entries[entries.length - hops]) ?? peer;
}

/** What the request log shows of a client: IPv4 /24, IPv6 its /56 bucket, link-local
 * addresses only as such. */
export function maskedAddress(key: string): string {
  if (isIPv4(key)) return `${key.slice(0, key.lastIndexOf('.'))}.0/24`;
  if (/^fe[89ab][0-9a-f]:/.test(key)) return 'fe80::/10';
  return key;
}
