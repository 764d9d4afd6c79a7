/**
 * The home page offers the serving instance's named policies (issue 30), in real headless
 * Chromium under the real CSP: ServiceAPI reads them from the page as the server served it
 * (describe() equal to GET /generate, `{mode, policy}` accepted with metadata.policy, the 400s
 * of the API), and the page's list box makes the request `{mode, policy}`, sets the mode, and
 * hides the options while a policy is chosen; a server without policies shows no list box.
 * Without chromium the suite is skipped loudly; with CI=true it fails instead.
 */
import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS as ARGS, describeInChromium } from '../helpers/chromium.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

const POLICIES = {
  policies: {
    'db-root': {
      mode: 'password',
      options: { length: 32, includeSymbols: true },
      description: 'Database <root> & "admin"',
    },
    'wifi-guest': { mode: 'passphrase', options: { wordCount: 6, separator: 'space' } },
  },
};

describeInChromium('named policies on the home page', 'tests/browser/policies.integration.ts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-policies-page-'));
  const file = join(dir, 'policies.json');
  writeFileSync(file, JSON.stringify(POLICIES), { mode: 0o600 });
  let server: RunningServer;
  let plain: RunningServer;
  let browser: Browser;

  before(async () => {
    [server, plain] = await Promise.all([
      startServer({ logLevel: 'error', env: { POLICIES_FILE: file } }),
      startServer({ logLevel: 'error' }),
    ]);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  after(async () => {
    await browser?.close();
    await Promise.all([server?.stop(), plain?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('offers them, generates with them in the page, and sends only the name', async () => {
    const context = await browser.newContext();
    const problems: string[] = [];
    await context.addInitScript(() => {
      (window as unknown as { violations: string[] }).violations = [];
      document.addEventListener('securitypolicyviolation', (e) => {
        (window as unknown as { violations: string[] }).violations.push(e.effectiveDirective);
      });
    });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${server.url}/`, { waitUntil: 'networkidle' });
    await page.waitForSelector('html.ready', { timeout: 30_000 });

    const described = await page.evaluate(() => window.ServiceAPI!.describe());
    assert.deepEqual(described, (await (await fetch(`${server.url}/generate`)).json()) as unknown);
    const made = (await page.evaluate(() =>
      window.ServiceAPI!.generate({ mode: 'passphrase', policy: 'wifi-guest' }),
    )) as {
      ok: boolean;
      data: { value: string; metadata: { policy: string; wordCount: number } };
    };
    assert.equal(made.ok, true);
    assert.equal(made.data.metadata.policy, 'wifi-guest');
    assert.equal(made.data.value.split(' ').length, 6);
    assert.deepEqual(
      await page.evaluate(() => window.ServiceAPI!.generate({ mode: 'password', policy: 'wifi-guest' })),
      {
        ok: false,
        error: { error: 'mode: that policy is of mode passphrase', status: 400, field: 'mode' },
      },
    );

    const options = await page.locator('#policy option').allTextContents();
    assert.equal(options.length, 3);
    assert.match(options[1], /^db-root \(password, \d+\.\d\d bits\)$/);
    await page.selectOption('#policy', 'db-root');
    await page.waitForFunction(() => document.getElementById('curl-example')!.textContent.includes('db-root'));
    // The description beside the list box (issue 41), as text: never read as markup.
    assert.equal(await page.textContent('#policy-rule strong'), 'Database <root> & "admin"');
    assert.equal(await page.locator('#policy-rule *').count(), 2);
    assert.match((await page.textContent('#curl-example'))!, /'\{"mode":"password","policy":"db-root"\}'$/);
    assert.equal(await page.isChecked('input[name="mode"][value="password"]'), true);
    assert.equal(await page.isHidden('#mode-options'), true);
    const shown = (await page.locator('#results li').first().textContent()) ?? '';
    assert.ok(shown.length >= 32, 'a 32-character password is shown');

    await page.selectOption('#policy', 'wifi-guest');
    await page.waitForFunction(() => document.getElementById('curl-example')!.textContent.includes('wifi-guest'));
    assert.equal(await page.isChecked('input[name="mode"][value="passphrase"]'), true);
    // Choosing another mode by hand leaves the policy; the options come back.
    await page.locator('label[for="mode-password"]').click();
    assert.equal(await page.inputValue('#policy'), '');
    assert.equal(await page.isVisible('#mode-options'), true);
    assert.match((await page.textContent('#curl-example'))!, /'\{"mode":"password"\}'$/);

    assert.deepEqual(problems, []);
    assert.deepEqual(await page.evaluate(() => (window as unknown as { violations: string[] }).violations), []);
    await context.close();
  });

  it('shows no list box where the server has no policies', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${plain.url}/`, { waitUntil: 'networkidle' });
    await page.waitForSelector('html.ready', { timeout: 30_000 });
    assert.equal(await page.locator('#policy').count(), 0);
    assert.deepEqual(
      ((await page.evaluate(() => window.ServiceAPI!.describe())) as { policies: unknown[] }).policies,
      [],
    );
    await context.close();
  });
});
