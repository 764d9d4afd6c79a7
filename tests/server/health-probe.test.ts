/**
 * `credential-generator health` (lib/server/health-probe.ts) against the service started
 * in-process: null for a 200, one line for anything else.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { probeHealth, probeHost } from '../../lib/server/health-probe.ts';
import { startInProcess } from '../helpers/in-process.ts';

describe('probeHealth', () => {
  it('is null for the running service and names the status, the error or a bad PORT otherwise', async () => {
    const service = await startInProcess({ logLevel: 'silent' });
    try {
      assert.equal(await probeHealth({ host: '127.0.0.1', port: service.port, tls: null }), null);
    } finally {
      await service.stop();
    }
    const teapot = createServer((_req, res) => res.writeHead(418).end());
    await new Promise<void>((resolve) => teapot.listen(0, '127.0.0.1', resolve));
    const { port } = teapot.address() as AddressInfo;
    assert.match((await probeHealth({ host: '127.0.0.1', port, tls: null })) ?? '', /418/);
    await new Promise((resolve) => teapot.close(resolve));
    assert.match((await probeHealth({ host: '127.0.0.1', port, tls: null })) ?? '', /ECONNREFUSED/);
    assert.match((await probeHealth({ host: '127.0.0.1', port: 0, tls: null })) ?? '', /PORT is 0/);
  });

  it('reaches a wildcard listener over loopback', () => {
    assert.equal(probeHost('0.0.0.0'), '127.0.0.1');
    assert.equal(probeHost('::'), '::1');
    assert.equal(probeHost('192.0.2.1'), '192.0.2.1');
  });
});
