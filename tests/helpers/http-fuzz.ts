/**
 * The socket fuzz: request cases drawn by fast-check from a printed seed, sent over
 * raw `net` sockets to a real server process.
 *
 * Two kinds of case:
 * - well-formed requests (any method and path, bodies from fuzz-bodies.ts, Content-Length or
 *   chunked framing, good/bad/duplicate X-Api-Key and Content-Type, Expect, HTTP/1.0): sent on
 *   keep-alive connections, each expects exactly one final response, checked against
 *   openapi.json with `contractErrors`;
 * - malformed HTTP (duplicate or conflicting Content-Length/Transfer-Encoding, lying
 *   Content-Length too short and too long, truncated bodies, bad chunk encoding, oversized
 *   headers and URLs, broken request lines and header lines, random bytes, pipelining): each
 *   on a fresh connection that the client half-closes after writing; every response that comes
 *   back is checked for the error shape.
 * Every response: no 5xx, `Cache-Control: no-store`; every error: `{error, status, field?}`
 * with the status of the status line. After each batch: health check and process alive, plus
 * behavioural prototype canaries.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { contractErrors, matchPath } from './contract.ts';
import { bodyText, fuzzSeed, runsFrom } from './fuzz-bodies.ts';
import {
  assertHealthy,
  checkCommonHeaders,
  checkErrorShape,
  inLanes,
  postBytes,
  RawConnection,
  rawRequest,
  type RawResponse,
  Seen,
} from './hardening-kit.ts';
import { randomApiKey, startServer, type RunningServer } from './server.ts';

export interface FuzzCase {
  kind: string;
  bytes: Buffer;
  /** Malformed: fresh socket, half-close, read every response until close. */
  fresh: boolean;
  head: boolean;
  /** For the contract check of well-formed requests. */
  method: string;
  path: string;
  /** Carries an `Upgrade` header: refused with the same 400 before any route. */
  upgrade?: boolean;
}

const PATHS = [
  '/generate',
  '/generate',
  '/generate',
  '/health',
  '/',
  '/openapi.json',
  '/nope',
  '/generate/',
  '/generate?x=1',
  '/GENERATE',
  '/%2e%2e/etc/passwd',
  '/index.html',
  '/postman/credential-generator.postman_collection.json',
];
const METHODS = ['POST', 'POST', 'POST', 'POST', 'GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE'];
const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON; charset="UTF-8"',
  'application/json; charset=latin1',
  'text/plain',
  'application/json;',
  'application/jsonx',
  '',
];

/** Chunked framing of `body` split at random points (with an occasional chunk extension). */
function chunked(body: Buffer, cuts: number[]): Buffer {
  const points = [...new Set(cuts.map((c) => (body.length === 0 ? 0 : c % body.length)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let from = 0;
  for (const p of [...points, body.length]) {
    if (p <= from) continue;
    const piece = body.subarray(from, p);
    parts.push(
      Buffer.from(`${piece.length.toString(16)}${p % 7 === 0 ? ';ext=1' : ''}\r\n`),
      piece,
      Buffer.from('\r\n'),
    );
    from = p;
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

function wellFormed(key: string): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      method: fc.constantFrom(...METHODS),
      path: fc.constantFrom(...PATHS),
      absolute: fc.boolean(),
      body: bodyText,
      framing: fc.constantFrom('length', 'length', 'chunked', 'none'),
      cuts: fc.array(fc.nat(), { maxLength: 4 }),
      contentType: fc.constantFrom(...CONTENT_TYPES),
      dupContentType: fc.nat(19),
      apiKey: fc.constantFrom('good', 'good', 'good', 'good', 'none', 'wrong', 'dup', 'case', 'space'),
      expect: fc.nat(14),
      http10: fc.nat(19),
      junkHeader: fc.option(
        fc.tuple(
          fc.constantFrom(
            'X-Forwarded-For',
            'Forwarded',
            'Upgrade',
            'Connection',
            'Accept',
            'X-Api-Key2',
            'Cookie',
            'Transfer-Encoding2',
          ),
          fc.string({ maxLength: 30 }).map((s) => s.replace(/[\r\n\0]/g, '')),
        ),
        { nil: undefined },
      ),
    })
    .map((r) => {
      const body = Buffer.from(
        r.method === 'GET' || r.method === 'HEAD' ? (r.framing === 'none' ? '' : r.body.slice(0, 50)) : r.body,
        'utf8',
      );
      const lines = [
        `${r.method} ${r.absolute ? `http://127.0.0.1${r.path}` : r.path} HTTP/1.${r.http10 === 0 ? 0 : 1}`,
        'Host: 127.0.0.1',
      ];
      if (r.contentType !== '') lines.push(`Content-Type: ${r.contentType}`);
      if (r.dupContentType === 0) lines.push('Content-Type: application/json');
      if (r.apiKey === 'good') lines.push(`X-Api-Key: ${key}`);
      if (r.apiKey === 'wrong') lines.push(`X-Api-Key: ${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`);
      if (r.apiKey === 'dup') lines.push(`X-Api-Key: ${key}`, `X-Api-Key: ${key}`);
      if (r.apiKey === 'case') lines.push(`x-API-key: ${key}`);
      if (r.apiKey === 'space') lines.push(`X-Api-Key:    ${key}   `);
      if (r.expect === 0) lines.push('Expect: 100-continue');
      if (r.junkHeader !== undefined) lines.push(`${r.junkHeader[0]}: ${r.junkHeader[1]}`);
      let payload: Buffer = Buffer.alloc(0);
      if (r.framing === 'length') {
        lines.push(`Content-Length: ${body.length}`);
        payload = body;
      } else if (r.framing === 'chunked' && r.http10 !== 0) {
        lines.push('Transfer-Encoding: chunked');
        payload = chunked(body, r.cuts);
      }
      const bytes = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
      return {
        kind: `well-formed ${r.method} ${r.framing}`,
        bytes,
        fresh: r.http10 === 0,
        head: r.method === 'HEAD',
        method: r.method,
        path: r.path,
        upgrade: r.junkHeader?.[0] === 'Upgrade',
      };
    });
}

const malformedKinds = [
  'dup-cl-diff',
  'dup-cl-same',
  'cl-te',
  'te-te',
  'te-gzip',
  'te-identity',
  'te-space',
  'cl-negative',
  'cl-huge',
  'cl-junk',
  'cl-plus',
  'lie-long',
  'lie-short',
  'truncated-chunked',
  'bad-chunk-size',
  'chunk-overflow',
  'chunk-no-crlf',
  'chunk-no-end',
  'chunk-trailer',
  'big-header',
  'many-headers',
  'big-url',
  'no-colon',
  'space-before-colon',
  'obs-fold',
  'bare-lf',
  'nul-in-value',
  'ctl-in-name',
  'bad-method',
  'lower-method',
  'http2',
  'http09',
  'no-version',
  'no-host',
  'dup-host',
  'tab-request-line',
  'connect',
  'upgrade',
  'expect-bogus',
  'random-bytes',
  'pipelined',
  'half-headers',
  'asterisk',
  'utf8-url',
  'body-not-utf8',
] as const;

function malformed(key: string): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      kind: fc.constantFrom(...malformedKinds),
      body: bodyText,
      n: fc.integer({ min: 1, max: 40 }),
      junk: fc.uint8Array({ minLength: 1, maxLength: 200 }),
    })
    .map(({ kind, body, n, junk }) => {
      const b = Buffer.from(body, 'utf8');
      const head = (extra: string[], method = 'POST', target = '/generate', version = 'HTTP/1.1'): string =>
        [
          `${method} ${target} ${version}`,
          'Host: 127.0.0.1',
          'Content-Type: application/json',
          `X-Api-Key: ${key}`,
          ...extra,
        ].join('\r\n') + '\r\n\r\n';
      let bytes: Buffer;
      switch (kind) {
        case 'dup-cl-diff':
          bytes = Buffer.concat([
            Buffer.from(head([`Content-Length: ${b.length}`, `Content-Length: ${b.length + n}`])),
            b,
          ]);
          break;
        case 'dup-cl-same':
          bytes = Buffer.concat([Buffer.from(head([`Content-Length: ${b.length}`, `Content-Length: ${b.length}`])), b]);
          break;
        case 'cl-te':
          bytes = Buffer.concat([
            Buffer.from(head([`Content-Length: ${b.length}`, 'Transfer-Encoding: chunked'])),
            chunked(b, [n]),
          ]);
          break;
        case 'te-te':
          bytes = Buffer.concat([
            Buffer.from(head(['Transfer-Encoding: chunked', 'Transfer-Encoding: chunked'])),
            chunked(b, [n]),
          ]);
          break;
        case 'te-gzip':
          bytes = Buffer.concat([Buffer.from(head(['Transfer-Encoding: gzip'])), b]);
          break;
        case 'te-identity':
          bytes = Buffer.concat([Buffer.from(head(['Transfer-Encoding: identity', `Content-Length: ${b.length}`])), b]);
          break;
        case 'te-space':
          bytes = Buffer.concat([Buffer.from(head(['Transfer-Encoding : chunked'])), chunked(b, [n])]);
          break;
        case 'cl-negative':
          bytes = Buffer.concat([Buffer.from(head([`Content-Length: -${n}`])), b]);
          break;
        case 'cl-huge':
          bytes = Buffer.concat([Buffer.from(head(['Content-Length: 99999999999999999999999'])), b]);
          break;
        case 'cl-junk':
          bytes = Buffer.concat([Buffer.from(head([`Content-Length: ${n}x`])), b]);
          break;
        case 'cl-plus':
          bytes = Buffer.concat([Buffer.from(head([`Content-Length: +${b.length}`])), b]);
          break;
        case 'lie-long':
          bytes = Buffer.concat([Buffer.from(head([`Content-Length: ${b.length + n}`])), b]);
          break;
        case 'lie-short':
          bytes = Buffer.concat([
            Buffer.from(head([`Content-Length: ${Math.max(0, b.length - n)}`])),
            b,
            Buffer.from(`}}${junk.length}\r\n`),
          ]);
          break;
        case 'truncated-chunked':
          bytes = Buffer.concat([
            Buffer.from(head(['Transfer-Encoding: chunked'])),
            Buffer.from(`${(b.length + n).toString(16)}\r\n`),
            b,
          ]);
          break;
        case 'bad-chunk-size':
          bytes = Buffer.concat([
            Buffer.from(head(['Transfer-Encoding: chunked'])),
            Buffer.from(`zz\r\n`),
            b,
            Buffer.from('\r\n0\r\n\r\n'),
          ]);
          break;
        case 'chunk-overflow':
          bytes = Buffer.concat([
            Buffer.from(head(['Transfer-Encoding: chunked'])),
            Buffer.from(`fffffffffffffffffffff\r\n`),
            b,
          ]);
          break;
        case 'chunk-no-crlf':
          bytes = Buffer.concat([
            Buffer.from(head(['Transfer-Encoding: chunked'])),
            Buffer.from(`${b.length.toString(16)}\r\n`),
            b,
            Buffer.from('XX0\r\n\r\n'),
          ]);
          break;
        case 'chunk-no-end':
          bytes = Buffer.concat([
            Buffer.from(head(['Transfer-Encoding: chunked'])),
            Buffer.from(`${b.length.toString(16)}\r\n`),
            b,
            Buffer.from('\r\n'),
          ]);
          break;
        case 'chunk-trailer':
          bytes = Buffer.concat([
            Buffer.from(head(['Transfer-Encoding: chunked'])),
            chunked(b, [n]).subarray(0, -2),
            Buffer.from(`X-Trailer: ${n}\r\n\r\n`),
          ]);
          break;
        case 'big-header':
          bytes = Buffer.from(head([`X-Big: ${'a'.repeat(8_200 + n * 10)}`, 'Content-Length: 2']) + '{}');
          break;
        case 'many-headers':
          bytes = Buffer.from(
            head([...Array.from({ length: 60 + n }, (_, i) => `X-H${i}: ${i}`), 'Content-Length: 2']) + '{}',
          );
          break;
        case 'big-url':
          bytes = Buffer.from(head(['Content-Length: 2'], 'POST', `/generate?${'q'.repeat(8_200 + n)}`) + '{}');
          break;
        case 'no-colon':
          bytes = Buffer.from(head(['Content-Length 2']) + '{}');
          break;
        case 'space-before-colon':
          bytes = Buffer.from(head(['Content-Length : 2']) + '{}');
          break;
        case 'obs-fold':
          bytes = Buffer.from(head(['X-Fold: a', ' b', 'Content-Length: 2']) + '{}');
          break;
        case 'bare-lf':
          bytes = Buffer.from(
            `POST /generate HTTP/1.1\nHost: x\nContent-Type: application/json\nX-Api-Key: ${key}\nContent-Length: 2\n\n{}`,
          );
          break;
        case 'nul-in-value':
          bytes = Buffer.from(head(['X-Nul: a\u0000b', 'Content-Length: 2']) + '{}');
          break;
        case 'ctl-in-name':
          bytes = Buffer.from(head(['X-\u0001Ctl: a', 'Content-Length: 2']) + '{}');
          break;
        case 'bad-method':
          bytes = Buffer.from(head(['Content-Length: 2'], 'G@T') + '{}');
          break;
        case 'lower-method':
          bytes = Buffer.from(head(['Content-Length: 2'], 'post') + '{}');
          break;
        case 'http2':
          bytes = Buffer.from(head(['Content-Length: 2'], 'POST', '/generate', 'HTTP/2.0') + '{}');
          break;
        case 'http09':
          bytes = Buffer.from('GET /health\r\n\r\n');
          break;
        case 'no-version':
          bytes = Buffer.from('GET /health\r\nHost: x\r\n\r\n');
          break;
        case 'no-host':
          bytes = Buffer.from(
            `POST /generate HTTP/1.1\r\nContent-Type: application/json\r\nX-Api-Key: ${key}\r\nContent-Length: ${b.length}\r\n\r\n${body}`,
          );
          break;
        case 'dup-host':
          bytes = Buffer.from(`GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n`);
          break;
        case 'tab-request-line':
          bytes = Buffer.from('GET\t/health\tHTTP/1.1\r\nHost: x\r\n\r\n');
          break;
        case 'connect':
          bytes = Buffer.from('CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n');
          break;
        case 'upgrade':
          bytes = Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
          break;
        case 'expect-bogus':
          bytes = Buffer.concat([Buffer.from(head(['Expect: bogus', `Content-Length: ${b.length}`])), b]);
          break;
        case 'random-bytes':
          bytes = Buffer.from(junk);
          break;
        case 'pipelined':
          bytes = Buffer.concat([
            Buffer.from(postBytes(key, '{"mode":"password"}')),
            Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\n\r\n'),
            Buffer.from(head([`Content-Length: ${b.length}`])),
            b,
          ]);
          break;
        case 'half-headers':
          bytes = Buffer.from(head([`Content-Length: ${b.length}`]).slice(0, n * 3));
          break;
        case 'asterisk':
          bytes = Buffer.from('OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n');
          break;
        case 'utf8-url':
          bytes = Buffer.from('GET /h\u00e9alth\u{1f600} HTTP/1.1\r\nHost: x\r\n\r\n', 'utf8');
          break;
        default:
          bytes = Buffer.concat([
            Buffer.from(head([`Content-Length: ${junk.length + 2}`])),
            Buffer.from('"'),
            Buffer.from(junk.map((x) => x | 0x80)),
            Buffer.from('"'),
          ]);
          break;
      }
      return { kind, bytes, fresh: true, head: false, method: 'POST', path: '/generate' };
    });
}

export function fuzzCases(key: string): fc.Arbitrary<FuzzCase> {
  return fc.oneof({ arbitrary: wellFormed(key), weight: 3 }, { arbitrary: malformed(key), weight: 2 });
}

export interface SocketFuzzStats {
  seed: number;
  cases: number;
  wellFormed: number;
  malformed: number;
  responses: number;
  byStatus: Record<string, number>;
  /** Fresh-connection cases the server closed without a response (e.g. incomplete at EOF). */
  closedWithoutResponse: number;
  batches: number;
  ms: number;
}

/** How long a case may take to be answered (or its connection closed). A correct server takes
 * milliseconds (a client that sent FIN gets its close at once), so this only bounds a failure,
 * and is sized for a loaded machine rather than for the server. */
const ANSWER_MS = 30_000;

async function withContext<T>(p: Promise<T>, c: FuzzCase, index: number): Promise<T> {
  try {
    return await p;
  } catch (error) {
    throw new Error(
      `case #${index} (${c.kind}): ${JSON.stringify(c.bytes.subarray(0, 300).toString('latin1'))}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function checkResponse(
  r: RawResponse,
  c: FuzzCase,
  index: number,
  seen: Seen,
  stats: SocketFuzzStats,
  contract: boolean,
): void {
  const context = `case #${index} (${c.kind}): ${JSON.stringify(c.bytes.subarray(0, 160).toString('latin1'))}`;
  stats.responses++;
  stats.byStatus[r.status] = (stats.byStatus[r.status] ?? 0) + 1;
  assert.ok(r.status < 500, `${context}: got ${r.status} ${r.body}`);
  checkCommonHeaders(r, context);
  if (r.status >= 400 && !c.head) checkErrorShape(r, context);
  let body: unknown;
  if (!c.head && (r.headers['content-type'] ?? '').includes('json')) body = JSON.parse(r.body);
  else if (!c.head) body = r.body;
  if (r.status === 200 && c.method === 'POST') seen.addGenerated(body);
  if (c.upgrade === true) {
    // A protocol-level refusal, on every path and method alike (the document says so once).
    assert.equal(r.status, 400, `${context}: an Upgrade request is refused`);
    if (!c.head) assert.deepEqual(body, { error: 'protocol upgrade not supported', status: 400 }, context);
    return;
  }
  // The document covers the API paths; the home page's files are checked by shape only.
  if (contract && (matchPath(c.path) !== undefined || r.status === 404)) {
    const errors = contractErrors({ method: c.method, path: c.path, status: r.status, headers: r.headers, body });
    assert.deepEqual(errors, [], context);
  }
}

/**
 * Sends `count` fuzz cases (drawn from the seed) to `server`, in batches of `batch`, over
 * `lanes` concurrent connections; asserts as described at the top. The server must run with a
 * raised RATE_LIMIT_PER_MINUTE and API_KEY = key.
 */
export async function fuzzServer(
  server: RunningServer,
  key: string,
  count: number,
  seen: Seen,
  options: { lanes?: number; batch?: number; label: string },
): Promise<SocketFuzzStats> {
  const seed = fuzzSeed(options.label);
  const cases = fc.sample(fuzzCases(key), { seed, numRuns: count });
  const lanes = options.lanes ?? 16;
  const batch = options.batch ?? 1_000;
  const stats: SocketFuzzStats = {
    seed,
    cases: 0,
    wellFormed: 0,
    malformed: 0,
    responses: 0,
    byStatus: {},
    closedWithoutResponse: 0,
    batches: 0,
    ms: 0,
  };
  const started = performance.now();
  for (let from = 0; from < cases.length; from += batch) {
    const slice = cases.slice(from, from + batch);
    const conns: (RawConnection | null)[] = Array.from({ length: lanes }, () => null);
    await inLanes(slice, lanes, async (c, i, lane) => {
      const index = from + i;
      stats.cases++;
      if (c.fresh) {
        stats.malformed += c.kind.startsWith('well-formed') ? 0 : 1;
        stats.wellFormed += c.kind.startsWith('well-formed') ? 1 : 0;
        const conn = new RawConnection(server.port);
        try {
          await conn.ready();
          conn.write(c.bytes);
          conn.socket.end();
          let got = 0;
          for (;;) {
            const r = await withContext(conn.next(c.head, ANSWER_MS), c, index);
            if (r === null) break;
            got++;
            checkResponse(r, c, index, seen, stats, c.kind.startsWith('well-formed') && got === 1);
          }
          assert.ok(
            conn.closed,
            `case #${index} (${c.kind}): server neither answered nor closed within ${ANSWER_MS / 1000} s`,
          );
          assert.equal(conn.pending, 0, `case #${index} (${c.kind}): partial response left over`);
          if (got === 0) stats.closedWithoutResponse++;
        } finally {
          conn.destroy();
        }
        return;
      }
      stats.wellFormed++;
      let conn = conns[lane];
      if (conn === null || conn === undefined || conn.closed) {
        conn = new RawConnection(server.port);
        conns[lane] = conn;
        await conn.ready();
      }
      conn.write(c.bytes);
      const r = await withContext(conn.next(c.head, ANSWER_MS), c, index);
      if (r === null) {
        // A body over the limit may be answered 413 and the socket reset before we read it.
        assert.ok(
          c.bytes.length > 16_384,
          `case #${index} (${c.kind}): no response to a well-formed request: ${JSON.stringify(c.bytes.subarray(0, 200).toString('latin1'))}`,
        );
        conn.destroy();
        conns[lane] = null;
        return;
      }
      checkResponse(r, c, index, seen, stats, true);
      if ((r.headers.connection ?? '').toLowerCase() === 'close') {
        assert.ok(await conn.waitClosed(ANSWER_MS), `case #${index}: server said close but kept the socket open`);
        conns[lane] = null;
      }
    });
    for (const conn of conns) conn?.destroy();
    stats.batches++;
    await assertHealthy(server.port, server.pid, `after batch ${stats.batches}`);
    await assertPrototypesIntact(server.port, key, seen);
  }
  stats.ms = Math.round(performance.now() - started);
  return stats;
}

/** Behavioural canaries: a polluted Object.prototype (`mode`, `count`, `options`, `length`...)
 * in the server would change these exact answers. */
export async function assertPrototypesIntact(port: number, key: string, seen: Seen): Promise<void> {
  const empty = await rawRequest(port, postBytes(key, '{}', 'Connection: close\r\n'));
  assert.equal(empty?.body, '{"error":"mode is required","status":400,"field":"mode"}');
  const plain = await rawRequest(port, postBytes(key, '{"mode":"password"}', 'Connection: close\r\n'));
  assert.equal(plain?.status, 200);
  const body = JSON.parse(plain.body) as {
    count: number;
    value: string;
    metadata: Record<string, unknown>;
    results: unknown[];
  };
  seen.addGenerated(body);
  assert.equal(body.count, 1);
  assert.equal(body.results.length, 1);
  assert.equal(body.value.length, 24);
  assert.equal(body.metadata.length, 24);
}

/**
 * The socket fuzz at one size, start to end: a real server process (a fresh key, the limit
 * raised), `FUZZ_HTTP_CASES` cases or `cases`, fuzzServer's checks, then 0 statuses of 500 and
 * up, a clean exit, both kinds of case well represented (over a quarter each), and no key or
 * generated value in the server's output. The integration run's size and the soak's.
 */
export async function fuzzRealServer(size: {
  readonly label: string;
  readonly cases: number;
  readonly batch: number;
  readonly lanes: number;
}): Promise<void> {
  const key = randomApiKey();
  const seen = new Seen();
  seen.add(key);
  const count = runsFrom('FUZZ_HTTP_CASES', size.cases);
  const server = await startServer({ apiKey: key, rateLimitPerMinute: 1_000_000 });
  let stats;
  try {
    stats = await fuzzServer(server, key, count, seen, { label: size.label, batch: size.batch, lanes: size.lanes });
  } finally {
    assert.equal((await server.stop()).code, 0, 'clean exit after the fuzz');
  }
  process.stdout.write(`${size.label}: ${JSON.stringify(stats)}\n`);
  assert.equal(stats.cases, count);
  assert.equal(Object.keys(stats.byStatus).filter((s) => Number(s) >= 500).length, 0);
  assert.ok(stats.malformed > count / 4 && stats.wellFormed > count / 4);
  const scanned = seen.assertNowhere([server.output()]);
  process.stdout.write(`${size.label} leak check: ${JSON.stringify(scanned)}\n`);
}
