/**
 * One file watcher for the key file, the policies file and the TLS pair (lib/files/watch-file.ts):
 * a change is reported with the new stat (undefined once the file is gone), a write made before
 * fs.watchFile's first stat is caught by the recheck, and close() stops both.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileVersion, statOf, watchFile } from '../../lib/files/watch-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-watch-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves with the first report that `until` accepts. */
function report(seen: (Stats | undefined)[], until: (s: Stats | undefined) => boolean): Promise<Stats | undefined> {
  return new Promise((resolve) => {
    const check = setInterval(() => {
      const hit = seen.find(until);
      if (seen.some(until)) {
        clearInterval(check);
        resolve(hit);
      }
    }, 5);
  });
}

describe('watchFile', () => {
  it('reports a change, a removal, and a write made before its first poll; stops on close', async () => {
    const file = join(dir, 'watched.json');
    writeFileSync(file, 'one');
    const first = fileVersion(statOf(file));
    const seen: (Stats | undefined)[] = [];
    const watch = watchFile(file, 20, (stats) => seen.push(stats));
    // Written at once, before fs.watchFile has its baseline: the recheck reports it.
    writeFileSync(file, 'two, longer');
    const changed = await report(seen, (s) => s !== undefined && fileVersion(s) !== first);
    assert.equal(changed?.size, 'two, longer'.length);
    rmSync(file);
    assert.equal(await report(seen, (s) => s === undefined), undefined);
    assert.equal(fileVersion(undefined), 'missing');
    assert.equal(statOf(file), undefined);
    watch.close();
    watch.close();
    const count = seen.length;
    writeFileSync(file, 'three');
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(seen.length, count, 'nothing after close');
  });
});
