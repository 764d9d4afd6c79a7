/**
 * What the edge reads from a request's head, as pure functions: its path, whether it declares
 * a body, how often a header was sent, whether its media type is JSON.
 * @module
 */
import type { IncomingMessage } from 'node:http';

/** What a Content-Type says: 'json' for application/json, any case, optionally with
 * parameters, a charset, if given, UTF-8 (JSON is UTF-8 on the wire, RFC 8259 8.1);
 * 'charset' for application/json with another charset (the answer then names the charset
 * as the fault, not the type); 'other' for anything else. */
export function jsonContentType(value: string): 'json' | 'charset' | 'other' {
  if (value === 'application/json') return 'json'; // the usual case, without allocations
  const semi = value.indexOf(';');
  const type = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  if (type !== 'application/json') return 'other';
  if (semi === -1) return 'json';
  let charset = true;
  for (const param of value.slice(semi + 1).split(';')) {
    const eq = param.indexOf('=');
    if (eq === -1) {
      if (param.trim() === '') continue;
      return 'other';
    }
    const name = param.slice(0, eq).trim().toLowerCase();
    const raw = param.slice(eq + 1).trim();
    const v = (raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw).toLowerCase();
    if (name === 'charset' && v !== 'utf-8' && v !== 'utf8') charset = false;
  }
  return charset ? 'json' : 'charset';
}

/** Whether a Content-Type is acceptable as it stands. */
export function isJsonContentType(value: string): boolean {
  return jsonContentType(value) === 'json';
}

/** How often a header name occurs in the raw list (Node joins or drops duplicates, so the
 * parsed `req.headers` cannot tell). `lower` must be lower case. */
export function headerCount(rawHeaders: readonly string[], lower: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === lower.length && name.toLowerCase() === lower) n++;
  }
  return n;
}

/** Whether a request may still have body bytes coming: a Content-Length other than 0, or any
 * Transfer-Encoding (even an empty chunked body is only known empty once read). With more
 * than 64 header fields refused first, these two are never hidden. */
export function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] !== undefined) return true;
  return length !== undefined && Number(length) !== 0;
}

/** The path of a request target without its query. Origin-form (`/generate?x`) is the norm;
 * absolute-form (`http://host/generate`) must be accepted too (RFC 9112 3.2.2); anything else
 * (`*`, authority-form) matches no route. */
export function pathOf(target: string): string {
  let path = target;
  if (target.charCodeAt(0) !== 0x2f) {
    const absolute = /^https?:\/\/[^/?#]*([^#]*)/i.exec(target);
    if (absolute === null) return target;
    path = absolute[1] === '' || absolute[1].startsWith('?') ? `/${absolute[1]}` : absolute[1];
  }
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}

/** RFC 9112 3.2: an HTTP/1.1 request without Host, or any request with two, is malformed. */
export function hasBadHost(req: IncomingMessage): boolean {
  const hosts = headerCount(req.rawHeaders, 'host');
  return hosts > 1 || (hosts === 0 && req.httpVersionMinor === 1 && req.httpVersionMajor === 1);
}
