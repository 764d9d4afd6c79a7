/**
 * keepYoungGenerationSmall() before anything else of the program runs: server.ts imports this
 * module first, so its line runs before the other modules are evaluated. Called from the
 * program's main function instead, it came after them, and their evaluation (the word lists,
 * the compiled validators, the embedded page) had already let V8 double the young generation
 * twice, to semi-spaces of 4 MiB that then stayed resident (docs/benchmark.md, "The request
 * path against the lean limit": RSS against the bare server).
 * @module
 */
import { keepYoungGenerationSmall } from './young-generation.ts';

keepYoungGenerationSmall();
