/**
 * Where a bucket lives in Redis (docs/redis-rate-limit.md, Key layout): the prefix, the
 * bucket's marker if it has one, then the client in a hash tag:
 *
 *   cg:rl:{203.0.113.7}          the client's own bucket
 *   cg:rl:nokey:{203.0.113.7}    its no-key bucket
 *   cg:rl:badkey:{203.0.113.7}   its failed-key bucket (also the gate of the first)
 *
 * Redis Cluster places a key by the CRC16 of its hash tag (the text between the first `{` and
 * the next `}`) when there is one, so all three buckets of a client share one slot, and the
 * script that checks the gate and charges the bucket in one atomic call never spans two slots
 * (CROSSSLOT), while different clients spread over every master. The prefix stays outside the
 * tag (it cannot hold a brace, lib/server/redis-config.ts), or every key would share one slot.
 * A standalone Redis or one behind Sentinel ignores the braces: the layout is the same
 * everywhere, so data and ACL patterns carry over between the three.
 * @module
 */

/** The markers of a client's other buckets (lib/rate-limit/client-limits.ts names them). They
 * cannot begin an IP address or an IPv6 /56 key, so a bucket name is read back without doubt. */
export const NO_KEY_MARKER = 'nokey:';
export const FAILED_KEY_MARKER = 'badkey:';

/**
 * The Redis key of a bucket. A client key is an address or a /56 prefix (lib/http/client-key.ts),
 * never empty and never starting with `}`, so its tag is never empty: an empty tag (`{}`) would
 * hash the whole key instead and part a client's buckets. Other characters, braces included,
 * keep all of one client's keys together, since each of them starts its tag with the same text.
 */
export function redisKey(prefix: string, bucket: string): string {
  if (bucket.startsWith(NO_KEY_MARKER)) return `${prefix}${NO_KEY_MARKER}{${bucket.slice(NO_KEY_MARKER.length)}}`;
  if (bucket.startsWith(FAILED_KEY_MARKER))
    return `${prefix}${FAILED_KEY_MARKER}{${bucket.slice(FAILED_KEY_MARKER.length)}}`;
  return `${prefix}{${bucket}}`;
}

/** The store's own keys, one per node it has to prove (lib/rate-limit/redis-store.ts). The
 * space keeps them apart from every client's key, whose tag is an address. */
export function probeKey(prefix: string, n: number): string {
  return `${prefix}{ probe ${n}}`;
}

export const CLUSTER_SLOTS = 16_384;

/** CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), the checksum Redis Cluster uses,
 * one table step per byte. */
const CRC_TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

const utf8 = new TextEncoder();

const step = (crc: number, byte: number): number => ((crc << 8) & 0xffff) ^ CRC_TABLE[(crc >> 8) ^ byte];

/** The CRC of a string's UTF-8 bytes; an ASCII string is its own bytes, without encoding it. */
function crc16(text: string): number {
  let crc = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return utf8.encode(text).reduce(step, 0);
    crc = step(crc, code);
  }
  return crc;
}

/** The cluster slot of a key, by the cluster specification's rule: the CRC16 of the hash tag if
 * the key has a non-empty one, else of the whole key, modulo 16,384. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % CLUSTER_SLOTS;
  }
  return crc16(key) % CLUSTER_SLOTS;
}
