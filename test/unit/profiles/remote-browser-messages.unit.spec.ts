import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browsableUrl, mayShow } from '../../../src/profiles/remote-browser/address-bar.js';
import { browserStateOf, profileCookie } from '../../../src/profiles/remote-browser/browser-state-of.js';
import { inputCommand, parseViewerMessage } from '../../../src/profiles/remote-browser/viewer-messages.js';

const viewport = { width: 1280, height: 800 };

describe('the remote browser address bar', () => {
  it('opens http(s) addresses, and a host typed without a scheme as https', () => {
    assert.deepEqual(browsableUrl(' https://example.org/login '), { ok: true, url: 'https://example.org/login' });
    assert.deepEqual(browsableUrl('http://127.0.0.1:8080/x'), { ok: true, url: 'http://127.0.0.1:8080/x' });
    assert.deepEqual(browsableUrl('example.org'), { ok: true, url: 'https://example.org/' });
    assert.deepEqual(browsableUrl('example.org:8443/a'), { ok: true, url: 'https://example.org:8443/a' });
  });

  it('refuses every other scheme, credentials in the address, and what is not an address', () => {
    for (const url of [
      'file:///etc/passwd',
      'FILE:///etc/passwd',
      'chrome://settings',
      'chrome-extension://x/y',
      'devtools://devtools/bundled/inspector.html',
      'javascript:alert(1)',
      'data:text/html,<p>x',
      'about:blank',
      'view-source:https://example.org',
      'ftp://example.org',
    ]) {
      const verdict = browsableUrl(url);
      assert.equal(verdict.ok, false, url);
      assert.match((verdict as { reason: string }).reason, /Only http and https/, url);
    }
    assert.equal(browsableUrl('https://user:pw@example.org/').ok, false);
    assert.equal(browsableUrl('').ok, false);
    assert.equal(browsableUrl(`https://example.org/${'a'.repeat(3000)}`).ok, false);
    assert.equal(browsableUrl('http://[::1').ok, false);
  });

  it('lets a page stay only when it is http(s) or the blank start page', () => {
    assert.equal(mayShow('https://example.org/'), true);
    assert.equal(mayShow('about:blank'), true);
    assert.equal(mayShow('chrome-error://chromewebdata/'), false);
    assert.equal(mayShow('file:///etc/passwd'), false);
  });
});

describe('the stream’s viewer messages', () => {
  it('reads input, keeping points inside the page and deltas bounded', () => {
    assert.deepEqual(
      parseViewerMessage(
        '{"t":"mouse","kind":"down","x":-5,"y":9000,"button":"left","clickCount":2,"modifiers":8}',
        viewport,
      ),
      { t: 'mouse', kind: 'down', x: 0, y: 800, button: 'left', clickCount: 2, modifiers: 8 },
    );
    assert.deepEqual(parseViewerMessage('{"t":"wheel","x":10,"y":10,"deltaY":1e9}', viewport), {
      t: 'wheel',
      x: 10,
      y: 10,
      deltaX: 0,
      deltaY: 2000,
      modifiers: 0,
    });
    assert.deepEqual(
      parseViewerMessage('{"t":"key","kind":"down","key":"a","code":"KeyA","keyCode":65,"text":"a"}', viewport),
      {
        t: 'key',
        kind: 'down',
        key: 'a',
        code: 'KeyA',
        keyCode: 65,
        text: 'a',
        modifiers: 0,
      },
    );
    assert.deepEqual(parseViewerMessage('{"t":"text","text":"pasted"}', viewport), { t: 'text', text: 'pasted' });
    assert.deepEqual(parseViewerMessage('{"t":"back"}', viewport), { t: 'back' });
  });

  it('drops anything else', () => {
    for (const raw of [
      'not json',
      'null',
      '[]',
      '{"t":"eval","source":"1"}',
      '{"t":"mouse","kind":"down"}',
      '{"t":"mouse","kind":"drag","x":1,"y":1}',
      '{"t":"key","kind":"down","key":""}',
      `{"t":"key","kind":"down","key":"${'k'.repeat(40)}"}`,
      '{"t":"key","kind":"down","key":"a","text":"much too long"}',
      `{"t":"text","text":"${'x'.repeat(10_001)}"}`,
      '{"t":"navigate","url":5}',
    ])
      assert.equal(parseViewerMessage(raw, viewport), null, raw);
  });

  it('replays input with the DevTools protocol’s Input domain', () => {
    assert.deepEqual(
      inputCommand({ t: 'key', kind: 'down', key: 'a', code: 'KeyA', keyCode: 65, text: 'a', modifiers: 0 }),
      {
        method: 'Input.dispatchKeyEvent',
        params: {
          type: 'keyDown',
          key: 'a',
          code: 'KeyA',
          windowsVirtualKeyCode: 65,
          nativeVirtualKeyCode: 65,
          modifiers: 0,
          text: 'a',
          unmodifiedText: 'a',
        },
      },
    );
    assert.equal(
      (
        inputCommand({ t: 'key', kind: 'down', key: 'Tab', code: 'Tab', keyCode: 9, modifiers: 0 }).params as {
          type: string;
        }
      ).type,
      'rawKeyDown',
    );
    assert.deepEqual(inputCommand({ t: 'text', text: 'x' }), { method: 'Input.insertText', params: { text: 'x' } });
    assert.deepEqual(
      inputCommand({ t: 'mouse', kind: 'up', x: 1, y: 2, button: 'left', clickCount: 1, modifiers: 0 }).params,
      { type: 'mouseReleased', x: 1, y: 2, button: 'left', clickCount: 1, modifiers: 0 },
    );
  });
});

describe('the state a remote browser saves', () => {
  it('keeps each cookie’s attributes, session cookies as expires -1, and only origins with items', () => {
    const base = { name: 'sid', value: 'v', domain: '.example.org', path: '/', httpOnly: true, secure: true };
    assert.deepEqual(profileCookie({ ...base, expires: -1, session: true, sameSite: 'Strict' }), {
      ...base,
      expires: -1,
      sameSite: 'Strict',
    });
    assert.equal(profileCookie({ ...base, expires: 1_900_000_000, sameSite: 'Default' }).sameSite, 'Lax');
    assert.equal(profileCookie({ ...base, expires: 1_900_000_000 }).expires, 1_900_000_000);
    const state = browserStateOf(
      [{ ...base, expires: 5, httpOnly: undefined }],
      [
        { origin: 'https://example.org', localStorage: [{ name: 'k', value: 'v' }] },
        { origin: 'https://empty.example', localStorage: [] },
      ],
    );
    assert.equal(state.cookies[0]!.httpOnly, false);
    assert.deepEqual(state.origins, [{ origin: 'https://example.org', localStorage: [{ name: 'k', value: 'v' }] }]);
  });
});
