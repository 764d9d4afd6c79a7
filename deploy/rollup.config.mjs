/**
 * The single-file build: dist/credential-generator.mjs, one ES module that runs with `node`
 * alone, from any directory, with no node_modules, package.json or spec/ beside it. It holds
 * the server, the key CLI, the generator with its word list, and (embedded as text) the home
 * page, the OpenAPI document and the Postman files.
 *
 * Input is what tsc emitted into dist/ (so Rollup needs no TypeScript plugin and bundles
 * exactly the JavaScript `dist/server.js` runs), after browser/rollup.config.mjs has built the
 * page into dist/browser/. Two modules are swapped: lib/http/embedded-assets, whose `null`
 * becomes the brotli copies of the files of ASSET_SOURCES (base64; the server decompresses
 * each once at start for identity clients and makes the gzip copy then: issue 31, the file
 * stays under 1 MB that way), and lib/server/bundled-package, whose `null` becomes the
 * package's name and version (`--version`, /health). Node's built-in modules stay imports.
 *
 * The build prints the file's size and SHA-256 and writes dist/credential-generator.mjs.sha256
 * (`sha256sum -c` format), so what runs can be checked against what was built.
 *
 * Run `tsc -p tsconfig.build.json` and the browser build first (npm run build:dist does all).
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { isUtf8 } from 'node:buffer';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { precompressed } from '../browser/precompress.mjs';
import { unindentValidators } from '../browser/unindent.mjs';
import { ASSET_SOURCES, compressedFile } from '../dist/lib/http/assets.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The ten BIP-39 lists are MIT: their notice travels with every copy (wordlist/bip39/LICENSE). */
const BIP39_NOTICE = (await readFile(`${root}wordlist/bip39/LICENSE`, 'utf8'))
  .trimEnd()
  .split('\n')
  .map((line) => `// ${line}`.trimEnd())
  .join('\n');
const OUT = 'credential-generator.mjs';
const EMBEDDED_MODULE = `${root}dist/lib/http/embedded-assets.js`;
const PACKAGE_MODULE = `${root}dist/lib/server/bundled-package.js`;
const pkg = JSON.parse(await readFile(`${root}package.json`, 'utf8'));

/** @returns {import('@rollup/wasm-node').Plugin} */
function embedAssets() {
  return {
    name: 'embed-assets',
    async load(id) {
      if (id !== EMBEDDED_MODULE) return null;
      /** @type {Record<string, string>} */
      const files = {};
      for (const { file } of ASSET_SOURCES) {
        const name = compressedFile(file, 'br');
        if (Object.hasOwn(files, name)) continue;
        const bytes = await readFile(`${root}${file}`);
        // Text only: what is served as text must be text.
        if (!isUtf8(bytes)) throw new Error(`${file} is not UTF-8 text`);
        // The browser build's copy where it made one, else made here with the same settings.
        const built = `${root}${name}`;
        const br = existsSync(built) ? await readFile(built) : precompressed(bytes).br;
        files[name] = br.toString('base64');
        this.addWatchFile(`${root}${file}`);
      }
      return `export const EMBEDDED_ASSETS = Object.freeze(${JSON.stringify(files)});\n`;
    },
  };
}

/** @returns {import('@rollup/wasm-node').Plugin} */
function bundlePackage() {
  return {
    name: 'bundle-package',
    load(id) {
      if (id !== PACKAGE_MODULE) return null;
      const identity = { name: pkg.name, version: pkg.version };
      return `export const BUNDLED_PACKAGE = Object.freeze(${JSON.stringify(identity)});\n`;
    },
  };
}

/** @returns {import('@rollup/wasm-node').Plugin} */
function reportFile() {
  return {
    name: 'report-file',
    async writeBundle(options) {
      const path = `${options.dir}/${OUT}`;
      const bytes = await readFile(path);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      await writeFile(`${path}.sha256`, `${sha256}  ${OUT}\n`);
      const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
      process.stdout.write(
        `dist/${OUT}: ${bytes.length} bytes (${kb(bytes.length)}, gzip ${kb(gzipSync(bytes, { level: 9 }).length)}), sha256 ${sha256}\n`,
      );
    },
  };
}

/**
 * Every character beyond ASCII written as a `\u` escape. V8 keeps a module's source text for as
 * long as the module lives: one byte a character when every character is Latin-1, two bytes a
 * character for the whole file when one is not. The only such characters are in string literals
 * (the Japanese, Korean, Chinese, Spanish and French BIP-39 lists), where an escape is the same
 * character, so the file means what it meant, at half the resident bytes for its source
 * (docs/benchmark.md, "RSS at load and under load"). tests/deploy/single-file.integration.ts
 * holds the file to ASCII, and the words it makes to the sources' lists.
 * @returns {import('@rollup/wasm-node').Plugin}
 */
function asciiOnly() {
  return {
    name: 'ascii-only',
    renderChunk(code) {
      const escaped = code.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      return { code: escaped, map: null };
    },
  };
}

const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** A warning here means a bundling mistake (an unresolved import, a stray export): fail. */
function onwarn(/** @type {import('@rollup/wasm-node').RollupLog} */ log) {
  throw new Error(`rollup: ${log.message}`);
}

export default {
  input: `${root}dist/server.js`,
  // redis: the optional client of the shared rate limit, loaded only when configured (docs/redis-rate-limit.md).
  external: (id) => builtins.has(id) || id === 'redis',
  plugins: [unindentValidators(), embedAssets(), bundlePackage(), asciiOnly(), reportFile()],
  onwarn,
  output: {
    dir: `${root}dist`,
    entryFileNames: OUT,
    format: 'es',
    // One file: the dynamically imported Redis store (loaded only when configured) goes inline.
    inlineDynamicImports: true,
    generatedCode: 'es2015',
    sourcemap: false,
    banner:
      `#!/usr/bin/env node\n` +
      `// ${pkg.name} ${pkg.version} (${pkg.license}): the whole service in one file. Run: node ${OUT} (see --help).\n` +
      `// Contains the EFF large wordlist (CC BY 3.0 US, Electronic Frontier Foundation, https://www.eff.org/dice).\n` +
      BIP39_NOTICE,
  },
};
