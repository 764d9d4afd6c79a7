/**
 * The key a connection presented last, with its verdict, so a keep-alive client's key is not
 * hashed again on every request. Hashing is the dearest step of a key check (SHA-256 through
 * Node's crypto binding, where OpenSSL 3 looks the algorithm up by name on every call: about
 * 1 us, and with the lookup's locks more under load), and a keep-alive client sends the same
 * key on every request of its connection.
 *
 * What the cache keeps, and for how long: for each open connection that presented a valid key,
 * that key's bytes, its id and the key store's generation. The bytes are overwritten with
 * zeros and the entry dropped when the connection closes (not when the garbage collector gets
 * to the socket), so no presented key outlives its connection here. Only valid keys are kept:
 * a failed key costs its full check (and a failed-key token) every time.
 *
 * A revocation takes effect as fast as without the cache: every reload of the key file changes
 * the store's generation, and an entry of another generation is checked again from scratch.
 *
 * Timing: the presented key is compared with the cached one by crypto.timingSafeEqual over
 * bytes of equal length, so the time says nothing about how much of a key matched; what it can
 * tell (a hit is faster than a full check) is only whether the key is exactly the one this same
 * connection presented before. Behind a proxy that sends many clients' requests over one
 * connection that reveals, to a client, only "my key equals the previous client's" in full,
 * which for a 190-bit key is no usable oracle.
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';

export interface KeyVerifier {
  /** True when at least one key would be accepted. */
  readonly configured: boolean;
  /** Changes whenever the accepted keys change. */
  readonly generation: number;
  /** The id of the key that matches, or null; constant time in the presented key. */
  verify(presented: string): string | null;
}

interface Entry {
  bytes: Buffer;
  keyId: string;
  generation: number;
}

const bySocket = new WeakMap<Socket, Entry>();

function forget(this: Socket): void {
  const entry = bySocket.get(this);
  if (entry !== undefined) entry.bytes.fill(0);
  bySocket.delete(this);
}

/** The id of the valid key `presented` on `socket`, or null; see the module comment. */
export function verifyOnConnection(socket: Socket, presented: string, keys: KeyVerifier): string | null {
  const entry = bySocket.get(socket);
  // latin1: one byte per character, as node decoded the header, so equal strings give equal
  // bytes and the byte length is the string's.
  if (entry !== undefined && entry.generation === keys.generation && entry.bytes.length === presented.length) {
    const candidate = Buffer.from(presented, 'latin1');
    const same = timingSafeEqual(candidate, entry.bytes);
    candidate.fill(0);
    if (same) return entry.keyId;
  }
  const keyId = keys.verify(presented);
  if (keyId === null) return null;
  if (entry === undefined) socket.once('close', forget);
  else entry.bytes.fill(0);
  bySocket.set(socket, { bytes: Buffer.from(presented, 'latin1'), keyId, generation: keys.generation });
  return keyId;
}
