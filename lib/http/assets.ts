/**
 * The files the server serves besides the API: the built home page, the OpenAPI document and
 * the Postman files. An explicit list, so what is served is what a reviewer reads here, never
 * whatever a directory listing happens to hold.
 *
 * They are read once at start, from one of two places: the files themselves (`npm test`, the
 * tsx development server, `dist/server.js`), or the copies the single-file build embeds
 * (`dist/credential-generator.mjs`, see lib/http/embedded-assets.ts). A file that is missing
 * stops the start with one line: a server without its home page or its OpenAPI document is
 * misbuilt, and answering 404 for them would hide that.
 *
 * The home page is the one file the server changes as it loads it: its `<meta>` for the
 * entropy floor gets the configured MIN_ENTROPY_BITS, so the page's ServiceAPI applies the
 * server's floor without asking the server (the page makes no network request).
 *
 * Every file is served identity, gzip or brotli, as the client's Accept-Encoding says
 * (accept-encoding.ts), with `Vary: Accept-Encoding`: `no-store` makes every visit pay for the
 * page in full (docs/api.md, Headers on every reply, gives a visit's bytes each way). The
 * page's scripts and CSS are compressed at build time (browser/rollup.config.mjs leaves
 * `<file>.gz` and `<file>.br` beside them: brotli at its best quality is too slow for a start;
 * docs/benchmark.md, The page compressed at build time); the home page (written to at load) and
 * the JSON documents are compressed here, with quicker settings. The single file carries only
 * the brotli copies and gets identity by decompressing them here (deploy/rollup.config.mjs).
 * Each coding made here is made the first time a reply needs it, not at start (Codings).
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, brotliDecompressSync, constants, gzipSync } from 'node:zlib';
import { ENTROPY_FLOOR_META, POLICIES_META, type StoredPolicy } from '../request/index.ts';
import { chooseEncoding, type Compressed } from './accept-encoding.ts';

export type AssetKind = 'page' | 'document' | 'download';

export interface AssetSource {
  /** The URL path it is served at. */
  readonly route: string;
  /** Where the build leaves it, relative to the project root. */
  readonly file: string;
  /** page: the home page and its parts (page CSP); document: JSON for reading; download: a
   * JSON file offered as an attachment. */
  readonly kind: AssetKind;
  readonly contentType: string;
}

const HTML = 'text/html; charset=utf-8';
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const JSON_FILE = 'application/json; charset=utf-8';

export const POSTMAN_FILES = [
  'credential-generator.postman_collection.json',
  'credential-generator.postman_environment.json',
] as const;

export const ASSET_SOURCES: readonly AssetSource[] = Object.freeze([
  { route: '/', file: 'dist/browser/index.html', kind: 'page', contentType: HTML },
  { route: '/index.html', file: 'dist/browser/index.html', kind: 'page', contentType: HTML },
  { route: '/app.js', file: 'dist/browser/app.js', kind: 'page', contentType: JS },
  { route: '/service-api.js', file: 'dist/browser/service-api.js', kind: 'page', contentType: JS },
  { route: '/styles.css', file: 'dist/browser/styles.css', kind: 'page', contentType: CSS },
  { route: '/openapi.json', file: 'spec/openapi.json', kind: 'document', contentType: JSON_FILE },
  ...POSTMAN_FILES.map((name) => ({
    route: `/postman/${name}`,
    file: `spec/${name}`,
    kind: 'download' as const,
    contentType: JSON_FILE,
  })),
]);

export interface Asset extends AssetSource {
  /** The file as it is (identity). */
  readonly body: Buffer;
  /** The same bytes, compressed. */
  readonly encoded: Readonly<Record<Compressed, Buffer>>;
}

/** The codings every asset is held in besides identity, smallest first. */
export const COMPRESSED: readonly Compressed[] = ['br', 'gzip'];

/** What the build leaves beside a file (and the single file embeds): `<file>.br`, `<file>.gz`. */
export const compressedFile = (file: string, coding: Compressed): string => `${file}.${coding === 'br' ? 'br' : 'gz'}`;

/** Compression at load time (files the build did not compress): milliseconds, not seconds. */
function compress(body: Buffer, coding: Compressed): Buffer {
  if (coding === 'gzip') return gzipSync(body, { level: 9 });
  return brotliCompressSync(body, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
}

export class AssetError extends Error {
  override readonly name = 'AssetError';
}

/** What the server writes into the page as it loads it. */
export interface PageSettings {
  /** The service's entropy floor in bits (MIN_ENTROPY_BITS). */
  readonly minEntropyBits: number;
}

const HOME_PAGE = 'dist/browser/index.html';
/** The floor's `<meta>` exactly as browser/index.html writes it (content 0: no floor). */
export const FLOOR_META_AS_BUILT = `<meta name="${ENTROPY_FLOOR_META}" content="0">`;

/** The page with the floor filled in; a page without exactly one such `<meta>` is misbuilt. */
function withFloor(page: Buffer, settings: PageSettings): Buffer {
  const text = page.toString('utf8');
  const at = text.indexOf(FLOOR_META_AS_BUILT);
  if (at < 0 || text.indexOf(FLOOR_META_AS_BUILT, at + 1) >= 0) {
    throw new AssetError(`${HOME_PAGE} must hold ${FLOOR_META_AS_BUILT} exactly once (the build is incomplete)`);
  }
  const meta = `<meta name="${ENTROPY_FLOOR_META}" content="${String(settings.minEntropyBits)}">`;
  return Buffer.from(text.slice(0, at) + meta + text.slice(at + FLOOR_META_AS_BUILT.length), 'utf8');
}

/** Text as the value of a double-quoted HTML attribute. */
function attribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The home page (as loadAssets made it) offering `policies`: a `<meta name="policies">` after
 * the floor's, holding each policy's stored request, description and entropy as JSON, which
 * the page's ServiceAPI reads (browser/entry.ts) to generate with them in the page, as the
 * floor. A set with no policy leaves the page as it is.
 */
export function withPolicies(page: Buffer, policies: ReadonlyMap<string, PagePolicy>): Buffer {
  if (policies.size === 0) return page;
  const text = page.toString('utf8');
  const floor = new RegExp(`<meta name="${ENTROPY_FLOOR_META}" content="[^"]*">`).exec(text);
  if (floor === null) return page; // a part of the page other than its HTML
  const listed = [...policies.values()].map((p) => ({
    name: p.name,
    mode: p.mode,
    options: p.options,
    ...(p.minBits === undefined ? {} : { minBits: p.minBits }),
    description: p.description,
    entropy: p.entropy,
  }));
  const meta = `<meta name="${POLICIES_META}" content="${attribute(JSON.stringify(listed))}">`;
  const at = floor.index + floor[0].length;
  return Buffer.from(`${text.slice(0, at)}\n  ${meta}${text.slice(at)}`, 'utf8');
}

/** What the page is told of a policy: enough to generate with it. */
export interface PagePolicy extends StoredPolicy {
  readonly name: string;
  readonly description: string | null;
  readonly entropy: { readonly bits: number; readonly label: string; readonly level: number };
}

/** Reads every listed file through `read` (file path relative to the project root -> bytes,
 * or null when it does not exist), the home page with `page` written into it. Every file must
 * be there now, and the home page is made now; each other coding is made the first time a
 * reply needs it (Codings). */
export function loadAssets(read: (file: string) => Buffer | null, page: PageSettings = { minEntropyBits: 0 }): Asset[] {
  const cache = new Map<string, Codings>();
  return ASSET_SOURCES.map((source) => {
    let held = cache.get(source.file);
    if (held === undefined) {
      held = loadFile(read, source.file, page);
      cache.set(source.file, held);
    }
    return Object.freeze(new LoadedAsset(source, held));
  });
}

/**
 * One file in every coding, each made the first time it is asked for and then kept: the
 * identity decompressed from the brotli copy, a copy the build did not leave compressed here.
 * A server that only answers the API never makes them, so it holds neither the copies nor
 * the compressors' code and memory (docs/benchmark.md, "The request path against the lean
 * limit": RSS against the bare server); the first reply that needs one pays for it once
 * (milliseconds; gzip of service-api.js is the slowest, and browsers take brotli).
 */
class Codings {
  #identity: Buffer | null;
  #br: Buffer | null;
  #gzip: Buffer | null;
  readonly encoded: Readonly<Record<Compressed, Buffer>>;

  constructor(identity: Buffer | null, br: Buffer | null, gzip: Buffer | null) {
    this.#identity = identity;
    this.#br = br;
    this.#gzip = gzip;
    const coded = (coding: Compressed): Buffer => this.#coded(coding);
    this.encoded = Object.freeze({
      get br(): Buffer {
        return coded('br');
      },
      get gzip(): Buffer {
        return coded('gzip');
      },
    });
  }

  #coded(coding: Compressed): Buffer {
    if (coding === 'br') return (this.#br ??= compress(this.identity, 'br'));
    return (this.#gzip ??= compress(this.identity, 'gzip'));
  }

  get identity(): Buffer {
    // One of the two is always there (loadFile).
    return (this.#identity ??= brotliDecompressSync(this.#br as Buffer));
  }
}

class LoadedAsset implements Asset {
  readonly route: string;
  readonly file: string;
  readonly kind: AssetKind;
  readonly contentType: string;
  readonly #held: Codings;

  constructor(source: AssetSource, held: Codings) {
    this.route = source.route;
    this.file = source.file;
    this.kind = source.kind;
    this.contentType = source.contentType;
    this.#held = held;
  }

  get body(): Buffer {
    return this.#held.identity;
  }

  get encoded(): Readonly<Record<Compressed, Buffer>> {
    return this.#held.encoded;
  }
}

/** One file: its identity read or (when first needed) decompressed from its brotli copy, the
 * compressed ones read or (when first needed) made here. The home page is made now, with the
 * floor written into it, and only its compressed copies wait (it changes at load, so the
 * build's copies of it are never used). */
function loadFile(read: (file: string) => Buffer | null, file: string, page: PageSettings): Codings {
  const br = read(compressedFile(file, 'br'));
  const raw = read(file);
  if (raw === null && br === null)
    throw new AssetError(`${file} is missing (the build is incomplete: run npm run build)`);
  if (file === HOME_PAGE) return new Codings(withFloor(raw ?? brotliDecompressSync(br as Buffer), page), null, null);
  return new Codings(raw, br, read(compressedFile(file, 'gzip')));
}

/** The body and the headers of a reply of `asset` to a request with this Accept-Encoding. */
export function assetReply(
  asset: Asset,
  acceptEncoding: string | readonly string[] | undefined,
): { body: Buffer; headers: string[] } {
  const coding = chooseEncoding(acceptEncoding, COMPRESSED);
  return coding === 'identity'
    ? { body: asset.body, headers: ['Vary', 'Accept-Encoding'] }
    : { body: asset.encoded[coding], headers: ['Content-Encoding', coding, 'Vary', 'Accept-Encoding'] };
}

/** The home page `asset` offering `policies` (withPolicies), in every coding: compressed here
 * once per policy set (the caller keeps it until the set changes). */
export function withPoliciesAsset(asset: Asset, policies: ReadonlyMap<string, PagePolicy>): Asset {
  const body = withPolicies(asset.body, policies);
  if (body === asset.body) return asset;
  const encoded = Object.freeze({ br: compress(body, 'br'), gzip: compress(body, 'gzip') });
  return Object.freeze({ ...asset, body, encoded });
}

/** `read` for loadAssets over a project checkout. */
export function readFromProject(root: string): (file: string) => Buffer | null {
  return (file) => {
    const path = join(root, file);
    return existsSync(path) ? readFileSync(path) : null;
  };
}

/** `read` for loadAssets over the single file's embedded copies (file -> text; the compressed
 * copies `<file>.br` and `<file>.gz` as base64). */
export function readFromEmbedded(embedded: Readonly<Record<string, string>>): (file: string) => Buffer | null {
  return (file) =>
    Object.hasOwn(embedded, file) ? Buffer.from(embedded[file], /\.(br|gz)$/.test(file) ? 'base64' : 'utf8') : null;
}

/** The project root: the nearest directory above `from` holding package.json. Works from
 * server.ts run by tsx and from dist/server.js alike. */
export function projectRoot(from: string): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new AssetError(`package.json not found above ${fileURLToPath(from)}`);
    dir = up;
  }
}
