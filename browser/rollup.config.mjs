/**
 * Bundles the browser side from what tsc already emitted into dist/ (so Rollup needs no
 * TypeScript plugin and bundles exactly the JS the server runs):
 *
 *   dist/browser/entry.js -> dist/browser/service-api.js  IIFE defining window.ServiceAPI
 *   dist/browser/app.js   -> dist/browser/app.js          IIFE, the home page's UI, with the
 *                                                          modules of dist/browser/home/ in it
 *
 * and copies the static files next to them. It then removes what tsc emitted only for Rollup
 * to read (entry.js and home/): ES modules the page must never load, so dist/browser/ holds
 * exactly the files the server lists as the page's assets, and their compressed copies:
 * `<file>.gz` and `<file>.br` beside each script and stylesheet (lib/http/assets.ts serves the
 * one the client's Accept-Encoding asks for). Compressed here, once, at the best settings
 * (brotli quality 11 takes over a second for service-api.js, too long for every start).
 * node:zlib writes the same bytes for the same input, so the build stays reproducible.
 *
 * No plugins are needed: the core imports only relative files, and the ajv validator was
 * already compiled to self-contained code at build time (lib/generated/validator.generated.ts),
 * so neither the ajv compiler nor a `require` can reach the bundle.
 *
 * Run `tsc -p tsconfig.build.json` first (npm run build:dist does both).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { precompressed } from './precompress.mjs';
import { unindentValidators } from './unindent.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/browser`;

/** Copied verbatim; the server serves them at /<name>. */
const STATIC_FILES = ['index.html', 'styles.css'];

/** @returns {import('@rollup/wasm-node').Plugin} */
function copyStatic() {
  return {
    name: 'copy-static',
    async generateBundle() {
      for (const name of STATIC_FILES) {
        this.emitFile({ type: 'asset', fileName: name, source: await readFile(`${root}browser/${name}`) });
      }
    },
  };
}

/** Removes a file or directory tsc emitted only as Rollup's input, once the bundle is written.
 * @returns {import('@rollup/wasm-node').Plugin} */
function removeIntermediate(path) {
  return {
    name: 'remove-intermediate',
    async writeBundle() {
      await rm(path, { force: true, recursive: true });
    },
  };
}

/** Writes `<file>.gz` and `<file>.br` beside each output file but the home page, which the
 * server writes to as it loads it (and then compresses itself).
 * @returns {import('@rollup/wasm-node').Plugin} */
function precompress() {
  return {
    name: 'precompress',
    async writeBundle(_options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (name.endsWith('.html')) continue;
        const { gz, br } = precompressed(await readFile(`${out}/${name}`));
        await writeFile(`${out}/${name}.gz`, gz);
        await writeFile(`${out}/${name}.br`, br);
      }
    },
  };
}

/** wordlist/bip39/LICENSE as one comment block. */
async function bip39Notice() {
  const text = await readFile(`${root}wordlist/bip39/LICENSE`, 'utf8');
  return `/*!\n${text.trimEnd().replaceAll('*/', '* /')}\n*/`;
}

/** @type {import('@rollup/wasm-node').OutputOptions} */
const iife = {
  dir: out,
  format: 'iife',
  // The bundles are classic scripts under a strict CSP: no eval, no Function, no require.
  strict: true,
  generatedCode: 'es2015',
  sourcemap: false,
};

/** A warning here means a bundling mistake (an unresolved import, a stray export): fail. */
function onwarn(/** @type {import('@rollup/wasm-node').RollupLog} */ log) {
  throw new Error(`rollup: ${log.message}`);
}

export default [
  {
    input: `${out}/entry.js`,
    // The generator holds the BIP-39 lists, which are MIT: their notice goes with them.
    output: { ...iife, entryFileNames: 'service-api.js', banner: await bip39Notice() },
    plugins: [unindentValidators(), removeIntermediate(`${out}/entry.js`), precompress()],
    onwarn,
  },
  {
    input: `${out}/app.js`,
    output: { ...iife, entryFileNames: 'app.js' },
    plugins: [copyStatic(), removeIntermediate(`${out}/home`), precompress()],
    onwarn,
  },
];
