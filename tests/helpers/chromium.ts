/**
 * Debian's Chromium for the page tests, and the flags it runs with: headless, and with nothing
 * of its own going to the network (this machine has none, and a refused connection of
 * Chromium's would show among the page's own).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

/** CHROMIUM_PATH only exists so the skip path can be exercised; Debian's is the default. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * `describe(name, body)` when Chromium is installed. Without it the suite is one test that skips
 * loudly, or fails with CI=true: in CI the browser tests must run.
 */
export function describeInChromium(name: string, file: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body);
    return;
  }
  describe(name, () => {
    it('needs chromium', (t) => {
      const why = `chromium not installed: ${CHROMIUM} is missing (apt-get install chromium; .ci/run does it)`;
      if (process.env.CI === 'true') assert.fail(`${why}. In CI the browser tests must run, not skip.`);
      process.stderr.write(`\n!!! WARNING: ${file} SKIPPED: ${why}. The page was NOT tested in a browser. !!!\n\n`);
      t.skip(why);
    });
  });
}
