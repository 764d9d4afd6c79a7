/**
 * Preload (`--import`, after tsx) that lines up many CLI processes for a contention test:
 * it loads the modules named by BARRIER_PRELOAD (space-separated URLs, so the command's own
 * imports then finish at once), writes BARRIER_DIR/ready-<pid>, and blocks until BARRIER_DIR/go exists. The test
 * creates `go` once every process is ready, so all of them run their command at the same
 * moment instead of spread over the ~100 ms each one takes to start.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.BARRIER_DIR;
if (dir === undefined) throw new Error('BARRIER_DIR is not set');
for (const url of (process.env.BARRIER_PRELOAD ?? '').split(' ').filter(Boolean)) await import(url);
writeFileSync(join(dir, `ready-${process.pid}`), '');
const cell = new Int32Array(new SharedArrayBuffer(4));
for (let i = 0; i < 60_000 && !existsSync(join(dir, 'go')); i++) Atomics.wait(cell, 0, 0, 1);
