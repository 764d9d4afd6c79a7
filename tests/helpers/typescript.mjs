// How the suites load TypeScript: Node's own type stripping where the line has it (22.18 and
// later, 24, 26: `process.features.typescript`), tsx elsewhere (Node 20). The code is written
// for both (erasableSyntaxOnly, `.ts` in every relative import, JSON imported `with { type }`),
// and stripping leaves every line and column where it was, so coverage needs no source map.
// Native stripping starts a test file in about half the CPU time tsx takes (0.2 s against 0.6 s
// for a small file on Node 24), which over some 70 files is about a fifth of the suites' CPU.
//
//   node --import ./tests/helpers/typescript.mjs --test ...
if (!process.features.typescript) await import('tsx');
