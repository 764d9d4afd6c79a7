/**
 * keepYoungGenerationSmall (lib/server/young-generation.ts) takes effect on the Node line under
 * test: V8 reads the flag it sets after the heap exists. A fresh process allocates 160 MB while
 * keeping its last 4,096 objects alive, the pattern of a server whose in-flight requests survive
 * every young collection. With the call its young generation stays at two semi-spaces of their
 * starting size, 1 MiB each (V8 commits the second at the first collection: 2 MiB); without it
 * (the control, so the test can fail) the same work makes V8 grow it to 16 MiB and more
 * (measured: 32 MiB on Node 20, 22 and 24, 17 MiB on 26).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/server.ts';

const MODULE = join(ROOT, 'dist', 'lib', 'server', 'young-generation.js');

const CHILD = `
import { getHeapSpaceStatistics } from 'node:v8';
import { keepYoungGenerationSmall } from ${JSON.stringify(pathToFileURL(MODULE).href)};
if (process.argv[1] === 'small') keepYoungGenerationSmall();
const youngBytes = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const start = youngBytes();
const live = new Array(4096);
for (let i = 0; i < 2_000_000; i++) live[i & 4095] = { i, text: 'request ' + i };
process.stdout.write(JSON.stringify({ start, end: youngBytes(), kept: live.length }));
`;

function youngGeneration(mode: 'small' | 'default'): { start: number; end: number } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, mode], {
    encoding: 'utf8',
    timeout: 120_000, // a failure bound: it takes well under a second idle
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { start: number; end: number };
}

describe('the young generation under load', () => {
  it('stays at 2 MiB once keepYoungGenerationSmall() ran, and grows past 8 MiB without it', (t) => {
    assert.ok(existsSync(MODULE), `${MODULE} is built by npm run build:dist, which the run does first`);
    const small = youngGeneration('small');
    const grown = youngGeneration('default');
    t.diagnostic(
      `${process.version}: young generation ${small.start} -> ${small.end} B with, ${grown.start} -> ${grown.end} B without`,
    );
    const MiB = 1024 * 1024;
    assert.ok(small.end <= 2 * MiB, `with the call: at most two 1 MiB semi-spaces, got ${small.end} B`);
    assert.ok(grown.end >= 8 * MiB, `without it the same work grows it (the control), got ${grown.end} B`);
  });
});
