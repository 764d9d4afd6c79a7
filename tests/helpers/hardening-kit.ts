/**
 * Plumbing for the hardening and soak suites:
 * - `procStats(pid)`: a process's RSS (VmRSS) and open file descriptors, read from /proc, so
 *   leak checks need nothing exposed by the server;
 * - `Seen`: every generated value (and key) a test saw, searched for in the captured server
 *   output and in every file written since the test file started (0 hits expected);
 * - `RawConnection`: a raw `net` socket that writes bytes and parses HTTP/1.1 responses
 *   (Content-Length framed, as every reply of this server is), for keep-alive fuzzing;
 * - `checkErrorShape`: an error reply is JSON `{error, status, field?}` whose status matches
 *   the status line.
 * Traffic goes only to 127.0.0.0/8.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './server.ts';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// --- process numbers ------------------------------------------------------------------------

export interface ProcStats {
  rssKb: number;
  fds: number;
}

export function procStats(pid: number): ProcStats {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return { rssKb: rss === null ? NaN : Number(rss[1]), fds: readdirSync(`/proc/${pid}/fd`).length };
}

/**
 * Polls a process's open fds (nothing tells when the server closed a socket) until they are
 * at most `target` or `timeoutMs` passed, and returns the last reading: callers assert on it.
 * A correct server closes a socket as soon as its client is gone, so only a leak waits the
 * whole 30 s; a shorter bound measures how busy the machine is as much as the server.
 */
export async function fdsAtMost(pid: number, target: number, timeoutMs = 30_000): Promise<ProcStats> {
  const since = performance.now();
  let now = procStats(pid);
  while (now.fds > target && performance.now() - since < timeoutMs) {
    await sleep(50);
    now = procStats(pid);
  }
  return now;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// --- the ledger of generated values -------------------------------------------------------

const SKIP_DIRS = new Set(['node_modules', '.git']);
const MAX_SCAN_BYTES = 64 * 1024 * 1024;

/** Files under `dir` modified at or after `sinceMs` (bounded walk). */
function filesSince(dir: string, sinceMs: number, out: string[], depth = 0): void {
  if (depth > 8 || out.length > 20_000) return;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) filesSince(path, sinceMs, out, depth + 1);
    } else if (e.isFile()) {
      try {
        const s = statSync(path);
        if (s.mtimeMs >= sinceMs && s.size <= MAX_SCAN_BYTES) out.push(path);
      } catch {
        /* removed meanwhile */
      }
    }
  }
}

/** Directories a run writes to: the repository (coverage, anything a test might drop) and the
 * temp directories the test helpers create (`cg-*`). */
export function writtenDirs(): string[] {
  const dirs = [ROOT];
  for (const name of readdirSync(tmpdir())) if (name.startsWith('cg-')) dirs.push(join(tmpdir(), name));
  return dirs;
}

export class Seen {
  private readonly values = new Set<string>();
  readonly startedMs = Date.now();

  add(value: string): void {
    if (value.length >= 8) this.values.add(value);
  }

  /** Every value of a 200 body of POST /generate. */
  addGenerated(body: unknown): void {
    const b = body as { value?: unknown; results?: { value?: unknown }[] } | null;
    if (b === null || typeof b !== 'object') return;
    if (typeof b.value === 'string') this.add(b.value);
    if (Array.isArray(b.results)) for (const r of b.results) if (typeof r?.value === 'string') this.add(r.value);
  }

  get size(): number {
    return this.values.size;
  }

  /** The values found in `text` (an 8-character prefix index keeps this linear in the text). */
  hitsIn(text: string): string[] {
    const byPrefix = new Map<string, string[]>();
    for (const v of this.values) {
      const p = v.slice(0, 8);
      const list = byPrefix.get(p);
      if (list === undefined) byPrefix.set(p, [v]);
      else list.push(v);
    }
    const hits: string[] = [];
    for (let i = 0; i + 8 <= text.length; i++) {
      const list = byPrefix.get(text.slice(i, i + 8));
      if (list === undefined) continue;
      for (const v of list) if (text.startsWith(v, i)) hits.push(v);
    }
    return hits;
  }

  /** Asserts that no value appears in any of the outputs, nor in any file written since this
   * ledger was created. Returns what was searched, for the report. */
  assertNowhere(
    outputs: readonly string[],
    dirs: readonly string[] = writtenDirs(),
  ): { values: number; outputBytes: number; files: number; fileBytes: number } {
    let outputBytes = 0;
    for (const out of outputs) {
      outputBytes += out.length;
      const hits = this.hitsIn(out);
      assert.equal(hits.length, 0, `generated value in server output: ${hits[0]?.slice(0, 4)}...`);
    }
    const files: string[] = [];
    for (const dir of dirs) filesSince(dir, this.startedMs - 1_000, files);
    let fileBytes = 0;
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(file, 'latin1');
      } catch {
        continue;
      }
      fileBytes += text.length;
      // latin1 keeps every byte; values are matched on their UTF-8 bytes read the same way.
      const hits = this.hitsIn(text).concat(this.hitsIn(Buffer.from(text, 'latin1').toString('utf8')));
      assert.equal(hits.length, 0, `generated value in ${file}: ${hits[0]?.slice(0, 4)}...`);
    }
    return { values: this.values.size, outputBytes, files: files.length, fileBytes };
  }
}

// --- raw HTTP ------------------------------------------------------------------------------

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated fields joined with ', '. */
  headers: Record<string, string>;
  body: string;
  raw: string;
}

/** Parses one response at the start of `buf`; null if incomplete. */
export function parseResponse(buf: Buffer, headRequest: boolean): { response: RawResponse; used: number } | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const head = buf.subarray(0, end).toString('latin1');
  const lines = head.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]);
  if (m === null) throw new Error(`not an HTTP response: ${JSON.stringify(head.slice(0, 80))}`);
  const status = Number(m[1]);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  let length = 0;
  if (!(headRequest || status < 200 || status === 204 || status === 304)) {
    if (headers['content-length'] === undefined)
      throw new Error(`response without Content-Length: ${head.slice(0, 200)}`);
    length = Number(headers['content-length']);
  }
  if (buf.length < end + 4 + length) return null;
  const body = buf.subarray(end + 4, end + 4 + length).toString('utf8');
  return { response: { status, headers, body, raw: head }, used: end + 4 + length };
}

/** One raw socket; `exchange` writes bytes and resolves with the next final response. */
export class RawConnection {
  readonly socket: Socket;
  private buf: Buffer = Buffer.alloc(0);
  closed = false;
  private readonly connected: Promise<void>;
  private wake: (() => void) | null = null;
  /** Interim (1xx) responses seen. */
  interim = 0;

  constructor(port: number, localAddress?: string) {
    this.socket = connect({ host: '127.0.0.1', port, ...(localAddress === undefined ? {} : { localAddress }) });
    this.socket.setNoDelay(true);
    this.connected = new Promise((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('error', reject);
    });
    this.socket.on('data', (c: Buffer) => {
      this.buf = this.buf.length === 0 ? c : Buffer.concat([this.buf, c]);
      this.wake?.();
    });
    this.socket.on('error', () => {});
    this.socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
  }

  ready(): Promise<void> {
    return this.connected;
  }

  write(data: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  /** Bytes received but not yet parsed into a response. */
  get pending(): number {
    return this.buf.length;
  }

  /** The next final response, or null if the connection closes (or timeoutMs passes) first. */
  async next(headRequest: boolean, timeoutMs: number): Promise<RawResponse | null> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const parsed = this.buf.length === 0 ? null : parseResponse(this.buf, headRequest);
      if (parsed !== null) {
        this.buf = this.buf.subarray(parsed.used);
        if (parsed.response.status < 200) {
          this.interim++;
          continue;
        }
        return parsed.response;
      }
      if (this.closed) return null;
      const left = deadline - performance.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Waits for the server to close (or timeoutMs). */
  async waitClosed(timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (!this.closed && performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - performance.now()));
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
    }
    return this.closed;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** One request on a fresh connection; resolves with the response (or null if none came). */
export async function rawRequest(
  port: number,
  data: string | Buffer,
  options: { head?: boolean; timeoutMs?: number; localAddress?: string } = {},
): Promise<RawResponse | null> {
  const c = new RawConnection(port, options.localAddress);
  try {
    await c.ready();
    c.write(data);
    return await c.next(options.head ?? false, options.timeoutMs ?? 5_000);
  } finally {
    c.destroy();
  }
}

/** A well-formed POST /generate as raw bytes. */
export function postBytes(key: string, body: string, extra = ''): string {
  return `POST /generate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Api-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
}

/** Asserts an error reply's body: JSON `{error, status, field?}`, status equal to the status
 * line, plus the headers every reply carries. */
export function checkErrorShape(r: RawResponse, context: string): void {
  assert.equal(r.headers['content-type'], 'application/json; charset=utf-8', `${context}: content-type of ${r.status}`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(r.body) as Record<string, unknown>;
  } catch {
    assert.fail(`${context}: ${r.status} body is not JSON: ${JSON.stringify(r.body.slice(0, 100))}`);
  }
  assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), `${context}: body not an object`);
  const keys = Object.keys(body);
  assert.ok(
    keys.every((k) => k === 'error' || k === 'status' || k === 'field'),
    `${context}: error body keys ${keys.join(',')}`,
  );
  assert.ok(typeof body.error === 'string' && body.error.length > 0, `${context}: error text`);
  assert.equal(body.status, r.status, `${context}: body status vs status line`);
  if ('field' in body) assert.equal(typeof body.field, 'string', `${context}: field`);
}

/** Headers every reply carries, errors from the parser included. */
export function checkCommonHeaders(r: RawResponse, context: string): void {
  assert.equal(r.headers['cache-control'], 'no-store', `${context}: Cache-Control on ${r.status}`);
  assert.equal(r.headers['x-content-type-options'], 'nosniff', `${context}: nosniff on ${r.status}`);
  assert.match(r.headers['x-ratelimit-remaining'] ?? '', /^\d+$/, `${context}: X-RateLimit-Remaining on ${r.status}`);
  assert.match(r.headers['x-request-id'] ?? '', /^[A-Za-z0-9_-]{16}$/, `${context}: X-Request-Id on ${r.status}`);
}

/** Health over a fresh connection: 200 {"status":"ok", ...}. */
export async function assertHealthy(port: number, pid: number, context: string): Promise<void> {
  assert.ok(isAlive(pid), `${context}: server process alive`);
  const r = await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', {
    timeoutMs: 5_000,
  });
  assert.ok(r !== null, `${context}: health answered`);
  assert.equal(r.status, 200, `${context}: health status`);
  assert.equal((JSON.parse(r.body) as { status: string }).status, 'ok');
}

/** Runs `fn` over `items` with at most `lanes` at a time; lane i gets items i, i+lanes, ... */
export async function inLanes<T>(
  items: readonly T[],
  lanes: number,
  fn: (item: T, index: number, lane: number) => Promise<void>,
): Promise<void> {
  await Promise.all(
    Array.from({ length: Math.min(lanes, items.length) }, async (_, lane) => {
      for (let i = lane; i < items.length; i += lanes) await fn(items[i], i, lane);
    }),
  );
}

/** Percentile of a sorted copy. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// --- heap after a full GC, through the inspector (test-only; nothing added to the server) ----

/**
 * Heap in use after a forced full GC in the server process, read over the V8 inspector that
 * SIGUSR1 opens (the server must run with NODE_OPTIONS=--inspect-port=0 so it picks a free
 * loopback port). RSS includes V8's young generation, which grows and shrinks with load;
 * this is the memory actually retained. A minimal WebSocket client, loopback only.
 */
export async function heapAfterGc(server: {
  pid: number;
  output(): string;
  waitForOutput(p: RegExp, t?: number): Promise<string>;
}): Promise<number> {
  // The inspector takes one session at a time; a previous one may still be detaching, and
  // nothing says when it has: retry for as long as a loaded machine may need (30 s).
  const since = performance.now();
  for (;;) {
    try {
      return await heapOnce(server);
    } catch (error) {
      if (performance.now() - since > 30_000) throw error;
      await sleep(500);
    }
  }
}

async function heapOnce(server: {
  pid: number;
  output(): string;
  waitForOutput(p: RegExp, t?: number): Promise<string>;
}): Promise<number> {
  const pattern = /Debugger listening on ws:\/\/127\.0\.0\.1:(\d+)(\/[0-9a-f-]+)/;
  if (!pattern.test(server.output())) process.kill(server.pid, 'SIGUSR1');
  const m = pattern.exec(await server.waitForOutput(pattern, 30_000))!;
  const socket = connect({ host: '127.0.0.1', port: Number(m[1]) });
  let buf: Buffer = Buffer.alloc(0);
  let upgraded = false;
  const messages: string[] = [];
  let wake: (() => void) | null = null;
  socket.on('data', (c: Buffer) => {
    buf = Buffer.concat([buf, c]);
    if (!upgraded) {
      const end = buf.indexOf('\r\n\r\n');
      if (end === -1) return;
      assert.match(buf.subarray(0, end).toString('latin1'), /^HTTP\/1\.1 101/);
      buf = buf.subarray(end + 4);
      upgraded = true;
    }
    for (;;) {
      if (buf.length < 2) break;
      let len = buf[1] & 0x7f;
      let at = 2;
      if (len === 126) {
        if (buf.length < 4) break;
        len = buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (buf.length < 10) break;
        len = Number(buf.readBigUInt64BE(2));
        at = 10;
      }
      if (buf.length < at + len) break;
      if ((buf[0] & 0x0f) === 1) messages.push(buf.subarray(at, at + len).toString('utf8'));
      buf = buf.subarray(at + len);
    }
    wake?.();
  });
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  socket.write(
    `GET ${m[2]} HTTP/1.1\r\nHost: 127.0.0.1:${m[1]}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${Buffer.from('hardening-kit-01').toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  const call = async (id: number, method: string): Promise<Record<string, unknown>> => {
    const payload = Buffer.from(JSON.stringify({ id, method }));
    const mask = Buffer.from([1, 2, 3, 4]);
    const head =
      payload.length < 126
        ? Buffer.from([0x81, 0x80 | payload.length])
        : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 255]);
    socket.write(Buffer.concat([head, mask, payload.map((b, i) => b ^ mask[i % 4])]));
    const deadline = performance.now() + 30_000;
    for (;;) {
      const found = messages
        .map((t) => JSON.parse(t) as { id?: number; result?: Record<string, unknown> })
        .find((x) => x.id === id);
      if (found !== undefined) return found.result ?? {};
      if (performance.now() > deadline)
        throw new Error(
          `inspector: no answer to ${method} (upgraded ${upgraded}, ${messages.length} messages, ${buf.length} bytes pending: ${JSON.stringify(buf.subarray(0, 200).toString('latin1'))})`,
        );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 100);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  };
  // Frames sent before the 101 arrives can be read together with the handshake and dropped
  // by the inspector, so wait for the upgrade first.
  const upgradeDeadline = performance.now() + 30_000;
  while (!upgraded) {
    if (performance.now() > upgradeDeadline) throw new Error('inspector: no WebSocket upgrade');
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 50);
      wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }
  try {
    await call(1, 'HeapProfiler.collectGarbage');
    const usage = await call(2, 'Runtime.getHeapUsage');
    return usage.usedSize as number;
  } finally {
    socket.destroy();
  }
}
