import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { consentScript, type ConsentRun, withoutFirstPause } from '../../../src/capture/consent-handler.js';
import type { BannerChanges } from '../../../src/capture/banner-changes.js';
import {
  type ConsentLooks,
  MAX_LOOKS_BESIDE,
  RELOOK_INTERVAL_MS,
  RELOOK_QUIET_MS,
  startConsentLooks,
} from '../../../src/capture/consent-looks.js';
import { type InflightSource, watchNetworkActivity } from '../../../src/capture/settle.js';

/**
 * consent-looks.ts: consent detection beside the settle phase. The page is a counter of requests in flight;
 * each look is a fake autoconsent run that answers with what the "page" shows when the look begins.
 */
function fakePage() {
  let inflight = 0;
  const listeners = new Set<() => void>();
  const source: InflightSource = {
    inflight: () => inflight,
    onInflightChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const change = (delta: number) => {
    inflight += delta;
    for (const listener of [...listeners]) listener();
  };
  return { source, request: () => change(1), answer: () => change(-1) };
}

function lookStarter(banner: () => string | null) {
  const started: number[] = [];
  const disposed: number[] = [];
  const start = async (): Promise<ConsentRun> => {
    const n = started.push(performance.now());
    const cmp = banner();
    return {
      waitForBanner: async () => cmp,
      bannerPainted: async () => {},
      optOut: async () => 'opted-out',
      dispose: async () => void disposed.push(n),
    };
  };
  return { start, started, disposed };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Looks at a page whose changes since the latest look are told by `changes`, once its first look has started. */
async function firstLookWith(
  page: ReturnType<typeof fakePage>,
  looks: ReturnType<typeof lookStarter>,
  changes: BannerChanges,
): Promise<ConsentLooks> {
  const watch = startConsentLooks({
    start: looks.start,
    pending: page.source,
    activity: watchNetworkActivity(page.source),
    relook: true,
    changes,
    detectMs: 2000,
    signal: new AbortController().signal,
  });
  await until(() => looks.started.length === 1, 'the first look');
  await tick();
  return watch;
}

describe('consent looks beside the settle phase', () => {
  it('a page that stays quiet after load: one look, and its verdict is taken without another', async () => {
    const page = fakePage();
    const looks = lookStarter(() => null);
    const watch = startConsentLooks({
      start: looks.start,
      pending: page.source,
      activity: watchNetworkActivity(page.source),
      relook: true,
      detectMs: 2000,
      signal: new AbortController().signal,
    });
    await tick();
    const { verdict, detection } = await watch.verdict();
    assert.deepEqual(verdict, { found: false, failed: false });
    assert.equal(detection.looks, 1);
    assert.equal(looks.started.length, 1);
    await watch.dispose();
  });

  it('a banner drawn when a request answered after load is found by a look taken beside the settle phase', async () => {
    const page = fakePage();
    let drawn = false;
    const looks = lookStarter(() => (drawn ? 'Onetrust' : null));
    const activity = watchNetworkActivity(page.source);
    page.request(); // the CMP's configuration, still loading at the load event
    const watch = startConsentLooks({
      start: looks.start,
      pending: page.source,
      activity,
      relook: true,
      detectMs: 2000,
      signal: new AbortController().signal,
    });
    await until(() => looks.started.length === 1, 'the first look');
    await tick();
    page.answer();
    drawn = true;
    // The page is quiet now: the next look comes by itself, before anyone asks for the verdict.
    await until(() => looks.started.length === 2, 'a second look while the page settles');
    const { verdict, detection } = await watch.verdict();
    assert.equal(verdict.found, true);
    assert.equal(verdict.found && verdict.cmp, 'Onetrust');
    assert.equal(detection.looks, 2);
    assert.deepEqual(looks.disposed, [1], 'the look that found nothing was disposed');
    await watch.dispose();
  });

  it('a page active up to the verdict gets one more look then, and no look while requests are in flight', async () => {
    const page = fakePage();
    const looks = lookStarter(() => null);
    const watch = startConsentLooks({
      start: looks.start,
      pending: page.source,
      activity: watchNetworkActivity(page.source),
      relook: true,
      detectMs: 2000,
      signal: new AbortController().signal,
    });
    await tick();
    page.request(); // in flight when the page is declared settled (the settle cap)
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(looks.started.length, 1, 'no look while a request is in flight');
    const { detection } = await watch.verdict();
    assert.equal(detection.looks, 2, 'one look after settling');
    await watch.dispose();
  });

  it('a page that loads in bursts is looked at no more than MAX_LOOKS_BESIDE times before its verdict', async () => {
    const page = fakePage();
    const looks = lookStarter(() => null);
    const watch = startConsentLooks({
      start: looks.start,
      pending: page.source,
      activity: watchNetworkActivity(page.source),
      relook: true,
      detectMs: 2000,
      signal: new AbortController().signal,
    });
    await until(() => looks.started.length === 1, 'the first look');
    await tick();
    while (looks.started.length < MAX_LOOKS_BESIDE) {
      const before = looks.started.length;
      page.request();
      page.answer();
      await until(() => looks.started.length > before, `look ${before + 1}`);
      await tick();
    }
    page.request();
    page.answer();
    await new Promise((resolve) => setTimeout(resolve, RELOOK_INTERVAL_MS + RELOOK_QUIET_MS + 200));
    assert.equal(looks.started.length, MAX_LOOKS_BESIDE, 'no look beyond the bound while the page loads');
    const { detection } = await watch.verdict();
    assert.equal(detection.looks, MAX_LOOKS_BESIDE + 1, 'the page was active since the latest look: one more');
    await watch.dispose();
  });

  it('a page active after its look that changed nothing that could be a banner is not looked at again', async () => {
    const page = fakePage();
    const looks = lookStarter(() => null);
    const asked: string[] = [];
    const watch = await firstLookWith(page, looks, {
      mark: async () => void asked.push('mark'),
      async since() {
        asked.push('since');
        return null;
      },
    });
    page.request(); // the list's API call
    page.answer();
    await until(() => asked.includes('since'), 'the check before a second look');
    const { detection } = await watch.verdict();
    assert.equal(detection.looks, 1, JSON.stringify(detection));
    assert.equal(detection.lookedNotAgain, 1, 'checked once: the page was not active after the check');
    assert.equal(detection.lookedAgainFor, undefined);
    assert.deepEqual(asked, ['mark', 'since']);
    await watch.dispose();
  });

  it('a page that changed something that could be a banner is looked at again, and says what', async () => {
    const page = fakePage();
    let drawn = false;
    const looks = lookStarter(() => (drawn ? 'Onetrust' : null));
    const marks: number[] = [];
    const watch = await firstLookWith(page, looks, {
      mark: async () => void marks.push(looks.started.length),
      since: async () => (drawn ? 'text with consent words' : null),
    });
    page.request();
    drawn = true;
    page.answer();
    const { verdict, detection } = await watch.verdict();
    assert.equal(verdict.found && verdict.cmp, 'Onetrust');
    assert.equal(detection.looks, 2);
    assert.equal(detection.lookedAgainFor, 'text with consent words');
    assert.deepEqual(marks, [0, 1], 'each look marked before it started');
    await watch.dispose();
  });

  it('a page that cannot change by itself is looked at once', async () => {
    const page = fakePage();
    const looks = lookStarter(() => null);
    const activity = watchNetworkActivity(page.source);
    const watch = startConsentLooks({
      start: looks.start,
      pending: page.source,
      activity,
      relook: false,
      detectMs: 2000,
      signal: new AbortController().signal,
    });
    await tick();
    page.request();
    page.answer();
    const { detection } = await watch.verdict();
    assert.equal(detection.looks, 1);
    await watch.dispose();
  });

  it('a look that could not start is a failed detection', async () => {
    const page = fakePage();
    const watch = startConsentLooks({
      start: async () => null,
      pending: page.source,
      activity: watchNetworkActivity(page.source),
      relook: true,
      detectMs: 2000,
      signal: new AbortController().signal,
    });
    const { verdict } = await watch.verdict();
    assert.deepEqual(verdict, { found: false, failed: true });
    await watch.dispose();
  });
});

describe("autoconsent's pause between its first two looks", () => {
  it('is taken out of the installed bundle, and only that one pause', () => {
    const script = consentScript();
    assert.match(script, /this\.domActions\.wait\(this\.state\.findCmpAttempts > 1 \? 500 : 0\)/);
    assert.doesNotMatch(script, /const waitFor2 = \[this\.domActions\.wait\(500\)\];/);
  });

  it('leaves a bundle it does not recognise as it is', () => {
    assert.deepEqual(withoutFirstPause('console.log(1)'), { script: 'console.log(1)', patched: false });
    const twice = 'const waitFor2 = [this.domActions.wait(500)];'.repeat(2);
    assert.equal(withoutFirstPause(twice).patched, false);
  });
});
