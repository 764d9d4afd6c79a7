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
