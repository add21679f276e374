import type { CDPSession } from 'puppeteer-core';

const PROFILE_WORLD = 'capture-profile';
import type { BrowserState } from './browser-state.js';

/**
 * Loads a profile into a capture's fresh browser context before navigation (docs/profiles.md, In a capture):
 *   - the cookies, with their attributes, through CDP `Network.setCookies` on the page's session (the context's
 *     own cookie jar, which no other capture shares and which is closed with it);
 *   - each origin's localStorage through a script evaluated in every new document before the page's own scripts
 *     (`Page.addScriptToEvaluateOnNewDocument`) in an isolated world of its own, so the page's scripts never see
 *     it; it writes only in a document of that origin and only the items the page has not set itself. Navigating
 *     to each origin first would fetch it, and those exchanges would be recorded; this makes no request, so
 *     nothing of it reaches the recorded exchanges or the WACZ.
 */
export async function loadProfileIntoPage(session: CDPSession, state: BrowserState): Promise<void> {
  const cookies = state.cookies.map((c) => ({
    name: c.name,
    value: c.value,
    // A domain cookie (leading dot) by its domain; a host-only one by a URL of its host, so it stays host-only.
    ...(c.domain.startsWith('.')
      ? { domain: c.domain }
      : { url: `${c.secure ? 'https' : 'http'}://${c.domain}${c.path}` }),
    path: c.path,
    secure: c.secure,
    httpOnly: c.httpOnly,
    sameSite: c.sameSite,
    ...(c.expires > 0 ? { expires: c.expires } : {}),
  }));
  const loading: Array<Promise<unknown>> = [];
  if (cookies.length > 0) loading.push(session.send('Network.setCookies', { cookies }));
  if (state.origins.length > 0) {
    const source = `(${storageSeed.toString()})(${JSON.stringify(JSON.stringify(state.origins))});`;
    loading.push(session.send('Page.addScriptToEvaluateOnNewDocument', { source, worldName: PROFILE_WORLD }));
  }
  await Promise.all(loading);
}

/** Runs in the page, before its scripts: the items of this document's origin that are not set yet. */
function storageSeed(originsJson: string): void {
  try {
    const origins = JSON.parse(originsJson) as BrowserState['origins'];
    const mine = origins.find((o) => o.origin === location.origin);
    if (!mine) return;
    for (const item of mine.localStorage) {
      if (localStorage.getItem(item.name) === null) localStorage.setItem(item.name, item.value);
    }
  } catch {
    // An opaque origin (sandboxed frame) or storage switched off: the page sees what it would without the profile.
  }
}
