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
 * exactly the files the server lists as the page's assets.
 *
 * No plugins are needed: the core imports only relative files, and the ajv validator was
 * already compiled to self-contained code at build time (lib/generated/validator.generated.ts),
 * so neither the ajv compiler nor a `require` can reach the bundle.
 *
 * Run `tsc -p tsconfig.build.json` first (npm run build:dist does both).
 */
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

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
    plugins: [removeIntermediate(`${out}/entry.js`)],
    onwarn,
  },
  {
    input: `${out}/app.js`,
    output: { ...iife, entryFileNames: 'app.js' },
    plugins: [copyStatic(), removeIntermediate(`${out}/home`)],
    onwarn,
  },
];
