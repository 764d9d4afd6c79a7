/**
 * The shared render of the metrics listener (lib/server/metrics-listener.ts, security review
 * T3): requests that arrive while a render is under way share it; the next one renders anew.
 * The listener under a flood of unread requests is tests/server/metrics-listener.integration.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sharedRender } from '../../lib/server/metrics-listener.ts';

describe('T3: one render for the requests of one moment', () => {
  it('T3: calls while a render is under way share it, and a call after it renders again', async () => {
    let renders = 0;
    const render = sharedRender(async () => {
      renders++;
      await new Promise((resolve) => setImmediate(resolve));
      return `render ${renders}`;
    });
    const texts = await Promise.all(Array.from({ length: 100 }, () => render()));
    assert.equal(renders, 1);
    assert.deepEqual(new Set(texts), new Set(['render 1']));
    assert.equal(await render(), 'render 2');
    assert.equal(renders, 2);
  });
});
