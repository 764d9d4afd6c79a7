/**
 * What a newcomer reads in the README before the first run (issue 41): the time `npm test`
 * takes is given for an idle machine, with what load does to it, and the EBADENGINE warnings
 * `npm ci` prints on the oldest Node line `engines` accepts are each named and called harmless,
 * from the lock file's own `engines` fields, so a new package that warns must be named too. And
 * the README's documentation table is the way in to docs/: it names every file there, each once,
 * and nothing that is not there.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../../spec/build.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string }; optional?: boolean }>;
};

/** npm's own range semantics: the semver package, hoisted in node_modules by the lock (a
 * dependency of many devDependencies; no types of its own, hence createRequire). */
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

/** The oldest release `engines` accepts. */
const oldest = semver.minVersion(pkg.engines.node)!.version;

describe('the README for a newcomer', () => {
  it("gives npm test's time for an idle machine and says what load does to it", () => {
    assert.match(readme, /`npm test` \([^)]*on an idle 2-core machine/);
    assert.match(readme, /load average/);
  });

  it(`names each package npm ci warns about on Node ${oldest} (EBADENGINE) and says they are harmless`, () => {
    const warned = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && !p.optional && p.engines?.node !== undefined)
      .filter(([, p]) => !semver.satisfies(oldest, p.engines!.node!))
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    assert.ok(warned.length > 0, 'the lock holds such packages (if none is left, drop the README note)');
    const note = /On Node (\d+), `npm ci` prints (\w+) `EBADENGINE` warnings: [^.]*\. They are harmless/.exec(readme);
    assert.ok(note !== null, 'the README says how many warnings and that they are harmless');
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
    assert.equal(note[1], oldest.split('.')[0], 'the line named is the oldest');
    assert.equal(note[2], words[warned.length], `${warned.length} warnings: ${warned.join(', ')}`);
    for (const name of warned) assert.ok(readme.includes(name), `the README names ${name}`);
  });

  it('lists every file of docs/ in its documentation table, each once, and nothing else', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = text.slice(text.indexOf('## Documentation'));
    const table = section.slice(0, section.indexOf('\n## ', 1));
    const listed = [...table.matchAll(/^\| \[docs\/([^\]]+)\]\(docs\/\1\) \|/gm)].map((m) => m[1]);
    const files = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    assert.deepEqual([...listed].sort(), [...new Set(listed)].sort(), 'each once');
    assert.deepEqual([...listed].sort(), [...files].sort());
  });
});
