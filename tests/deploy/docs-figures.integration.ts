/**
 * The figures the docs give of the build are the build's (issue 41: the page weight, the asset
 * table and "1.3 MB" had drifted while nothing read them). Each is read from the page that
 * publishes it and compared with what `npm run test:integration` has just built, or with what
 * the server serves, within a few per cent: the size of the single file (docs/deploy.md) and
 * the server file beside the Redis client (docs/redis-rate-limit.md), the home page's weight a
 * visit as served (docs/api.md; its weight in Chromium on the wire is
 * tests/browser/home.integration.ts's), the asset table and the word lists' and validator's
 * share of service-api.js (docs/api.md).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ROOT, startServer, type RunningServer } from '../helpers/server.ts';

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8').replace(/\s+/g, ' ');
const size = (path: string): number => statSync(join(ROOT, path)).size;
const gzipped = (bytes: Buffer | string): number => gzipSync(bytes, { level: 9 }).length;
const number = (text: string): number => Number(text.replace(/,/g, ''));

/** `stated` is within `share` of `actual`. */
function near(stated: number, actual: number, what: string, share = 0.03): void {
  assert.ok(Math.abs(stated - actual) <= share * actual, `${what}: the docs say ${stated}, the build has ${actual}`);
}

/** The sum of every file's size under `dir` (what `du --apparent-size` counts). */
function filesSize(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .reduce((sum, e) => sum + statSync(join(e.parentPath, e.name)).size, 0);
}

describe('docs/deploy.md', () => {
  it("states the single file's size and gzip size as built, within 5 %", () => {
    const doc = read('docs/deploy.md');
    const line = /dist\/credential-generator\.mjs: (\d+) bytes \(([\d.]+) KiB, gzip ([\d.]+) KiB\), sha256 </.exec(doc);
    assert.ok(line !== null, 'the build line is quoted');
    const [bytes, kib, gzipKib] = line.slice(1).map(Number);
    assert.equal(kib, Number((bytes / 1024).toFixed(1)), 'KiB of the same bytes');
    const file = readFileSync(join(ROOT, 'dist', 'credential-generator.mjs'));
    near(bytes, size('dist/credential-generator.mjs'), 'bytes', 0.05);
    near(gzipKib, gzipped(file) / 1024, 'gzip KiB', 0.05);
  });

  it('gives no digest of a particular build: the examples show the form, not a stale value', () => {
    const doc = read('docs/deploy.md');
    assert.equal(/sha256[": ]+[0-9a-f]{4}[0-9a-f.]*/.exec(doc)?.[0], undefined, 'a digest in docs/deploy.md');
  });
});

describe('docs/redis-rate-limit.md', () => {
  it("states the Redis client's files and the server file's size as they are", () => {
    const doc = read('docs/redis-rate-limit.md');
    const m = /`node_modules\/@redis` hold ([\d.]+) MB of files[^,]*, against the server file's ([\d.]+) MB/.exec(doc);
    assert.ok(m !== null, 'the sentence is there');
    const mb = (bytes: number): number => bytes / 1e6;
    near(
      Number(m[1]),
      mb(filesSize(join(ROOT, 'node_modules', 'redis')) + filesSize(join(ROOT, 'node_modules', '@redis'))),
      'the client, MB',
      0.05,
    );
    near(Number(m[2]), mb(size('dist/credential-generator.mjs')), 'the server file, MB', 0.05);
  });
});

describe('docs/api.md, the home page', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ logLevel: 'error' });
  });
  after(async () => {
    await server?.stop();
  });

  it("states the page's weight a visit as the server serves it: as is, gzip, brotli", async () => {
    const m =
      /The home page's four files are ([\d,]+) bytes a visit as they are, ([\d,]+) with gzip and ([\d,]+) with brotli/.exec(
        read('docs/api.md'),
      );
    assert.ok(m !== null, 'the sentence is there');
    const served: Record<string, number> = { identity: 0, gzip: 0, br: 0 };
    for (const path of ['/', '/service-api.js', '/app.js', '/styles.css']) {
      for (const coding of Object.keys(served)) {
        const res = await fetch(`${server.url}${path}`, { headers: { 'accept-encoding': coding } });
        assert.equal(res.status, 200, path);
        // fetch decodes: the bytes on the wire are the body as sent, its Content-Length.
        served[coding] += Number(res.headers.get('content-length'));
        await res.arrayBuffer();
      }
    }
    near(number(m[1]), served.identity, 'as they are');
    near(number(m[2]), served.gzip, 'gzip');
    near(number(m[3]), served.br, 'brotli');
  });

  it('the asset table: each file raw and gzip (level 9), KB of 1,000 bytes', () => {
    const doc = read('docs/api.md');
    const row = (first: string): [number, number] => {
      const m = new RegExp(
        `\\| ${first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\|[^|]*\\| ([\\d.]+) KB / ([\\d.]+) KB \\|`,
      ).exec(doc);
      assert.ok(m !== null, `the row of ${first}`);
      return [Number(m[1]) * 1000, Number(m[2]) * 1000];
    };
    const file = (name: string): Buffer => readFileSync(join(ROOT, 'dist', 'browser', name));
    for (const [first, names] of [
      ['`service-api.js`', ['service-api.js']],
      ['`app.js`', ['app.js']],
      ['`index.html`, `styles.css`', ['index.html', 'styles.css']],
    ] as const) {
      const [raw, gz] = row(first);
      near(
        raw,
        names.reduce((s, n) => s + file(n).length, 0),
        `${first} raw`,
      );
      near(
        gz,
        names.reduce((s, n) => s + gzipped(file(n)), 0),
        `${first} gzip`,
      );
    }
  });

  it("the word lists' and the validator's share of service-api.js", () => {
    const m =
      /the word lists \(the EFF list and the ten BIP-39 lists: (\d+) KB, (\d+) KB gzip[^)]*\), then the request validator \((\d+) KB, (\d+) KB gzip/.exec(
        read('docs/api.md'),
      );
    assert.ok(m !== null, 'the sentence is there');
    const [lists, listsGzip, validator, validatorGzip] = m.slice(1).map((n) => Number(n) * 1000);
    const words = readFileSync(join(ROOT, 'dist', 'lib', 'generated', 'wordlist.generated.js'));
    near(lists, words.length, 'the word lists');
    near(listsGzip, gzipped(words), 'the word lists, gzip');
    // As the bundle holds it: without its lines' leading blanks (browser/unindent.mjs).
    const code = readFileSync(join(ROOT, 'dist', 'lib', 'generated', 'validator.generated.js'), 'utf8').replace(
      /^[ \t]+/gm,
      '',
    );
    near(validator, Buffer.byteLength(code), 'the validator', 0.05);
    near(validatorGzip, gzipped(code), 'the validator, gzip', 0.05);
  });
});
