/**
 * The content coding of a served file (lib/http/accept-encoding.ts, issue 31) and the assets'
 * compressed copies (lib/http/assets.ts): every reply's bytes decode to the file as it is.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { chooseEncoding, type Compressed } from '../../lib/http/accept-encoding.ts';
import {
  ASSET_SOURCES,
  assetReply,
  compressedFile,
  FLOOR_META_AS_BUILT,
  loadAssets,
  readFromEmbedded,
} from '../../lib/http/assets.ts';

const BOTH: readonly Compressed[] = ['br', 'gzip'];

describe('chooseEncoding', () => {
  it('picks by q, then br over gzip over identity', () => {
    const cases: [string | string[] | undefined, string][] = [
      [undefined, 'identity'],
      ['', 'identity'],
      ['  ', 'identity'],
      ['gzip, deflate, br', 'br'],
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip', 'gzip'],
      ['GZIP', 'gzip'],
      ['x-gzip', 'gzip'],
      ['deflate', 'identity'],
      ['br;q=0.5, gzip;q=0.8', 'gzip'],
      ['br;q=0.8, gzip;q=0.8', 'br'],
      ['br ; q=0 , gzip', 'gzip'],
      ['br;q=0, gzip;q=0', 'identity'],
      ['identity', 'identity'],
      ['identity, gzip;q=0.5', 'identity'],
      ['identity;q=0.5, gzip;q=0.5', 'gzip'],
      ['*', 'br'],
      ['*;q=0.5, gzip', 'gzip'],
      ['*;q=0', 'identity'],
      ['*;q=0, identity;q=0', 'identity'],
      ['identity;q=0', 'identity'],
      ['identity;q=0, gzip', 'gzip'],
      ['br;q=2', 'identity'],
      ['br;q=0.5000', 'identity'],
      ['br;q=abc, gzip;q=0.1', 'gzip'],
      ['br;level=5', 'br'],
      ['br;q=1.000', 'br'],
      ['gzip;q=0.001, identity;q=0', 'gzip'],
      ['br;q=0, br', 'identity'],
      [',,gzip,,', 'gzip'],
      [['gzip;q=0.5', 'br;q=0.6'], 'br'],
    ];
    for (const [header, expected] of cases) {
      assert.equal(chooseEncoding(header, BOTH), expected, JSON.stringify(header));
    }
  });

  it('offers only the codings that exist', () => {
    assert.equal(chooseEncoding('br, gzip', ['gzip']), 'gzip');
    assert.equal(chooseEncoding('br', ['gzip']), 'identity');
    assert.equal(chooseEncoding('*', []), 'identity');
  });
});

describe('compressed assets', () => {
  const text = (file: string): string => `text of ${file} \u00e9 ${FLOOR_META_AS_BUILT} ${'filler '.repeat(50)}`;

  it('reads the build copies, makes the missing ones, and replies by Accept-Encoding with Vary', () => {
    // The build's copies (the page's scripts), and files with none (made at load).
    const built = new Map<string, Buffer>();
    for (const { file } of ASSET_SOURCES) {
      built.set(file, Buffer.from(text(file)));
      if (file.endsWith('.js')) {
        built.set(compressedFile(file, 'br'), brotliCompressSync(Buffer.from(text(file))));
        built.set(compressedFile(file, 'gzip'), gzipSync(Buffer.from(text(file))));
      }
    }
    const assets = loadAssets((file) => built.get(file) ?? null, { minEntropyBits: 8 });
    for (const asset of assets) {
      const identity = assetReply(asset, undefined);
      assert.deepEqual(identity.headers, ['Vary', 'Accept-Encoding']);
      assert.equal(identity.body, asset.body);
      const br = assetReply(asset, 'gzip, br');
      assert.deepEqual(br.headers, ['Content-Encoding', 'br', 'Vary', 'Accept-Encoding']);
      assert.deepEqual(brotliDecompressSync(br.body), asset.body, asset.route);
      const gz = assetReply(asset, 'gzip');
      assert.deepEqual(gz.headers, ['Content-Encoding', 'gzip', 'Vary', 'Accept-Encoding']);
      assert.deepEqual(gunzipSync(gz.body), asset.body, asset.route);
      if (asset.file.endsWith('.js')) assert.equal(br.body, built.get(compressedFile(asset.file, 'br')));
    }
    // The home page's copies are of the page as served (floor written in), not as built.
    const page = assets.find((a) => a.route === '/')!;
    assert.match(gunzipSync(page.encoded.gzip).toString('utf8'), /content="8"/);
  });

  it('gets identity from the brotli copy alone (the single file carries only those, as base64)', () => {
    const embedded = Object.fromEntries(
      ASSET_SOURCES.map(({ file }) => [
        compressedFile(file, 'br'),
        brotliCompressSync(Buffer.from(text(file))).toString('base64'),
      ]),
    );
    const assets = loadAssets(readFromEmbedded(embedded));
    const api = assets.find((a) => a.route === '/service-api.js')!;
    assert.equal(api.body.toString('utf8'), text(api.file));
    assert.deepEqual(gunzipSync(api.encoded.gzip), api.body);
  });

  it('issue 40: makes no coding at load but the home page: each is made the first time a reply needs it, and kept', () => {
    // The brotli copies of every file but the home page are not brotli: a coding made at load
    // would throw here.
    const bogus = Buffer.from('not brotli');
    const embedded = Object.fromEntries(
      ASSET_SOURCES.map(({ file }) => [
        compressedFile(file, 'br'),
        (file === 'dist/browser/index.html' ? brotliCompressSync(Buffer.from(text(file))) : bogus).toString('base64'),
      ]),
    );
    const assets = loadAssets(readFromEmbedded(embedded), { minEntropyBits: 8 });
    const api = assets.find((a) => a.route === '/service-api.js')!;
    assert.deepEqual(api.encoded.br, bogus, 'the build copy, as it is');
    assert.throws(() => api.body);
    const page = assets.find((a) => a.route === '/')!;
    assert.match(page.body.toString('utf8'), /content="8"/);
    const gzip = page.encoded.gzip;
    assert.match(gunzipSync(gzip).toString('utf8'), /content="8"/);
    assert.equal(page.encoded.gzip, gzip, 'made once');
    assert.equal(assets.find((a) => a.route === '/index.html')!.encoded.gzip, gzip, 'one copy for both routes');
  });
});
