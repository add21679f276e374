/**
 * The service worker script the replay origin serves at /replay/sw.js: ReplayWeb.page's own worker (npm
 * `replaywebpage` sw.js, served unchanged at /replay/rwp-sw.js and imported here) with one answer of its changed
 *. The viewer's page (/replay/, served by the worker) fetches each icon the archived page names, to
 * show it; when the bundle holds none, the worker answers 404, and Chromium logs that as an error in the replay frame
 * on every replay of a page without a favicon. That 404 — and only that one — becomes a 204 No Content: the viewer
 * shows an icon only on a 200, so it behaves as before.
 *
 * What is changed is decided from the viewer's own answer, never guessed: a response other than 404 (an icon the
 * bundle holds) passes untouched, and so does every request of the archived page itself (its client is a replayed
 * page under /replay/w/, not the viewer's page) and every request that is not a plain `fetch()` GET of a replayed URL.
 *
 * The viewer's worker registers one fetch listener, which always answers (`respondWith`); this script wraps the
 * listeners it registers (addEventListener, before importing it) so their answer passes through the check above.
 * In a dedicated worker (ReplayWeb.page's loader also runs sw.js as a Web Worker) there are no fetch events and no
 * registration: the script then only imports the viewer's worker.
 */

/** Where the viewer's own worker script is served, next to this one under /replay/. */
export const RWP_WORKER = 'rwp-sw.js';

export const replayWorkerScript = `'use strict';
// Capture Ledger: ReplayWeb.page's worker (${RWP_WORKER}, unchanged), whose 404 to the viewer's own fetch of a
// favicon the bundle does not hold becomes a 204 (src/api/replay-worker.ts).
(() => {
  const scope = self.registration ? new URL(self.registration.scope).pathname : null;
  if (!scope) return;
  const viewerPages = new Set([scope, scope + 'index.html']);
  // A replayed URL: <scope>w/<collection>/[:<WACZ hash>/]<timestamp><modifier>/<archived URL> (the worker's API is
  // under <scope>w/api/).
  const replayed = (path) =>
    path.startsWith(scope + 'w/') &&
    /^(?!api\\/)[^/]+\\/(?::[^/]+\\/)?\\d*(?:[a-z]+_)?\\/./.test(path.slice(scope.length + 2));
  const quiet = async (event, answer) => {
    const response = await answer;
    if (!response || response.status !== 404 || !event.clientId) return response;
    const client = await self.clients.get(event.clientId);
    if (!client || !viewerPages.has(new URL(client.url).pathname)) return response;
    return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
  };
  const add = self.addEventListener.bind(self);
  self.addEventListener = (type, listener, options) => {
    if (type !== 'fetch' || !listener) return add(type, listener, options);
    const call = typeof listener === 'function' ? listener : (event) => listener.handleEvent(event);
    return add(type, function (event) {
      const { request } = event;
      if (request.method === 'GET' && request.destination === '' && replayed(new URL(request.url).pathname)) {
        const respondWith = event.respondWith.bind(event);
        event.respondWith = (answer) => respondWith(quiet(event, answer));
      }
      return call.call(this, event);
    }, options);
  };
})();
importScripts('./${RWP_WORKER}');
`;
