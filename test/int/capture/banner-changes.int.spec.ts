import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { BANNER_CHANGES_WATCH } from '../../../src/capture/banner-changes.js';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';

/**
 * banner-changes.ts in real Chromium: after a mark, what the page changes is asked whether it could be a consent
 * banner. The watch runs in the page's own world here (the capture runs it in autoconsent's preloaded world).
 */
const T = { timeout: 60_000 };

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Changes</title>
<style>.card{margin:12px;height:80px} .hidden{display:none}</style></head>
<body><div id="app">Loading…</div><div id="later" class="hidden"><p>We use cookies to improve this site.</p></div></body></html>`;

describe('what the page changed since the latest look (real Chromium)', () => {
  let chromium: LaunchedChromium;
  let page: Page;

  before(async () => {
    chromium = await launchChromium();
    page = await chromium.browser.newPage();
  });
  after(async () => {
    await chromium?.close();
  });

  /** A fresh page, the watch started and marked, then `change` run in the page; what `since()` says. */
  async function since(change: string): Promise<string | null> {
    await page.setContent(PAGE);
    await page.evaluate(`{ ${BANNER_CHANGES_WATCH}\nwindow.watch = bannerChanges; watch.mark(); }`);
    await page.evaluate(`{ ${change} }`);
    return (await page.evaluate('watch.since()')) as string | null;
  }

  it('a list rendered from an API answer could not be a banner', T, async () => {
    const cards = `document.getElementById('app').innerHTML = '<h1>Rendered after load</h1>' +
      Array.from({ length: 30 }, (_, i) => '<div class="card" data-id="' + i + '">Item ' + i + '</div>').join('');`;
    assert.equal(await since(cards), null);
    assert.equal(await since(''), null, 'nothing changed');
  });

  it('what the page changed before the mark does not count', T, async () => {
    await page.setContent(PAGE);
    await page.evaluate(`{ ${BANNER_CHANGES_WATCH}\nwindow.watch = bannerChanges; }`);
    await page.evaluate(`document.body.insertAdjacentHTML('beforeend', '<div>Accept cookies</div>')`);
    await page.evaluate('watch.mark()');
    assert.equal(await page.evaluate('watch.since()'), null);
  });

  it('says why anything that could be or show a banner could be one', T, async () => {
    const add = (html: string) => `document.body.insertAdjacentHTML('beforeend', ${JSON.stringify(html)})`;
    assert.equal(await since(add('<div>We use cookies to improve this site.</div>')), 'text with consent words');
    assert.equal(await since(add('<div>Wir verwenden Cookies</div>')), 'text with consent words');
    assert.equal(await since(add('<div style="position:fixed;bottom:0">Hello</div>')), 'an element positioned fixed');
    assert.equal(
      await since(add('<div class="banner"><div style="position:sticky">Hi</div></div>')),
      'an element positioned sticky',
    );
    assert.equal(await since(add('<div id="cmp-root"></div>')), 'an id or class with consent words');
    assert.equal(await since(add('<iframe src="about:blank"></iframe>')), 'an element that loads or shows a dialog');
    assert.equal(await since(add('<div role="dialog">Hi</div>')), 'an element that loads or shows a dialog');
    assert.equal(
      await since(`document.head.append(document.createElement('script'))`),
      'an element that loads or shows a dialog',
    );
    assert.equal(await since(add('<x-notice>Hi</x-notice>')), 'a custom element or shadow host');
    assert.equal(
      await since(`const host = document.createElement('div'); document.body.append(host);
        host.attachShadow({ mode: 'open' }).innerHTML = '<p>Hi</p>';`),
      'a custom element or shadow host',
    );
    assert.equal(
      await since(`const host = document.createElement('div'); document.body.append(host);
        host.attachShadow({ mode: 'closed' }).innerHTML = '<p>Hi</p>';`),
      'an empty element that takes up room',
      'a closed shadow root is not visible to the watch; its host is',
    );
  });

  it('an element shown by a change of its class or style, or of its text, could be a banner', T, async () => {
    assert.equal(await since(`document.getElementById('later').className = ''`), 'text with consent words');
    assert.equal(
      await since(`document.getElementById('app').firstChild.data = 'Manage consent'`),
      'text with consent words',
    );
  });
});
