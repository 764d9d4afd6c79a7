/**
 * The composition root (lib/server/main.ts) in-process: each start that cannot go on is one
 * StartError line naming what to fix, and nothing it opened is left running.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readFromProject } from '../../lib/http/assets.ts';
import { startService, StartError, type StartOptions } from '../../lib/server/main.ts';
import { post } from '../helpers/http.ts';
import { randomApiKey, ROOT } from '../helpers/server.ts';
import { startInProcess } from '../helpers/in-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'cg-main-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const silent = (): void => undefined;

function options(env: Record<string, string>, readAsset = readFromProject(ROOT)): StartOptions {
  return {
    env: { PORT: '0', LOG_LEVEL: 'silent', API_KEYS_FILE: join(dir, 'none.json'), ...env },
    cwd: dir,
    readAsset,
    keysCommand: 'cg keys',
    sink: silent,
  };
}

async function startError(o: StartOptions): Promise<string> {
  try {
    const running = await startService(o);
    await running.stop();
  } catch (error) {
    assert.ok(error instanceof StartError, String(error));
    assert.ok(!error.message.includes('\n'), 'one line');
    return error.message;
  }
  return assert.fail('started');
}

describe('startService', () => {
  it('refuses a bad variable, a missing served file and an untrusted key file, each with one line', async () => {
    assert.match(await startError(options({ PORT: '99999' })), /^configuration error: PORT must be an integer/);
    assert.match(
      await startError(options({}, () => null)),
      /^cannot start: dist\/browser\/index.html is missing \(the build is incomplete: run npm run build\)$/,
    );
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    assert.match(
      await startError(options({ API_KEYS_FILE: join(open, 'keys.json') })),
      /^configuration error: API_KEYS_FILE .*keys\.json /,
    );
  });

  it('refuses a port in use with the variable to check, and frees what it opened', async () => {
    const first = await startService(options({ API_KEY: 'k'.repeat(20) }));
    try {
      assert.equal(
        await startError(options({ API_KEY: 'k'.repeat(20), PORT: String(first.address.port), HOST: '127.0.0.1' })),
        `cannot listen on 127.0.0.1:${first.address.port} (EADDRINUSE); check PORT and HOST`,
      );
    } finally {
      assert.equal(await first.stop(), true);
    }
  });

  it('sweeps the limiter every RATE_LIMIT_SWEEP_SECONDS: a one-request client tracked, then dropped once full', async () => {
    const key = randomApiKey();
    const service = await startInProcess({ apiKey: key, logLevel: 'debug', env: { RATE_LIMIT_SWEEP_SECONDS: '1' } });
    try {
      const from = service.output().length;
      assert.equal((await post(service.url, key, { mode: 'password' })).status, 200);
      // At 20 a minute its one token is back 3 s later, and a sweep a second then drops it. The
      // default period, 60 s, would log its first sweep only after a minute: past both waits.
      const sweeps = (): { dropped: number; tracked: number }[] =>
        service
          .output()
          .slice(from)
          .split('\n')
          .filter((line) => line.includes('"msg":"rate limiter sweep"'))
          .map((line) => JSON.parse(line));
      await service.waitForOutput(/"msg":"rate limiter sweep"[^\n]*"tracked":1[,}]/, 20_000, from);
      await service.waitForOutput(/"msg":"rate limiter sweep"[^\n]*"tracked":0[,}]/, 20_000, from);
      const seen = sweeps();
      const first = seen.findIndex((line) => line.tracked === 1);
      assert.ok(first >= 0, 'the client is tracked after its request');
      assert.deepEqual(
        seen.slice(first + 1).find((line) => line.tracked === 0),
        seen.slice(first + 1).find((line) => line.dropped === 1),
        'the sweep that leaves no client tracked is the one that dropped it',
      );
    } finally {
      await service.stop();
    }
  });

  it('warns once, with the command that fixes it, when no key is configured', async () => {
    const service = await startInProcess({ logLevel: 'warn' });
    try {
      const warn = JSON.parse(service.output().trim().split('\n')[0]);
      assert.equal(warn.msg, 'no API key configured: POST /generate answers 503 until a key is issued');
      assert.match(warn.issue, /^credential-generator keys issue --holder NAME --file .*absent-keys\.json$/);
    } finally {
      await service.stop();
    }
  });
});
