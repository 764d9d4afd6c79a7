/**
 * Which bucket a request belongs to (DECISIONS.md, Rate limit): the socket address, with
 * IPv4-mapped IPv6 folded to IPv4 (one host must not own two buckets) and other IPv6 grouped
 * by /56 (one subscriber usually holds a /56 or /64; per-address buckets would let them rotate
 * through 2^64 addresses, the express-rate-limit 8.0 bypass). X-Forwarded-For is read only
 * when the operator says how many proxies stand in front, and then from the right, because
 * every entry left of our own proxies' is written by the client.
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
  const head = parse(halves[0] as string);
  const rest = halves.length === 2 ? parse(halves[1] as string) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
  return all.every((h) => Number.isInteger(h) && h >= 0 && h <= 0xffff) ? all : null;
}

/**
 * The bucket key of one address: an IPv4 address as is, an IPv4-mapped IPv6 address as its
 * IPv4 form, any other IPv6 address as its /56 prefix (`2001:db8:ab:cd00::/56`). Anything
 * unparseable is returned unchanged (node only hands us valid addresses; XFF input is checked
 * before it gets here).
 */
export function clientKeyOf(address: string): string {
  if (isIPv4(address)) return address;
  const zone = address.indexOf('%');
  const bare = zone === -1 ? address : address.slice(0, zone);
  const h = isIPv6(bare) ? hextets(bare) : null;
  if (h === null) return address;
  // ::ffff:0:0/96 by range, not by spelling (express-rate-limit 8.6.2 fixed exactly this).
  if (h[0] === 0 && h[1] === 0 && h[2] === 0 && h[3] === 0 && h[4] === 0 && h[5] === 0xffff) {
    const g6 = h[6] as number;
    const g7 = h[7] as number;
    return `${g6 >> 8}.${g6 & 0xff}.${g7 >> 8}.${g7 & 0xff}`;
  }
  const g3 = (h[3] as number) & 0xff00;
  return `${h[0]!.toString(16)}:${h[1]!.toString(16)}:${h[2]!.toString(16)}:${g3.toString(16)}::/56`;
}

/**
 * The address to rate-limit: the socket peer, or with `hops` trusted proxies the entry
 * `hops` places from the right of X-Forwarded-For. Too few entries or a non-IP entry means a
 * misconfigured chain; we then fall back to the peer (one shared bucket fails safe, while
 * trusting a client-written entry would let anyone pick their own bucket).
 */
export function clientAddress(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, hops: number): string {
  const peer = socketAddress ?? 'unknown';
  if (hops === 0 || forwardedFor === undefined) return peer;
  const joined = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  const entries = joined.split(',');
  if (entries.length < hops) return peer;
  const entry = (entries[entries.length - hops] as string).trim();
  return isIPv4(entry) || isIPv6(entry) ? entry : peer;
}

/** What the request log shows of a client: IPv4 /24, IPv6 its /56 bucket. */
export function maskedAddress(key: string): string {
  if (isIPv4(key)) return `${key.slice(0, key.lastIndexOf('.'))}.0/24`;
  return key;
}
