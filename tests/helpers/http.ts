/**
 * Shared plumbing for the HTTP suites: a node:http request helper that keeps raw headers and
 * can bind a source address, a raw-socket exchange, and a ledger of every secret (keys) and
 * generated value a suite saw, checked against the server output at the end.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  text: string;
  /** The body's bytes as received (no content coding undone). */
  bytes: Buffer;
  json: unknown;
}

export interface RequestOptions {
  method?: string;
  /** An array value sends the header once per element (duplicates). */
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
  /** Source address to bind (127.0.0.x), for per-client tests. */
  localAddress?: string;
}

/** One request on a fresh connection (agent: false). */
export function request(base: string, path: string, options: RequestOptions = {}): Promise<Reply> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname.replace(/^\[(.*)\]$/, '$1'), // [::1] -> ::1
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        agent: false,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode!, headers: res.headers, rawHeaders: res.rawHeaders, text, bytes, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * One request on a fresh connection (`connection: close`, no agent) to 127.0.0.1:`port`, over
 * TLS when `ca` is given, from `localAddress` when given; a body goes as JSON with `key`. Its
 * status as text, or the error's code: the caps' suites count what was answered and what was
 * refused. A reply not done in 10 s counts as `TIMEOUT` (that only bounds a failure).
 */
export function statusOfOneRequest(
  to: { readonly port: number; readonly ca?: Buffer; readonly localAddress?: string; readonly key: string },
  method: 'GET' | 'POST',
  path: string,
  body?: string,
): Promise<string> {
  return new Promise((resolve) => {
    const options = {
      host: '127.0.0.1',
      port: to.port,
      path,
      method,
      agent: false as const,
      headers: {
        connection: 'close',
        ...(body === undefined ? {} : { 'content-type': 'application/json', 'x-api-key': to.key }),
      },
      ...(to.ca === undefined ? {} : { ca: to.ca }),
      ...(to.localAddress === undefined ? {} : { localAddress: to.localAddress }),
    };
    const req = (to.ca === undefined ? httpRequest : httpsRequest)(options, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
      res.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    req.setTimeout(10_000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    req.end(body);
  });
}

/**
 * A client that generates (POST /generate) and fetches `asset` by turns, each on a fresh
 * connection (statusOfOneRequest), `pauseMs` apart, until stopped: how many replies of each
 * status (or error code) it got, the caps' suites' measure of a client that is not the attack.
 */
export function steadyClient(
  to: Parameters<typeof statusOfOneRequest>[0],
  asset: string,
  pauseMs: number,
): { stop(): Promise<Record<string, number>> } {
  const got: Record<string, number> = {};
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const status =
        i % 2 === 0
          ? await statusOfOneRequest(to, 'POST', '/generate', '{"mode":"password"}')
          : await statusOfOneRequest(to, 'GET', asset);
      got[status] = (got[status] ?? 0) + 1;
      await sleep(pauseMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return got;
    },
  };
}

/** POST /generate with a key and a JSON body. */
export function post(base: string, key: string | null, body: unknown, extra: RequestOptions = {}): Promise<Reply> {
  const headers: OutgoingHttpHeaders = { 'content-type': 'application/json', ...extra.headers };
  if (key !== null) headers['x-api-key'] = key;
  return request(base, '/generate', {
    ...extra,
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Writes raw bytes on a new socket and collects everything until the server closes (or
 * timeoutMs passes; then the socket is destroyed and what arrived is returned). Where the
 * server closes after its reply the timeout only bounds a failure: make it generous. */
export function rawExchange(
  port: number,
  data: string | Buffer,
  timeoutMs = 5_000,
): Promise<{ text: string; closed: boolean; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closed: false, ms: performance.now() - started });
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {
      /* a reset after the reply is expected in some tests; 'close' follows */
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closed: true, ms: performance.now() - started });
    });
    socket.on('connect', () => socket.write(data));
    socket.on('timeout', () => reject(new Error('socket timeout')));
  });
}

/** Status code and body of the first response in a raw HTTP/1.1 text. */
export function parseRaw(text: string): { status: number; head: string; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const head = end === -1 ? text : text.slice(0, end);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? NaN);
  const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
  const body = end === -1 ? '' : text.slice(end + 4, end + 4 + length);
  return { status, head, body };
}

/** The headers docs/decisions.md puts on every response, with the rate-limit fields' consistency. */
export function assertCommonHeaders(reply: { headers: IncomingHttpHeaders; status: number }, json = true): void {
  const h = reply.headers;
  assert.equal(h['cache-control'], 'no-store');
  assert.equal(h['x-content-type-options'], 'nosniff');
  assert.equal(h['referrer-policy'], 'no-referrer');
  assert.match(String(h['x-ratelimit-limit']), /^\d+$/);
  assert.match(String(h['x-ratelimit-remaining']), /^\d+$/);
  assert.match(String(h['x-ratelimit-reset']), /^\d+$/);
  assert.equal(h['ratelimit-policy'], `"client";q=${String(h['x-ratelimit-limit'])};w=60`);
  assert.equal(h['ratelimit'], `"client";r=${String(h['x-ratelimit-remaining'])};t=${String(h['x-ratelimit-reset'])}`);
  assert.equal(h['access-control-allow-origin'], undefined, 'no CORS headers');
  assert.match(String(h['x-request-id']), /^[A-Za-z0-9_-]{16}$/, 'X-Request-Id: 96 random bits, base64url');
  assert.equal(h['strict-transport-security'], undefined, 'no HSTS without TLS');
  if (reply.status === 429) assert.match(String(h['retry-after']), /^[1-9]\d*$/);
  else assert.equal(h['retry-after'], undefined);
  if (json) {
    assert.equal(h['content-type'], 'application/json; charset=utf-8');
    assert.equal(h['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
  }
}

/** Every key and generated value a suite has seen, to prove none reached the logs. */
export class Ledger {
  private readonly secrets = new Set<string>();

  add(value: string): void {
    this.secrets.add(value);
  }

  /** Records every value of a 200 body of POST /generate. */
  addGenerated(body: unknown): void {
    const b = body as { value?: string; results?: { value: string }[] };
    if (typeof b?.value === 'string') this.add(b.value);
    for (const r of b?.results ?? []) this.add(r.value);
  }

  get size(): number {
    return this.secrets.size;
  }

  assertAbsentFrom(output: string): void {
    for (const secret of this.secrets) {
      assert.ok(
        !output.includes(secret),
        `a key or generated value appears in the server output: ${secret.slice(0, 6)}...`,
      );
    }
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns true or timeoutMs passes; returns the elapsed ms (monotonic).
 * For states with no event to wait for; the timeout only bounds a failure, so it is generous. */
export async function eventually(
  fn: () => boolean | Promise<boolean>,
  timeoutMs: number,
  stepMs = 50,
): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await fn()) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(stepMs);
  }
}
