/**
 * Keeps V8's young generation at its starting size (two 1 MiB semi-spaces on 64-bit) instead
 * of letting it double up to 16 MiB each under load (8 MiB on Node 26).
 *
 * V8 doubles the young generation whenever the bytes that survived its collections since the
 * last doubling exceed its size. Under steady load a server's in-flight requests survive a few
 * kilobytes of every collection, so the young generation grows to its maximum with time, and
 * every doubling stays resident. Measured on Node 20 with 32 connections for 40 s: the
 * server's RSS reached 88 MiB (young generation 15 MiB, old generation 19 MiB), against 59 MiB
 * for a bare node:http server under the same load; kept small, 66 MiB. The collections come
 * more often but each copies only the few live kilobytes: in paired runs the CPU per request
 * went down, not up (docs/benchmark.md).
 *
 * It is set from inside the program because the single file is started as `node
 * credential-generator.mjs`, with no room for node's own flags. Of V8's young-generation flags
 * only the growth factor is read when V8 decides to grow (the sizes are fixed when the heap is
 * made), so it takes effect at run time; tests/server/young-generation.integration.ts checks
 * that on the Node line under test.
 * @module
 */
import { setFlagsFromString } from 'node:v8';

export const YOUNG_GENERATION_FLAG = '--semi-space-growth-factor=1';

export function keepYoungGenerationSmall(): void {
  setFlagsFromString(YOUNG_GENERATION_FLAG);
}
