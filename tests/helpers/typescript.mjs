// How the tests load TypeScript: Node's own type stripping where the line has it (22.18 and
// later, 24, 26: `process.features.typescript`), and on Node 20 the hook of
// ./typescript-hooks.mjs, which strips types with esbuild and keeps the result in a disk cache.
// The code is written for both (erasableSyntaxOnly, `.ts` in every relative import, JSON
// imported `with { type }`). Native stripping leaves every line and column where it was, so
// coverage needs no source map; the hook hands c8 an inline one.
//
// Why not tsx on Node 20: its start-up cost about 0.3 s of CPU in every test process (an empty
// test file: 0.66 s against 0.33 s with this hook, whole process, Node 20.20.2), which over some
// 75 files and the servers they start was a fifth of `npm test`'s CPU there. tsx stays for the
// package scripts that run a `.ts` file directly (build, bench).
//
//   node --import ./tests/helpers/typescript.mjs --test ...
import { register } from 'node:module';

if (!process.features.typescript) register('./typescript-hooks.mjs', import.meta.url);
