/**
 * Which content coding a reply of a served file uses, from the request's Accept-Encoding
 * (RFC 9110, 12.5.3). The files are compressed ahead (lib/http/assets.ts), so choosing costs
 * a parse of one header, never a compression.
 *
 * - No Accept-Encoding, or an empty one: identity. (The RFC lets a server pick any coding for
 *   a request without the header; identity is what every client decodes.)
 * - Otherwise the coding with the highest q wins; on equal q the smaller one (br, then gzip,
 *   then identity). `x-gzip` is gzip, codings are case-insensitive, `*` stands for every
 *   coding not named, and q=0 excludes.
 * - identity is acceptable unless excluded (`identity;q=0`, or `*;q=0` without naming it),
 *   and then ranks below any coding the client named.
 * - When the client excludes everything we have, it gets identity all the same: the RFC allows
 *   that ("SHOULD send a response without any content coding"), and a 406 for a page would
 *   help nobody.
 * An entry with a malformed q is ignored, as if it were not there.
 * @module
 */

export type Compressed = 'br' | 'gzip';
export type ContentCoding = Compressed | 'identity';

/** On equal q, the first wins: the smallest reply. */
const PREFERENCE: readonly ContentCoding[] = ['br', 'gzip', 'identity'];
/** identity's rank when the client did not name it: above nothing, below anything named. */
const IMPLICIT = 0.0001;
/** A qvalue: 0 to 1 with at most three decimals. */
const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/** The q of each coding named (the first entry for a coding counts), '*' included. */
function weights(header: string): Map<string, number> {
  const named = new Map<string, number>();
  for (const entry of header.split(',')) {
    const [name, ...params] = entry.split(';').map((part) => part.trim().toLowerCase());
    if (name === '') continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0 || param.slice(0, eq).trim() !== 'q') continue;
      const value = param.slice(eq + 1).trim();
      if (QVALUE.test(value)) q = Number(value);
      else valid = false;
    }
    const coding = name === 'x-gzip' ? 'gzip' : name;
    if (valid && !named.has(coding)) named.set(coding, q);
  }
  return named;
}

/** The coding for a reply that exists as identity and in each of `available`. */
export function chooseEncoding(
  header: string | readonly string[] | undefined,
  available: readonly Compressed[],
): ContentCoding {
  if (header === undefined) return 'identity';
  const text = typeof header === 'string' ? header : header.join(',');
  if (text.trim() === '') return 'identity';
  const named = weights(text);
  const star = named.get('*');
  const qOf = (coding: ContentCoding): number => {
    const q = named.get(coding);
    if (q !== undefined) return q;
    if (coding === 'identity') return star === 0 ? 0 : IMPLICIT;
    return star ?? 0;
  };
  let best: ContentCoding = 'identity';
  let bestQ = 0;
  for (const coding of PREFERENCE) {
    if (coding !== 'identity' && !available.includes(coding)) continue;
    const q = qOf(coding);
    if (q > bestQ) [best, bestQ] = [coding, q];
  }
  return best;
}
