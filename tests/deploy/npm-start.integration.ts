/**
 * `npm start` runs the built single file and hands its process to node (no sh in between), so
 * a supervisor's SIGTERM to the npm process reaches the server, which drains: requests in
 * flight are answered, npm exits 0 and no server process is left behind. Also: a missing or
 * stale build is refused with one line instead of being rebuilt or run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sigtermUnderLoad } from '../helpers/chaos.ts';
import { Seen } from '../helpers/hardening-kit.ts';
import { randomApiKey, ROOT, startServer } from '../helpers/server.ts';

const seen = new Seen();
const scratch = mkdtempSync(join(tmpdir(), 'cg-npm-start-'));

after(() => rmSync(scratch, { recursive: true, force: true }));

/** The PIDs of a process's children (Linux /proc). */
function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text === '' ? [] : text.split(/\s+/).map(Number);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start', () => {
  it('drains on a SIGTERM sent to the npm process: in-flight requests answered, exit 0, no server left', async () => {
    const key = randomApiKey();
    seen.add(key);
    const server = await startServer({
      command: ['npm', 'start', '--silent'],
      apiKey: key,
      rateLimitPerMinute: 1_000_000,
    });
    const children = childrenOf(server.pid);
    assert.equal(children.length, 1, 'npm has one child');
    const node = children[0];
    const cmdline = readFileSync(`/proc/${node}/cmdline`, 'utf8').split('\0');
    assert.equal(
      cmdline[1],
      'dist/credential-generator.mjs',
      `npm's child is node running the single file (exec, no shell): ${cmdline.join(' ')}`,
    );
    assert.deepEqual(childrenOf(node), [], 'and nothing runs below it');

    const figures = await sigtermUnderLoad(server, key, seen, { inFlight: 10, lanes: 4 });
    assert.equal(figures.inFlightAnswered, 10);
    assert.equal(figures.code, 0, 'npm exits 0');
    assert.ok(!isRunning(node), 'the server process is gone');
    seen.assertNowhere([server.output()]);
  });

  it('refuses, with one line, a build that is missing or older than its sources', () => {
    // A copy of just what deploy/start.sh looks at, so the real build is never touched.
    const project = join(scratch, 'project');
    mkdirSync(join(project, 'dist'), { recursive: true });
    for (const name of ['package.json', 'server.ts']) copyFileSync(join(ROOT, name), join(project, name));
    for (const dir of ['lib', 'browser', 'spec', 'wordlist', 'deploy'])
      cpSync(join(ROOT, dir), join(project, dir), { recursive: true });
    const start = (): { status: number | null; stderr: string } => {
      const r = spawnSync('npm', ['start', '--silent', '--', '--help'], {
        cwd: project,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      });
      return {
        status: r.status,
        stderr: r.stderr
          .split('\n')
          .filter((l) => !l.startsWith('npm warn'))
          .join('\n'),
      };
    };

    const missing = start();
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, 'dist/credential-generator.mjs is missing: run npm run build first\n');

    const bundle = join(project, 'dist', 'credential-generator.mjs');
    copyFileSync(join(ROOT, 'dist', 'credential-generator.mjs'), bundle);
    const old = new Date(Date.now() - 60_000);
    utimesSync(bundle, old, old);
    const stale = start();
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /^dist\/credential-generator\.mjs is older than \S+: run npm run build first\n$/);

    const fresh = new Date(Date.now() + 60_000);
    utimesSync(bundle, fresh, fresh);
    const ok = spawnSync('npm', ['start', '--silent', '--', '--help'], {
      cwd: project,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    assert.equal(ok.status, 0);
    assert.match(ok.stdout, /^usage: npm start -- \[serve\] /);
  });
});
