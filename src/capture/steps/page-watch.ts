import { CaptureError } from '../capture-error.js';
import type { Step } from '../capture-steps.js';
import { sameViewport } from '../capture-context.js';
import { type ConsentPreload, preloadConsent } from '../consent-handler.js';
import { recordOutOfProcessFrames } from '../frame-sessions.js';
import { type PendingTimers, watchPendingTimers } from '../pending-timers.js';
import { combinedInflight, type InflightSource, type NetworkActivity, watchNetworkActivity } from '../settle.js';
import type { CaptureGiven } from './capture-given.js';

/** The watchers `prepare` starts in the page before it loads; `release` stops them. */
export interface PageWatch {
  /** What the settle phase waits for: the page's requests and its pending short timers (pending-timers.ts). */
  pending: InflightSource;
  activity?: NetworkActivity;
  timers?: PendingTimers;
  consentPreload?: ConsentPreload;
  stopFollowingFrames?: () => void;
  /** Web sockets the page opened: traffic the recorder does not count in flight. */
  webSockets: number;
}

export const pageWatch = (given: CaptureGiven): PageWatch => ({ pending: given.recorder, webSockets: 0 });

/**
 * Until navigation starts nothing is the page's doing: a slow step here is the service's (DESIGN decision 13).
 * The recorder, the timer watch and autoconsent's preloaded content script start before the page loads.
 */
async function prepare(s: { given: CaptureGiven; watch: PageWatch }): Promise<void> {
  const { page, session, recorder, settings, bounds, internal } = s.given;
  const watch = s.watch;
  page.on('error', () =>
    internal.abort(new CaptureError('page_crashed', 'The page crashed the browser tab while rendering', true)),
  );
  // An alert() left open blocks the page's scripts, its load event and the screenshot.
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => {}));
  session.on('Network.webSocketCreated', () => void watch.webSockets++);
  const viewport = { ...settings.viewport, deviceScaleFactor: settings.deviceScaleFactor };
  if (!sameViewport(viewport, s.given.prepared.viewport)) await bounds.service(page.setViewport(viewport));
  const watching = watchPendingTimers(session, { maxDelayMs: s.given.settleCapMs });
  watching.then((timers) => void (watch.timers = timers)).catch(() => {}); // released by `release` whichever way this goes
  // autoconsent's content script starts while the page loads (consent-handler.ts, preloadConsent).
  const preloading = s.given.options.handleConsent === false ? undefined : preloadConsent(session);
  preloading?.then((preload) => void (watch.consentPreload = preload)).catch(() => {});
  const [, timers] = await bounds.service(Promise.all([recorder.start(), watching, preloading]));
  watch.stopFollowingFrames = recordOutOfProcessFrames(page, recorder);
  watch.pending = combinedInflight(recorder, timers);
  watch.activity = watchNetworkActivity(watch.pending);
}

export const prepareStep: Step<{ given: CaptureGiven; watch: PageWatch }> = { name: 'prepare', run: prepare };
