/**
 * API keys (docs/deploy.md, Key files): the format, the key file, and verification.
 *
 * Format `cgk_<id>_<secret><check>`: `cgk_` lets secret scanners and humans recognise a
 * leaked key; `<id>` (8 base62) is public and names the key in logs and in `keys list`;
 * `<secret>` is 32 base62 characters from the CSPRNG (~190 bits); `<check>` is a CRC-32 of the
 * rest in 6 base62 characters, so a scanner can tell a real key from a look-alike offline
 * (GitHub's token scheme). Only SHA-256 digests are stored: a fast hash is right here because
 * the secret is long and random, so there is nothing to brute-force.
 * @module
 */
import { hash, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX = 'cgk_';
/** Published for secret scanners (docs/deploy.md, Key files). */
export const KEY_PATTERN = /^cgk_([0-9A-Za-z]{8})_([0-9A-Za-z]{38})$/;
/** A key's public id, as `keys revoke` and `keys replace` take it. */
export const KEY_ID_PATTERN = /^[0-9A-Za-z]{8}$/;
const HEX64 = /^[0-9a-f]{64}$/;

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

function checkOf(body: string): string {
  // CRC-32 (IEEE) of the ASCII body: zlib.crc32, Node >= 20.15, below the engines floor.
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out; // 62^6 > 2^32, so 6 digits always suffice
}

export function newKeyId(): string {
  return randomBase62(8);
}

/** A fresh key for the given public id. */
export function newKey(id: string): string {
  const body = `${KEY_PREFIX}${id}_${randomBase62(32)}`;
  return body + checkOf(body);
}

/**
 * True when the text has the key shape and a correct check. This is the offline test a secret
 * scanner runs on a match of KEY_PATTERN (and tests use). The server does not
 * (docs/security.md, Keys): the digest comparison already refuses every key that was
 * not issued, look-alike or not; API_KEY need not have this shape; and checking first would
 * cost every good key about half of the hash it saves on a bad one, while making a refusal's
 * timing depend on the form of what was sent.
 */
export function isWellFormedKey(text: string): boolean {
  return KEY_PATTERN.test(text) && checkOf(text.slice(0, -6)) === text.slice(-6);
}

/** SHA-256 of the text's UTF-8 bytes (crypto.hash: Node >= 20.12, below the engines floor). */
export function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

// --- the key file -------------------------------------------------------------------------

export interface KeyRecord {
  id: string;
  holder: string;
  created: string;
  revoked: string | null;
  sha256: string;
}

export interface KeyFile {
  version: 1;
  keys: KeyRecord[];
}

export function emptyKeyFile(): KeyFile {
  return { version: 1, keys: [] };
}

function isTimestamp(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 40 && !Number.isNaN(Date.parse(value));
}

/**
 * Parses and checks a key file strictly; throws an Error whose message says what is wrong
 * (never quoting a digest). A half-valid file is rejected whole: guessing which records to
 * keep could re-enable a revoked key.
 */
export function parseKeyFile(text: string): KeyFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error('is not valid JSON');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('must be a JSON object');
  const file = data as Record<string, unknown>;
  if (file.version !== 1) throw new Error('must have "version": 1');
  if (!Array.isArray(file.keys)) throw new Error('must have a "keys" array');
  const ids = new Set<string>();
  const keys = file.keys.map((raw: unknown, i: number): KeyRecord => {
    const where = `keys[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${where} must be an object`);
    const r = raw as Record<string, unknown>;
    if (typeof r.id !== 'string' || !KEY_ID_PATTERN.test(r.id))
      throw new Error(`${where}.id must be 8 base62 characters`);
    if (ids.has(r.id)) throw new Error(`${where}.id is a duplicate`);
    ids.add(r.id);
    if (typeof r.holder !== 'string' || r.holder.length === 0 || r.holder.length > 200) {
      throw new Error(`${where}.holder must be a string of 1 to 200 characters`);
    }
    if (!isTimestamp(r.created)) throw new Error(`${where}.created must be a timestamp`);
    if (r.revoked !== null && r.revoked !== undefined && !isTimestamp(r.revoked)) {
      throw new Error(`${where}.revoked must be null or a timestamp`);
    }
    if (typeof r.sha256 !== 'string' || !HEX64.test(r.sha256))
      throw new Error(`${where}.sha256 must be 64 lower-case hex digits`);
    return { id: r.id, holder: r.holder, created: r.created, revoked: r.revoked ?? null, sha256: r.sha256 };
  });
  return { version: 1, keys };
}

export function serializeKeyFile(file: KeyFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

// --- verification -------------------------------------------------------------------------

/** One acceptable key as the verifier holds it: a 32-byte digest and the id for the logs. */
export interface ActiveKey {
  readonly id: string;
  readonly digest: Buffer;
}

/** Any record of the file as the verifier holds it: a revoked one is kept so that its use can
 * be logged with its id (security: who still sends a key that was revoked). */
export interface KnownKey extends ActiveKey {
  readonly revoked: boolean;
}

export function activeKeysOf(file: KeyFile): ActiveKey[] {
  return file.keys.filter((k) => k.revoked === null).map((k) => ({ id: k.id, digest: Buffer.from(k.sha256, 'hex') }));
}

/** Every record of the file, active and revoked. */
export function knownKeysOf(file: KeyFile): KnownKey[] {
  return file.keys.map((k) => ({ id: k.id, digest: Buffer.from(k.sha256, 'hex'), revoked: k.revoked !== null }));
}

/** The id logged for the API_KEY environment key (it has no record). */
export const ENV_KEY_ID = 'env';

/**
 * Returns the id of the key that matches, or null. The presented key is hashed first, so
 * every comparison is between two 32-byte digests: timingSafeEqual cannot throw on a length
 * mismatch and the time taken does not depend on the presented key's length or on how much
 * of it is right. Every configured digest is compared, without early exit, so the time does
 * not say which (or whether an early) record matched either.
 */
export function verifyKey(presented: string, keys: readonly ActiveKey[]): string | null {
  const digest = sha256(presented);
  let match: string | null = null;
  for (const key of keys) {
    if (timingSafeEqual(digest, key.digest) && match === null) match = key.id;
  }
  return match;
}

/** What a presented key is: an active key's id, a revoked record's id, or nothing known. */
export type KeyMatch =
  | { readonly kind: 'active'; readonly id: string }
  | { readonly kind: 'revoked'; readonly id: string }
  | { readonly kind: 'unknown' };

const UNKNOWN: KeyMatch = Object.freeze({ kind: 'unknown' });

/**
 * verifyKey over active and revoked records alike: hashed first, every digest compared with
 * timingSafeEqual, no early exit, so the time depends on the number of records only, not on
 * the presented key nor on which record (or whether a revoked one) matched. An active match
 * wins over a revoked one (two records with one digest cannot come from the CLI, whose keys
 * are random, but a hand-edited file could hold them).
 */
export function matchKey(presented: string, keys: readonly KnownKey[]): KeyMatch {
  const digest = sha256(presented);
  let active: string | null = null;
  let revoked: string | null = null;
  for (const key of keys) {
    const equal = timingSafeEqual(digest, key.digest);
    if (equal && key.revoked && revoked === null) revoked = key.id;
    if (equal && !key.revoked && active === null) active = key.id;
  }
  if (active !== null) return { kind: 'active', id: active };
  return revoked === null ? UNKNOWN : { kind: 'revoked', id: revoked };
}
