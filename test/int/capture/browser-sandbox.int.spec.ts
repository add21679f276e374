import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { BROWSER_UID, launchChromium } from '../../../src/capture/browser-launch.js';

/** The browser renders hostile pages — sandboxed, unprivileged, holding none of the service's secrets. */
describe('Chromium as launched for captures', () => {
  it('runs sandboxed, as an unprivileged user when the service is root, with none of the service environment', async () => {
    process.env['CAPTURE_LEDGER_SECRET_PROBE'] = 'must-not-reach-the-browser';
    const chromium = await launchChromium({});
    try {
      assert.ok(chromium.pid);
      const status = await readFile(`/proc/${chromium.pid}/status`, 'utf8');
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      assert.equal(uid, process.getuid?.() === 0 ? BROWSER_UID : process.getuid?.());
      const cmdline = (await readFile(`/proc/${chromium.pid}/cmdline`, 'utf8')).split('\0');
      assert.ok(!cmdline.includes('--no-sandbox'), 'no --no-sandbox');
      const environ = (await readFile(`/proc/${chromium.pid}/environ`, 'utf8')).split('\0').filter(Boolean);
      assert.ok(!environ.some((v) => v.includes('must-not-reach-the-browser')), environ.join(' '));
      for (const name of ['ADMIN_KEY', 'SIGNING_KEY', 'DATABASE_URL', 'NATS_URL'])
        assert.ok(!environ.some((v) => v.startsWith(`${name}=`)), name);

      const page = await chromium.browser.newPage();
      await page.goto('chrome://sandbox');
      const text = await page.evaluate(() => document.body.innerText);
      assert.match(text, /adequately sandboxed/i, text);
      assert.match(text, /Seccomp-BPF sandbox\s+Yes/);
    } finally {
      delete process.env['CAPTURE_LEDGER_SECRET_PROBE'];
      await chromium.close();
    }
  });

  it("opens no page of its own beside a capture's: the address bar's popups are not preloaded", async () => {
    const chromium = await launchChromium({});
    try {
      const context = await chromium.browser.createBrowserContext();
      const page = await context.newPage();
      await page.goto('data:text/html,<p>a capture</p>');
      // Chromium preloads the popups as the window opens; give it the time it takes on a busy host.
      await new Promise((r) => setTimeout(r, 2000));
      const others = chromium.browser.targets().filter((t) => t.type() !== 'browser' && t.type() !== 'page');
      assert.deepEqual(
        others.map((t) => `${t.type()} ${t.url()}`),
        [],
        'targets besides the pages (chrome://omnibox-popup.top-chrome/ when the popups are preloaded)',
      );
    } finally {
      await chromium.close();
    }
  });
});
