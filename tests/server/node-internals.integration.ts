/**
 * The start-up self-check of lib/http/node-internals.ts (security review T6): the server is
 * started with each Node internal it relies on taken away by a preload
 * (tests/helpers/remove-node-hook.mjs), and each time refuses to start with one line naming
 * it, before anything listens. The same preload with nothing removed starts as usual.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HOOKS } from '../../lib/http/node-internals.ts';
import { launchServer, ROOT, startServer } from '../helpers/server.ts';

const PRELOAD = join(ROOT, 'tests', 'helpers', 'remove-node-hook.mjs');
const command = [
  process.execPath,
  '--import',
  import.meta.resolve('tsx'),
  '--import',
  PRELOAD,
  join(ROOT, 'server.ts'),
] as const;

describe('T6: the start-up self-check of the Node internals', { concurrency: 3 }, () => {
  for (const hook of Object.values(HOOKS)) {
    it(`T6: the start is refused, naming ${hook}, when Node no longer provides it`, async () => {
      const server = launchServer({ command, env: { REMOVE_NODE_HOOK: hook } });
      // A server that starts anyway is stopped, and the assertions below then fail.
      const started = server.waitForOutput(/listening on/).then(
        () => server.stop(),
        () => undefined,
      );
      const status = await server.exited;
      await started;
      const lines = server.output().trim().split('\n');
      assert.equal(status.code, 1, server.output());
      assert.equal(lines.length, 1, server.output());
      assert.match(
        lines[0],
        new RegExp(`^cannot start: Node\\.js v[\\d.]+ no longer provides ${hook.replace(/\./g, '\\.')} `),
      );
      assert.doesNotMatch(server.output(), /listening on/);
    });
  }

  it('T6: with nothing removed the same preload starts the server', async () => {
    const server = await startServer({ command, env: { REMOVE_NODE_HOOK: 'none' } });
    const status = await server.stop();
    assert.equal(status.code, 0);
  });
});
