/**
 * The page the verification page frames from the replay origin (src/api/replay-server.ts): ReplayWeb.page's
 * `<replay-web-page>` showing one capture from its WACZ, served from that same origin. Archived scripts run in
 * the viewer's iframe under /replay/ — on this origin, which holds nothing of the verifier.
 *
 * Before the viewer starts, the page drops every service worker registration of this origin other than the
 * viewer's own (scope /replay/): an archived page can register one under /replay/w/ with options of its choosing,
 * and it would otherwise intercept every later replay in that browser. Then it waits for the viewer's
 * worker to be active, so the viewer's frame is served by it from its first load.
 *
 * Then it has that worker load the bundle, as the viewer's loader would (its `addColl` message, the same collection
 * id and settings), and starts the viewer once it is loaded: the viewer's first request asks the worker whether the
 * collection is there (`…/w/api/c/<id>?all=1`), and a 404 — logged as an error in the replay frame — was how it
 * learnt to load it. If loading fails, the viewer starts anyway, tries again and shows its own error.
 */
import { REPLAY_BASE } from './replay-assets.js';

/** The worker script as ReplayWeb.page's embed registers it (ui.js: `sw.js?serveIndex=1` under replayBase). */
const VIEWER_WORKER = 'sw.js?serveIndex=1';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface ReplayPageInput {
  captureId: string;
  /** The captured URL: the page the viewer opens from the bundle. */
  url: string;
  /** Path of the bundle on the replay origin. */
  waczPath: string;
}

export function replayPage(input: ReplayPageInput, nonce: string): string {
  const viewer = `<replay-web-page source="${esc(input.waczPath)}" url="${esc(input.url)}" replayBase="${REPLAY_BASE}" embed="replayonly"></replay-web-page>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Replay of capture ${esc(input.captureId)}</title>
<style nonce="${nonce}">
  html, body { margin: 0; height: 100%; }
  replay-web-page { display: block; width: 100%; height: 100%; }
</style>
<script nonce="${nonce}" src="/ui.js"></script>
</head>
<body>
<template id="viewer">${viewer}</template>
<script type="module" nonce="${nonce}">
const own = new URL(${JSON.stringify(REPLAY_BASE)}, location.origin).href;
if (navigator.serviceWorker) {
  const registrations = await navigator.serviceWorker.getRegistrations();
  await Promise.all(registrations.filter((r) => r.scope !== own).map((r) => r.unregister()));
  // The viewer's worker is active before its frame loads: ReplayWeb.page reloads the frame only three times, 100 ms
  // apart, for the worker to take control, and on a busy host installing takes longer — the frame then stays on
  // a 404 for good. Same script URL and scope as ui.js registers, so it finds this registration.
  const registration = await navigator.serviceWorker.register(${JSON.stringify(`${REPLAY_BASE}${VIEWER_WORKER}`)}, { scope: own });
  await new Promise((resolve) => {
    const worker = registration.installing ?? registration.waiting;
    if (registration.active || !worker) return resolve();
    worker.addEventListener('statechange', () => worker.state === 'activated' && resolve());
  });
  const active = registration.active;
  if (active && crypto.subtle) {
    // ReplayWeb.page names a collection after its source as the embed resolves it (pageutils.ts sourceToId).
    const source = new URL(${JSON.stringify(input.waczPath)}, document.baseURI).href;
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(source)));
    const coll = 'id-' + Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('').slice(0, 12);
    await new Promise((resolve) => {
      navigator.serviceWorker.addEventListener('message', ({ data }) => {
        if (data?.name === coll && (data.msg_type === 'collAdded' || data.error)) resolve();
      });
      navigator.serviceWorker.startMessages();
      // What the embed's loader sends (loader.ts doLoad), with the settings the embed gives it (appmain.ts).
      active.postMessage({
        msg_type: 'addColl',
        name: coll,
        skipExisting: true,
        file: { sourceUrl: source },
        extraConfig: { baseUrlSourcePrefix: 'https://replayweb.page/', baseUrl: location.href.split('#')[0] },
      });
      setTimeout(resolve, 60000);
    });
  }
}
document.body.appendChild(document.getElementById('viewer').content.cloneNode(true));
</script>
</body>
</html>
`;
}
