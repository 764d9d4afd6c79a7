/**
 * F10 of the security review: which Node.js builds the server accepts, from one table that
 * package.json's `engines` follows. The real process cannot run on an old Node here, so the
 * check's logic is driven with version strings, and the refusal path of the real server with a
 * preloaded module that makes `process.version` claim an old build.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { enginesRange, NODE_LINES, nodeSupport } from '../../lib/server/node-support.ts';
import { launchServer, ROOT } from '../helpers/server.ts';

const DAY = new Date('2026-04-01T12:00:00Z'); // every listed line still supported

describe('F10: supported Node.js versions', () => {
  it("F10: package.json engines (and the lock file's copy) is the range derived from the one table", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node: string } }>;
    };
    assert.equal(pkg.engines.node, enginesRange());
    assert.equal(lock.packages[''].engines!.node, enginesRange());
    assert.equal(enginesRange(), '^20.20.2 || ^22.22.2 || ^24.14.1 || ^26.3.1');
  });

  it('F10: refuses builds with known HTTP parser or TLS vulnerabilities and lines without the fixes', () => {
    const cases: [version: string, ok: boolean, why: string][] = [
      ['v20.6.0', false, 'the old engines minimum'],
      ['v20.11.0', false, 'CVE-2024-22019 (chunk extensions), fixed in 20.11.1'],
      ['v20.12.0', false, 'CVE-2024-27982 (Content-Length smuggling), fixed in 20.12.1'],
      ['v20.19.1', false, 'CVE-2025-23167 (header block termination), fixed in 20.19.2'],
      ['v20.20.1', false, 'CVE-2026-21717 (HashDoS through JSON.parse), fixed in 20.20.2'],
      ['v20.20.2', true, 'the last 20.x'],
      ['v22.22.1', false, 'CVE-2026-21717, fixed in 22.22.2'],
      ['v22.22.2', true, ''],
      ['v22.23.0', true, ''],
      ['v24.4.0', false, 'CVE-2025-27209 (rapidhash HashDoS), fixed in 24.4.1'],
      ['v24.14.0', false, 'CVE-2026-21717, fixed in 24.14.1'],
      ['v24.14.1', true, ''],
      ['v26.3.0', false, 'before the first 26.x security release'],
      ['v26.3.1', true, ''],
      ['v27.0.0', true, 'a newer line than the table (with a warning)'],
      ['v30.1.2-nightly20300101', true, 'a pre-release of a newer line'],
      ['v18.20.8', false, 'end of life before the fixes'],
      ['v21.7.3', false, 'odd line, end of life'],
      ['v23.11.1', false, 'odd line, end of life'],
      ['v25.8.2', false, 'odd line, not listed'],
      ['20.20.2', true, 'without the v'],
      ['banana', false, 'unreadable'],
    ];
    for (const [version, ok, why] of cases) {
      const result = nodeSupport(version, DAY);
      assert.equal(result.ok, ok, `${version}: ${why}`);
      if (!result.ok) {
        assert.ok(!result.message.includes('\n'), 'one line');
        assert.ok(result.message.startsWith(`unsupported Node.js ${version}: `), result.message);
        assert.ok(result.message.includes(enginesRange()), 'it names what is supported');
      }
    }
    assert.match(
      (nodeSupport('v20.19.1', DAY) as { message: string }).message,
      /use 20\.20\.2 or later on the 20\.x line/,
    );
    assert.match((nodeSupport('v23.11.1', DAY) as { message: string }).message, /the 23\.x line has no release/);
  });

  it('F10: starts on an end-of-life line with a warning that says where to move', () => {
    assert.deepEqual(nodeSupport('v20.20.2', new Date('2026-04-30T23:59:59Z')), { ok: true, warning: null });
    const after = nodeSupport('v20.20.2', new Date('2026-05-01T00:00:00Z'));
    assert.deepEqual(after, {
      ok: true,
      warning:
        'Node.js 20.x reached its end of life on 2026-04-30 and gets no more security fixes; move to 22 or 24 or 26',
    });
    const later = nodeSupport('v22.22.2', new Date('2027-05-01T00:00:00Z'));
    assert.match(
      (later as { warning: string }).warning,
      /^Node\.js 22\.x reached its end of life on 2027-04-30 .* move to 24 or 26$/,
    );
    assert.deepEqual(nodeSupport('v26.3.1', new Date('2027-05-01T00:00:00Z')), { ok: true, warning: null });
    const end = NODE_LINES[NODE_LINES.length - 1].endOfLife;
    const pastEveryLine = new Date(Date.parse(end) + 86_400_000);
    assert.match((nodeSupport('v26.3.1', pastEveryLine) as { warning: string }).warning, /move to a newer line$/);
  });

  it('T6: engines ends at the newest line CI tests, each alternative in the ^X.Y.Z form .ci/node-lines.mjs reads', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    const alternatives = pkg.engines.node.split('||').map((a) => a.trim());
    const newest = NODE_LINES[NODE_LINES.length - 1];
    assert.equal(alternatives.at(-1), `^${newest.minimum}`);
    for (const alternative of alternatives) assert.match(alternative, /^\^\d+\.\d+\.\d+$/);
    // The same pattern as lineOf in .ci/node-lines.mjs (which queries the registry when run).
    const script = readFileSync(join(ROOT, '.ci', 'node-lines.mjs'), 'utf8');
    assert.ok(script.includes('/^(\\^|>=)(\\d+)\\.(\\d+)\\.(\\d+)$/'), 'the CI script still reads ^X.Y.Z');
    // A newer major still starts, but says it is untested.
    const newer = nodeSupport(`v${newest.major + 1}.0.0`, DAY);
    assert.equal(newer.ok, true);
    assert.match((newer as { warning: string }).warning, /newer than the newest line this server is tested on \(26\.x/);
  });

  it("F10: this machine's Node.js passes the check", () => {
    assert.equal(nodeSupport(process.version, new Date()).ok, true, process.version);
  });

  it('F10: the real server refuses to start on an old build with one line and exit code 1', async () => {
    // A preloaded module makes the process report 20.11.0 before server.ts runs.
    const launched = launchServer({
      env: {
        NODE_OPTIONS: "--import=data:text/javascript,Object.defineProperty(process,'version',{value:'v20.11.0'})",
      },
    });
    // Should it start after all, it says so, and the test stops it rather than waiting.
    const listening = launched.waitForOutput(/"msg":"listening on /, 60_000).then(
      () => launched.stop(),
      () => undefined,
    );
    const { code } = await launched.exited;
    await listening;
    assert.equal(code, 1, 'exit code (a listening server was stopped by the test)');
    assert.equal(launched.output(), `${(nodeSupport('v20.11.0', new Date()) as { message: string }).message}\n`);
  });
});
