// The module hook of ./typescript.mjs on Node 20 (no type stripping of its own): a `.ts` file of
// this checkout is loaded as esbuild's translation of it, with an inline source map so that
// coverage and stack traces point into the TypeScript. The options are tsx's (this replaced it,
// and coverage came out the same to the line): whitespace minified, names kept, the sources in
// the map when coverage is on.
//
// The translation is cached on disk under node_modules/.cache/typescript-hooks/, named by the
// SHA-256 of the file's path and bytes, so an edited file is translated again and a stale
// entry can never be served; esbuild itself starts only on a miss. Concurrent test processes
// may translate the same file at once: each writes a file of its own and renames it into
// place, so a reader sees a whole entry or none.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = `${ROOT}node_modules/.cache/typescript-hooks`;
const coverage = process.env.NODE_V8_COVERAGE !== undefined;
let esbuild;

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) {
    return nextLoad(url, context);
  }
  const path = fileURLToPath(url);
  const source = readFileSync(path, 'utf8');
  const key = createHash('sha256').update(`${coverage}\0${path}\0`).update(source).digest('hex');
  const entry = `${CACHE}/${key}.js`;
  let code;
  try {
    code = readFileSync(entry, 'utf8');
  } catch {
    esbuild ??= await import('esbuild');
    const out = await esbuild.transform(source, {
      loader: 'ts',
      format: 'esm',
      target: `node${process.versions.node}`,
      sourcefile: path,
      sourcemap: true,
      sourcesContent: coverage,
      minifyWhitespace: true,
      keepNames: true,
    });
    code = `${out.code}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(out.map).toString('base64')}\n`;
    // A process that cannot write the cache (a server a test starts as another user) still
    // runs, translating again next time.
    try {
      mkdirSync(CACHE, { recursive: true });
      const partial = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}`;
      writeFileSync(partial, code);
      renameSync(partial, entry);
    } catch {
      // nothing kept: the translation above is served all the same
    }
  }
  return { format: 'module', source: code, shortCircuit: true };
}
