/**
 * Files served as they are, read once at start (no file system call per request): the home
 * page and its assets from dist/browser/, the OpenAPI document and the Postman files from
 * spec/. A missing directory or file just means that route is absent (404), so the API runs
 * before the browser bundle or the spec is built.
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: the nearest directory above `from` holding package.json. Works from
 * server.ts run by tsx and from dist/server.js alike. */
export function projectRoot(from: string): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + fileURLToPath(from));
    dir = up;
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};

/** Content type by extension, or by the first bytes for files without one. */
export function contentTypeOf(name: string, body: Buffer): string {
  const known = TYPES[extname(name).toLowerCase()];
  if (known !== undefined) return known;
  if (body.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (body[0] === 0xff && body[1] === 0xd8 && body[2] === 0xff) return 'image/jpeg';
  if (body.subarray(0, 4).toString('latin1') === 'RIFF' && body.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  const head = body.subarray(0, 256).toString('utf8').trimStart().toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'text/html; charset=utf-8';
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return 'image/svg+xml';
  return 'application/octet-stream';
}

export interface StaticFile {
  readonly name: string;
  readonly body: Buffer;
  readonly contentType: string;
}

export interface Assets {
  /** dist/browser files by name; index.html is served at `/`. */
  readonly page: readonly StaticFile[];
  readonly openapi: Buffer | null;
  readonly postman: readonly StaticFile[];
}

/** Only names that are a plain URL path segment; anything odd is skipped, not escaped. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function filesIn(dir: string, accept: (name: string) => boolean): StaticFile[] {
  if (!existsSync(dir)) return [];
  const out: StaticFile[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!SAFE_NAME.test(name) || !accept(name)) continue;
    const path = join(dir, name);
    if (!statSync(path).isFile()) continue;
    const body = readFileSync(path);
    out.push({ name, body, contentType: contentTypeOf(name, body) });
  }
  return out;
}

export function loadAssets(root: string): Assets {
  const openapiPath = join(root, 'spec', 'openapi.json');
  return {
    page: filesIn(join(root, 'dist', 'browser'), () => true),
    openapi: existsSync(openapiPath) ? readFileSync(openapiPath) : null,
    postman: filesIn(join(root, 'spec'), (name) => name.endsWith('.postman_collection.json') || name.endsWith('.postman_environment.json')),
  };
}
