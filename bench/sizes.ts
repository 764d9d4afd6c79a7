/**
 * Section 5: what a browser downloads (the ServiceAPI bundle and the home page's files in
 * dist/browser) and what an operator deploys (the single file), raw and gzip (zlib's default
 * level 6, what most servers and CDNs send).
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from './procs.ts';

export interface FileSize {
  readonly file: string;
  readonly raw: number;
  readonly gzip: number;
}

/**
 * The same files at 7e99167, the last commit before the BIP-39 lists, the length bounds and the
 * inline icon (issue 25), built by `npm run build:dist` on Node 24: the "before" of the table.
 * The page loaded favicon.svg (443 B, 246 B gzip) as a fifth file then; now the icon is inline.
 */
export const BEFORE_WORD_LISTS: Readonly<Record<string, { readonly raw: number; readonly gzip: number }>> = {
  'dist/browser/service-api.js': { raw: 260_812, gzip: 70_039 },
  'dist/browser/app.js': { raw: 38_996, gzip: 10_759 },
  'dist/browser/index.html': { raw: 7_581, gzip: 2_741 },
  'dist/browser/styles.css': { raw: 15_983, gzip: 4_564 },
  'home page total': { raw: 323_372, gzip: 88_103 },
  'dist/credential-generator.mjs': { raw: 941_657, gzip: 240_042 },
};

export interface SizesResult {
  readonly bundle: readonly FileSize[];
  readonly page: readonly FileSize[];
  /** Everything the home page loads: index.html + styles.css + app.js + service-api.js. */
  readonly pageTotal: { readonly raw: number; readonly gzip: number };
  /** dist/credential-generator.mjs: the whole service in one file. */
  readonly singleFile: FileSize;
}

const DIR = join(ROOT, 'dist', 'browser');

function sizeOf(name: string, dir: string = DIR): FileSize {
  const path = join(dir, name);
  if (!existsSync(path)) throw new Error(`${path} is missing (run npm run build)`);
  const data = readFileSync(path);
  return { file: relative(ROOT, path), raw: data.length, gzip: gzipSync(data).length };
}

export function runSizes(): SizesResult {
  const bundle = ['service-api.js', 'app.js'].map((name) => sizeOf(name));
  const page = ['index.html', 'styles.css'].map((name) => sizeOf(name));
  const all = [...page, ...bundle];
  return {
    bundle,
    page,
    pageTotal: { raw: all.reduce((s, f) => s + f.raw, 0), gzip: all.reduce((s, f) => s + f.gzip, 0) },
    singleFile: sizeOf('credential-generator.mjs', join(ROOT, 'dist')),
  };
}
