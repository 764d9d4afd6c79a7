/**
 * The build is reproducible: two clean builds of the same sources give the same
 * dist/credential-generator.mjs, byte for byte, so anyone can rebuild a release and check its
 * SHA-256. The two builds differ in everything that must not matter: the directory (its path
 * and the length of it), the time zone and locale, the time of the build, and the
 * modification times of the sources (a year apart, and the checkout's own). The whole dist/
 * tree is compared too, so a difference is named by the first file that has it.
 *
 * One build is the run's own: `npm run test:integration` builds dist/ in the repository first
 * (its time zone and locale are the run's, its sources' times the checkout's), as every file
 * that reads the single file relies on. The other runs `npm run build:dist` in a copy of the
 * working tree (no node_modules, dist/, .git or test output; node_modules is linked) with
 * sources dated 2021, in a time zone 14 hours ahead of UTC and a German locale; it never writes
 * the repository's own dist/. (Two builds in copies cost a build more, about 10 s of CPU, and
 * showed nothing more.)
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../helpers/server.ts';

/** Top-level entries of the working tree that are not sources. */
const NOT_SOURCES = new Set(['node_modules', 'dist', 'coverage', '.git', '.test-output', 'keys.json']);
const BUILD_TIMEOUT_MS = 600_000; // about 10 s idle; bounds a failure only
const OUT = join('dist', 'credential-generator.mjs');
const PAGE_MARKER = '.page-inputs';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Every file under `dir` (its path relative to `dir`), sorted. */
function filesUnder(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path, base));
    else out.push(relative(base, path));
  }
  return out.sort();
}

/** A copy of the sources in a fresh directory named `prefix...`, every file's times set to `mtime`. */
function copySources(prefix: string, mtime: Date): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  cpSync(ROOT, dir, {
    recursive: true,
    filter: (source) => {
      const rel = relative(ROOT, source);
      return !NOT_SOURCES.has(rel.split('/')[0]) && !rel.startsWith(join('bench', 'results'));
    },
  });
  for (const file of filesUnder(dir)) utimesSync(join(dir, file), mtime, mtime);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** `npm run build:dist` in `dir`; resolves with what it printed. */
function build(dir: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'build:dist'], {
      cwd: dir,
      env: { ...process.env, ...env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), BUILD_TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`npm run build:dist in ${dir} ended with ${code ?? signal}:\n${output}`));
    });
  });
}

describe('a reproducible build', () => {
  it("gives the same dist/credential-generator.mjs (and the same dist/) as the run's own build", async (t) => {
    assert.ok(existsSync(join(ROOT, OUT)), `${OUT} is built by npm run build:dist, which test:integration runs first`);
    const first = ROOT;
    const second = copySources('cg-second-build-of-the-same-sources-', new Date('2021-03-03T03:03:03Z'));
    const printedSecond = await build(second, {
      TZ: 'Pacific/Kiritimati',
      LANG: 'de_DE.UTF-8',
      LC_ALL: 'de_DE.UTF-8',
    });
    assert.notEqual(process.env.TZ, 'Pacific/Kiritimati', 'the two builds ran in different time zones');

    const [a, b] = [first, second].map((dir) => readFileSync(join(dir, OUT)));
    const digest = sha256(a);
    t.diagnostic(`${OUT}: ${a.length} bytes, sha256 ${digest}`);
    assert.equal(sha256(b), digest, `${OUT} differs between the two builds`);
    assert.match(printedSecond, new RegExp(`sha256 ${digest}\\n`), 'the build prints the digest of what it wrote');
    for (const dir of [first, second]) {
      assert.equal(readFileSync(join(dir, `${OUT}.sha256`), 'utf8'), `${digest}  credential-generator.mjs\n`);
    }

    // npm test's marker beside dist/browser/ (tests/helpers/npm-test.mjs) is no build output.
    const filesA = filesUnder(join(first, 'dist')).filter((file) => file !== PAGE_MARKER);
    assert.deepEqual(filesUnder(join(second, 'dist')), filesA, 'the two builds wrote the same files');
    for (const file of filesA) {
      const [x, y] = [first, second].map((dir) => readFileSync(join(dir, 'dist', file)));
      assert.ok(x.equals(y), `dist/${file} differs between the two builds`);
    }
  });
});
