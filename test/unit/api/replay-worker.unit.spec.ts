import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RWP_WORKER, replayWorkerScript } from '../../../src/api/replay-worker.js';

/**
 * Our worker script (/replay/sw.js) run against a stand-in for ReplayWeb.page's worker, whose one fetch listener
 * answers every request with the status the test gives it: only the viewer's own fetch of a replayed URL the bundle
 * does not hold (a 404) becomes a 204.
 */
const ORIGIN = 'https://replay.example';
const VIEWER = `${ORIGIN}/replay/?source=https%3A%2F%2Freplay.example%2Fbundles%2Fcap_1.wacz&embed=replayonly`;
const ARCHIVED = `${ORIGIN}/replay/w/id-0123456789ab/20261126081500mp_/https://site.example/`;
const FAVICON = `${ORIGIN}/replay/w/id-0123456789ab/20261126081500mp_/https://site.example/favicon.ico`;

function worker(opts: { registration?: boolean; status: number }) {
  const listeners: Array<(event: unknown) => void> = [];
  const imported: string[] = [];
  const self = {
    registration: opts.registration === false ? undefined : { scope: `${ORIGIN}/replay/` },
    clients: { get: async (id: string) => ({ url: id === 'viewer' ? VIEWER : ARCHIVED }) },
    addEventListener: (type: string, listener: (event: unknown) => void) => {
      if (type === 'fetch') listeners.push(listener);
    },
  };
  const importScripts = (url: string) => {
    imported.push(url);
    // The viewer's worker: one listener that always answers.
    self.addEventListener('fetch', (event) => {
      (event as { respondWith(r: Promise<Response>): void }).respondWith(
        Promise.resolve(new Response(opts.status === 204 ? null : 'body', { status: opts.status })),
      );
    });
  };
  new Function('self', 'importScripts', replayWorkerScript)(self, importScripts);
  const answer = async (url: string, clientId: string, init: { method?: string; destination?: string } = {}) => {
    let answered: Promise<Response> | undefined;
    const event = {
      request: { url, method: init.method ?? 'GET', destination: init.destination ?? '' },
      clientId,
      respondWith(r: Promise<Response>) {
        answered = r;
      },
    };
    for (const listener of listeners) listener(event);
    assert.ok(answered, 'the viewer answered');
    return (await answered).status;
  };
  return { answer, imported, listeners };
}

describe("the replay origin's service worker (ours around ReplayWeb.page's)", () => {
  it("imports the viewer's worker, served next to it", () => {
    assert.deepEqual(worker({ status: 200 }).imported, [`./${RWP_WORKER}`]);
    assert.deepEqual(worker({ registration: false, status: 200 }).imported, [`./${RWP_WORKER}`]);
  });

  it("answers the viewer's own fetch of an icon the bundle does not hold with 204, not 404", async () => {
    const w = worker({ status: 404 });
    assert.equal(await w.answer(FAVICON, 'viewer'), 204);
    // With the bundle's hash in the path, as the viewer names an icon of a WACZ.
    const hashed = `${ORIGIN}/replay/w/id-0123456789ab/:${'ab'.repeat(32)}/20261126081500mp_/https://site.example/favicon.ico`;
    assert.equal(await w.answer(hashed, 'viewer'), 204);
    assert.equal(await w.answer(hashed, 'archived'), 404);
    assert.equal(
      await w.answer(`${ORIGIN}/replay/w/id-0123456789ab/20261126081500/https://site.example/i.png`, 'viewer'),
      204,
    );
  });

  it('passes every other answer as the viewer gave it', async () => {
    // An icon the bundle holds.
    assert.equal(await worker({ status: 200 }).answer(FAVICON, 'viewer'), 200);
    const w = worker({ status: 404 });
    // The archived page's own requests.
    assert.equal(await w.answer(FAVICON, 'archived'), 404);
    assert.equal(await w.answer(FAVICON, ''), 404);
    // Not a plain fetch() GET.
    assert.equal(await w.answer(FAVICON, 'viewer', { destination: 'image' }), 404);
    assert.equal(await w.answer(FAVICON, 'viewer', { method: 'POST' }), 404);
    // The viewer's API and anything outside the replayed URLs.
    assert.equal(await w.answer(`${ORIGIN}/replay/w/api/c/id-0123456789ab?all=1`, 'viewer'), 404);
    assert.equal(await w.answer(`${ORIGIN}/replay/w/api/c/id-0123456789ab/ts/?url=x`, 'viewer'), 404);
    assert.equal(await w.answer(`${ORIGIN}/bundles/cap_1.wacz`, 'viewer'), 404);
    assert.equal(await w.answer(`${ORIGIN}/replay/other`, 'viewer'), 404);
  });

  it('changes nothing in a dedicated worker (no registration, no fetch events)', async () => {
    assert.equal(await worker({ registration: false, status: 404 }).answer(FAVICON, 'viewer'), 404);
  });
});
