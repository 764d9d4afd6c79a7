/**
 * What an operator sees at start: a warning that says where the key file is expected and how
 * to issue a key when none is configured; a build that is incomplete stops the start with one
 * line instead of serving 404s; and health probes stay out of the request log at the default
 * level.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { launchServer, randomApiKey, ROOT, startServer } from '../helpers/server.ts';
import { request } from '../helpers/http.ts';

const scratch = mkdtempSync(join(tmpdir(), 'cg-startup-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Warn lines but the end-of-life notice, which every start on a Node line past its end of
 * life prints (tests/server/node-support.test.ts covers it). */
function warnings(output: string): Record<string, unknown>[] {
  return lines(output).filter((l) => l.level === 'warn' && !String(l.msg).includes('reached its end of life'));
}

function lines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('start-up', () => {
  it('with no key configured: one warn line naming the resolved key file and the command that issues a key', async () => {
    const keysFile = join(scratch, 'nested', 'keys.json');
    const server = await startServer({ keysFile });
    try {
      const warned = warnings(server.output());
      assert.equal(warned.length, 1);
      assert.deepEqual(warned[0], {
        time: warned[0].time,
        level: 'warn',
        msg: 'no API key configured: POST /generate answers 503 until a key is issued',
        keysFile,
        issue: `node server.ts keys issue --holder NAME --file ${keysFile}`,
      });
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it('with a key configured: no warning', async () => {
    const server = await startServer({ apiKey: randomApiKey() });
    try {
      assert.deepEqual(warnings(server.output()), []);
    } finally {
      await server.stop();
    }
  });

  it('an incomplete build (no home page) stops the start with one line', async () => {
    const project = join(scratch, 'half-built');
    mkdirSync(project);
    cpSync(join(ROOT, 'package.json'), join(project, 'package.json'));
    cpSync(join(ROOT, 'dist'), join(project, 'dist'), {
      recursive: true,
      filter: (src) => !src.includes(join('dist', 'browser')),
    });
    cpSync(join(ROOT, 'spec'), join(project, 'spec'), { recursive: true });
    const launched = launchServer({
      apiKey: randomApiKey(),
      command: [process.execPath, join(project, 'dist', 'server.js')],
      cwd: scratch,
    });
    const exit = await launched.exited;
    assert.equal(exit.code, 1);
    assert.equal(
      launched.output(),
      'cannot start: dist/browser/index.html is missing (the build is incomplete: run npm run build)\n',
    );
  });

  it('health probes are not request-logged at the default level, and are at debug', async () => {
    for (const logLevel of ['info', 'debug'] as const) {
      const server = await startServer({ apiKey: randomApiKey(), logLevel });
      try {
        for (let i = 0; i < 3; i++) assert.equal((await request(server.url, '/health')).status, 200);
        assert.equal((await request(server.url, '/generate')).status, 200);
        // Lines are written once per event-loop turn: the last one being there means all are.
        await server.waitForOutput(/"msg":"request","id":"[^"]+","method":"GET","route":"\/generate"/);
        const routes = lines(server.output())
          .filter((l) => l.msg === 'request')
          .map((l) => l.route);
        assert.deepEqual(routes, logLevel === 'info' ? ['/generate'] : ['/health', '/health', '/health', '/generate']);
      } finally {
        await server.stop();
      }
    }
  });
});
