/**
 * Keeps V8's young generation at its starting size instead of letting it double under load,
 * where every doubling stays resident; held small it costs no CPU per request (the figures:
 * docs/benchmark.md, The young generation held small).
 *
 * Set from inside the program, as the single file is started as `node credential-generator.mjs`
 * with no room for node's flags: V8 reads the growth factor whenever it decides to grow, so it
 * takes effect at run time (tests/server/young-generation.integration.ts, per Node line).
 * @module
 */
import { setFlagsFromString } from 'node:v8';

export const YOUNG_GENERATION_FLAG = '--semi-space-growth-factor=1';

export function keepYoungGenerationSmall(): void {
  setFlagsFromString(YOUNG_GENERATION_FLAG);
}
