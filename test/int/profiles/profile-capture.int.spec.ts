import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';
import { CaptureError } from '../../../src/capture/capture-error.js';
import { capturePage } from '../../../src/capture/page-capture.js';
import type { BrowserState } from '../../../src/profiles/browser-state.js';
import { MEMBERS_ONLY_TEXT, SIGN_IN_WALL_TEXT, type SignInSite, startSignInSite } from '../../support/sign-in-site.js';

/**
 * The capture's load-profile step (steps/profile.ts, profile-step.ts) on a real Chromium: a profile given as a
 * promise — the worker opens it while the context is prepared — is loaded before navigation, its time is in
 * render.stages.profileMs; a profile that cannot be opened fails the capture before the page is requested.
 */
describe('a capture with a browser profile (real Chromium)', () => {
  let site: SignInSite;
  let chromium: LaunchedChromium;
  const T = { timeout: 120_000 };

  before(async () => {
    site = await startSignInSite();
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await site?.close();
  });

  const state = (): BrowserState => ({
    cookies: [
      {
        name: 'member_session',
        value: site.sessionValue,
        domain: '127.0.0.1',
        path: '/',
        expires: -1,
        httpOnly: true,
        secure: false,
        sameSite: 'Lax',
      },
    ],
    origins: [{ origin: site.origin, localStorage: [{ name: 'member_theme', value: site.storageValue }] }],
  });

  it('loads the cookies and localStorage opened meanwhile before navigation, and times the step', T, async () => {
    let open: (opened: { state: BrowserState }) => void = () => {};
    const opening = new Promise<{ state: BrowserState }>((resolve) => (open = resolve));
    // The profile is still being opened when the capture starts; the step waits for it.
    setTimeout(() => open({ state: state() }), 200);
    const signed = await capturePage(chromium.browser, site.url('/members'), { timeoutMs: 60_000, profile: opening });
    assert.ok(signed.html.includes(MEMBERS_ONLY_TEXT), signed.html);
    assert.match(signed.html, /data-theme="restored"/, 'the localStorage item was there before the page ran');
    assert.equal(typeof signed.render.stages.profileMs, 'number');

    const wall = await capturePage(chromium.browser, site.url('/members'), { timeoutMs: 60_000 });
    assert.ok(wall.html.includes(SIGN_IN_WALL_TEXT), wall.html);
    assert.equal(wall.render.stages.profileMs, undefined);
  });

  it('fails with the opening error, before the page is requested, when the profile cannot be opened', T, async () => {
    const before = site.requests.length;
    const gone = Promise.reject(new CaptureError('profile_unavailable', 'The browser profile was deleted', false));
    await assert.rejects(
      capturePage(chromium.browser, site.url('/members'), { timeoutMs: 60_000, profile: gone }),
      (error: unknown) => error instanceof CaptureError && error.code === 'profile_unavailable' && !error.retryable,
    );
    assert.deepEqual(site.requests.slice(before), []);
  });
});
