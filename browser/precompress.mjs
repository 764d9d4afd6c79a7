/**
 * gzip and brotli at their best settings, for the served text files: the browser build leaves
 * them beside the page's scripts and stylesheet (browser/rollup.config.mjs), and the single
 * file embeds the brotli copies (deploy/rollup.config.mjs). node:zlib writes the same bytes for
 * the same input, so both builds stay reproducible.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** @param {Buffer} bytes @returns {{ gz: Buffer, br: Buffer }} */
export function precompressed(bytes) {
  return {
    gz: gzipSync(bytes, { level: 9 }),
    br: brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
  };
}
