/**
 * Consent banners, handled with @duckduckgo/autoconsent (its bundled content script and compact rules),
 * wired the way its Puppeteer guide describes (a message function into Node, `autoconsentReceiveMessage`
 * back) with two differences that matter for evidence:
 *
 * - The content script runs in an isolated world of the main frame, not the page's own world: the page's
 *   scripts cannot see or disturb it, and its globals never end up in the captured page. Only the rules'
 *   eval snippets (CMP APIs such as `window.Cookiebot`) run in the main world, as the library intends.
 * - `autoAction` is null and prehiding is off: the banner stays visible until we have taken the
 *   `screenshotBefore` (spec 2.4), then we send `optOut` ourselves.
 *
 * Heuristic detection runs in 'tier1' mode: a generic banner is answered with its reject button, or, when
 * it only has an acknowledge button, with that ("dismissed"). It never clicks accept.
 *
 * CMPs such as Sourcepoint and TrustArc render their dialog in a cross-origin iframe, often out of process.
 * The content script therefore also runs in each child frame (in that frame's own CDP session when it is
 * out of process), with the rules meant for frames; whichever frame finds a banner is the one told to
 * opt out — the way autoconsent's browser extension routes messages per frame.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { CDPSession, Frame, Page, Protocol } from 'puppeteer-core';
import {
  filterCompactRules,
  type BackgroundMessage,
  type CompactCMPRuleset,
  type Config,
  type ContentScriptMessage,
  type IndexedCMPRuleset,
} from '@duckduckgo/autoconsent';
import { BANNER_CHANGES_WATCH, type BannerChanges, bannerChangesIn } from './banner-changes.js';
import { reportFromEveryDocument } from './document-reports.js';
import { type PageClock, wallClock } from './host-load.js';
import { pageTimer, withTimeout } from './step-timeout.js';

export type ConsentResult = 'opted-out' | 'dismissed' | 'not-found' | 'failed';

/** Recorded as `captureSettings.consent` (spec 2.3). */
export interface ConsentInfo {
  attempted: true;
  /** Name of the autoconsent rule that matched (e.g. "Onetrust"), null when no banner was found. */
  cmp: string | null;
  result: ConsentResult;
  durationMs: number;
}

export interface ConsentRun {
  /** The CMP whose banner is visible, or null if none appeared (in any frame) before the deadline. */
  waitForBanner(timeoutMs: number): Promise<string | null>;
  /**
   * Resolves once the frame that shows the banner has drawn a frame since it was found (two animation
   * frames in that frame's renderer), or after `timeoutMs`: a cross-origin dialog renders in a process of its
   * own, which on a busy host may not have painted it yet when the page is screenshotted.
   */
  bannerPainted(timeoutMs: number): Promise<void>;
  /** Asks autoconsent, in the frame that found it, to opt out of the banner found by waitForBanner. */
  optOut(timeoutMs: number): Promise<ConsentResult>;
  dispose(): Promise<void>;
}

// Each run has its own world and binding: a binding removed and added again under the same name is not
// exposed to new worlds any more (seen in Chromium 14x), which silenced a second look at the same page.
let runs = 0;
/** Child frames searched for a CMP dialog; more are left alone (ad-heavy pages have dozens). */
const MAX_FRAMES = 8;

const AUTOCONSENT_CONFIG: Config = {
  enabled: true,
  autoAction: null,
  disabledCmps: [],
  enablePrehide: false,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  // Two looks: the rules, then the rules and the heuristics (autoconsent runs them on its second attempt only),
  // back to back (withoutFirstPause); on a page without a banner autoconsent reports 'nothingDetected' at once
  // instead of waiting for DOM mutations. A banner drawn later is the caller's to look for again (consent-looks.ts).
  detectRetries: 1,
  isMainWorld: false,
  prehideTimeout: 0,
  enableHeuristicDetection: true,
  enablePopupMutationObserver: false,
  visualTest: false,
  logs: {
    lifecycle: false,
    rulesteps: false,
    detectionsteps: false,
    evals: false,
    errors: false,
    messages: false,
    waits: false,
  },
  performanceLoggingEnabled: false,
  heuristicPopupSearchTimeout: 100,
  heuristicMode: 'tier1',
};

interface Assets {
  script: string;
  /** The compact rules a frame at this URL is sent (autoconsent's filterCompactRules, see rulesFor). */
  rulesFor(url: string, mainFrame: boolean): CompactCMPRuleset;
}

let assets: Assets | undefined;

function loadAssets(): Assets {
  if (!assets) {
    const require = createRequire(import.meta.url);
    const dist = dirname(require.resolve('@duckduckgo/autoconsent'));
    const rules = JSON.parse(
      readFileSync(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8'),
    ) as IndexedCMPRuleset;
    assets = {
      script: withoutFirstPause(readFileSync(join(dist, 'autoconsent.playwright.js'), 'utf8')).script,
      rulesFor: compactRulesFilter(rules),
    };
  }
  return assets;
}

/** autoconsent's pause before each further look (findCmp), as its bundle (16.x) writes it. */
const RETRY_PAUSE = 'const waitFor2 = [this.domActions.wait(500)];';
const RETRY_PAUSE_AFTER_SECOND_LOOK =
  'const waitFor2 = [this.domActions.wait(this.state.findCmpAttempts > 1 ? 500 : 0)];';

/**
 * autoconsent looks for a banner with its rules, pauses 500 ms, and looks again with its rules and its
 * heuristics (which it runs on even attempts only). The pause is for a banner drawn meanwhile; a capture looks
 * again itself whenever the page was active since a look began (consent-looks.ts, beside the settle phase), so
 * here the second look follows the first at once: on a page without a banner the verdict comes with the load
 * event's looks, not 500 ms later, after the settle phase. Later pauses (a third look and on, which also wait
 * for a DOM mutation) are kept. A bundle that does not hold the pause as written (another autoconsent version)
 * is used as it is: `patched: false`, and the verdict comes 500 ms later (a unit test pins the installed one).
 */
export function withoutFirstPause(script: string): { script: string; patched: boolean } {
  const at = script.indexOf(RETRY_PAUSE);
  if (at < 0 || script.indexOf(RETRY_PAUSE, at + 1) >= 0) return { script, patched: false };
  return { script: script.replace(RETRY_PAUSE, RETRY_PAUSE_AFTER_SECOND_LOOK), patched: true };
}

/** The content script the capture injects (autoconsent's, without its first pause), for tests. */
export function consentScript(): string {
  return loadAssets().script;
}

/**
 * autoconsent's filterCompactRules, with the site-specific rules' URL patterns compiled once. The library
 * matches each of ~600 patterns as a string (`url.match(pattern)`, a RegExp made per rule per call), on the
 * service's main thread for every main frame of every capture. Here the specific rules whose
 * pattern does not match the URL are left out first, with the same test on a compiled RegExp, and the
 * library's own filter runs on the rest: the same rules come out.
 */
export function compactRulesFilter(rules: IndexedCMPRuleset): (url: string, mainFrame: boolean) => CompactCMPRuleset {
  const [specificStart, specificEnd] = rules.index.specificRuleRange;
  const specific = rules.r.slice(specificStart, specificEnd).map((rule) => {
    const pattern = rule[3];
    return { rule, pattern: pattern ? new RegExp(pattern) : undefined };
  });
  const head = rules.r.slice(0, specificStart);
  return (url, mainFrame) => {
    // Frames get the frame rules (a range of their own, crossing into the specific ones): few, left as they are.
    if (!mainFrame) return filterCompactRules(rules, { url, mainFrame });
    const matching = specific
      .filter(({ pattern }) => pattern === undefined || pattern.test(url))
      .map(({ rule }) => rule);
    const r = [...head, ...matching];
    return filterCompactRules(
      { ...rules, r, index: { ...rules.index, specificRuleRange: [specificStart, specificStart + matching.length] } },
      { url, mainFrame },
    );
  };
}

/** autoconsent running in one frame's isolated world. */
interface FrameAgent {
  session: CDPSession;
  frameId: string;
  contextId: number;
  mainFrame: boolean;
  /** autoconsent said 'nothingDetected' here (or the frame went away). */
  done: boolean;
  send(message: BackgroundMessage): Promise<void>;
  /** Runs a rule's snippet in the frame's own world (CMP APIs live there). */
  evaluate(code: string): Promise<boolean>;
}

/**
 * autoconsent's content script registered in the main frame before navigation, so that compiling and
 * starting it happens while the page loads instead of after (docs/performance.md). It runs in an isolated
 * world of its own at DOMContentLoaded of each top-level document and sends its 'init'; detection starts
 * only when startConsentRun answers that, at the load event, as before.
 */
export interface ConsentPreload {
  worldName: string;
  bindingName: string;
  /** The newest main-frame document whose content script said 'init' and was not taken yet, with that message. */
  take(): { contextId: number; message: ContentScriptMessage } | undefined;
  /** What the page changed in its newest top-level document since the latest look began (banner-changes.ts). */
  changes: BannerChanges;
  dispose(): Promise<void>;
}

/** The preloaded world's name for its watch of the page's changes (banner-changes.ts). */
const BANNER_CHANGES_GLOBAL = '__captureLedgerBannerChanges';

/** Call before navigating; `session` is the page's own. */
export async function preloadConsent(session: CDPSession): Promise<ConsentPreload> {
  const { script } = loadAssets();
  const run = ++runs;
  const worldName = `capture-ledger-consent-${run}`;
  const bindingName = `__captureLedgerConsent${run}`;
  /** Live contexts of the world that said 'init', newest last. */
  const waiting = new Map<number, ContentScriptMessage>();
  /** The newest document's context of the world that said 'init', taken or not. */
  let newest: number | undefined;
  // Top-level documents only (child frames are injected at load, as before); the script is compiled when
  // the DOM is there, not before the page's own parsing starts.
  const source = `(() => {
  if (window.top !== window) return;
  const start = () => {
    ${BANNER_CHANGES_WATCH}
    window.${BANNER_CHANGES_GLOBAL} = bannerChanges;
    ${sendMessageDefinition(bindingName)}
    ${script}
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();
})();`;
  const reports = await reportFromEveryDocument(session, {
    bindingName,
    worldName,
    source,
    onReport(contextId, payload) {
      let message: ContentScriptMessage;
      try {
        message = JSON.parse(payload) as ContentScriptMessage;
      } catch {
        return;
      }
      if (message.type !== 'init') return;
      waiting.delete(contextId);
      waiting.set(contextId, message);
      newest = contextId;
    },
    onContextGone(contextId) {
      if (contextId === null || contextId === newest) newest = undefined;
      if (contextId === null) waiting.clear();
      else waiting.delete(contextId);
    },
  });
  return {
    worldName,
    bindingName,
    take() {
      const last = [...waiting].at(-1);
      if (!last) return undefined;
      waiting.delete(last[0]);
      return { contextId: last[0], message: last[1] };
    },
    changes: bannerChangesIn(session, () => newest, `window.${BANNER_CHANGES_GLOBAL}`),
    dispose: () => reports.dispose(),
  };
}

/** CDP bindings take one string; autoconsent sends objects and expects a promise back. */
function sendMessageDefinition(bindingName: string): string {
  return `window.autoconsentSendMessage = (m) => { ${bindingName}(JSON.stringify(m)); return Promise.resolve(); };`;
}

/** What one consent run's functions share: its page, its world and binding, the frames it runs in, the verdict. */
interface ConsentRunState {
  readonly page: Page;
  readonly clock: PageClock;
  readonly script: string;
  readonly rulesFor: Assets['rulesFor'];
  /** What the content scripts are told (AUTOCONSENT_CONFIG, or without the heuristic second look). */
  readonly config: Config;
  readonly worldName: string;
  readonly bindingName: string;
  /** The preloaded content script's binding, whose calls are this run's too. */
  readonly preloadBindingName: string | undefined;
  readonly agents: FrameAgent[];
  /** Each session listened on, with its listener (one per session: binding calls arrive on the frame's process). */
  readonly sessions: Map<CDPSession, (event: Protocol.Runtime.BindingCalledEvent) => void>;
  /** undefined: still looking. */
  banner: { cmp: string; agent: FrameAgent } | null | undefined;
  bannerWaiter?: (cmp: string | null) => void;
  /** Messages from the frame being opted out of; 'frameGone' when the page removed that frame. */
  optOutWaiter?: (message: ContentScriptMessage | { type: 'frameGone' }) => void;
}

/**
 * Injects autoconsent into the current document of the main frame and of its child frames, and starts
 * detection in the page. Detection runs while the caller does other work; waitForBanner collects the outcome.
 */
export async function startConsentRun(
  page: Page,
  session: CDPSession,
  /**
   * `clock`: what the waits count (the page clock: a busy host makes detection slower, not blind).
   * `preload`: the main frame's content script, already started by preloadConsent; when its current
   * document has none waiting, it is injected now.
   */
  /**
   * `heuristicLook: false`: autoconsent looks once, with its rules, and not a second time with its heuristics
   * (a page that cannot change by itself, static-document.ts).
   */
  options: { mainFrameId: string; clock?: PageClock; preload?: ConsentPreload | undefined; heuristicLook?: boolean },
): Promise<ConsentRun> {
  const { script, rulesFor } = loadAssets();
  const run = ++runs;
  const s: ConsentRunState = {
    page,
    clock: options.clock ?? wallClock,
    script,
    rulesFor,
    config: options.heuristicLook === false ? { ...AUTOCONSENT_CONFIG, detectRetries: 0 } : AUTOCONSENT_CONFIG,
    worldName: `capture-ledger-consent-${run}`,
    bindingName: `__captureLedgerConsent${run}`,
    preloadBindingName: options.preload?.bindingName,
    agents: [],
    sessions: new Map(),
    banner: undefined,
  };

  const evaluateInMainWorld = async (code: string) => {
    const evaluated = await session
      .send('Runtime.evaluate', { expression: code, returnByValue: true, timeout: 1000 })
      .catch(() => undefined);
    return evaluated && !evaluated.exceptionDetails ? Boolean(evaluated.result.value) : false;
  };
  const preloaded = options.preload?.take();
  if (preloaded) {
    await listen(s, session);
    const agent = addAgent(s, session, options.mainFrameId, preloaded.contextId, true, evaluateInMainWorld);
    void handleMessage(s, agent, preloaded.message).catch(() => {});
  } else {
    await inject(s, session, options.mainFrameId, true, evaluateInMainWorld);
  }

  // Child frames: a frame that cannot be reached (detached meanwhile, not a web page) is simply skipped.
  const children = page
    .frames()
    .filter((frame) => frame !== page.mainFrame() && /^https?:/.test(frame.url()))
    .slice(0, MAX_FRAMES);
  await Promise.all(
    children.map(async (frame) => {
      const reach = frameInternals(frame);
      if (!reach) return;
      const evaluateInFrame = async (code: string) =>
        Boolean(await withTimeout(frame.evaluate(code), 1000, () => new Error('too late')).catch(() => false));
      await inject(s, reach.session, reach.frameId, false, evaluateInFrame).catch(() => {});
    }),
  );
  checkAllDone(s);
  const onFrameDetached = (frame: Frame) => frameDetached(s, frame);
  page.on('framedetached', onFrameDetached);

  return {
    waitForBanner: (timeoutMs) => waitForBanner(s, timeoutMs),
    bannerPainted: (timeoutMs) => bannerPainted(s, timeoutMs),
    optOut: (timeoutMs) => optOut(s, timeoutMs),
    async dispose() {
      page.off('framedetached', onFrameDetached);
      await dispose(s);
    },
  };
}

// ---- the run's messages and frames ---------------------------------------------------------------------------

/** The verdict, once: a banner (and the frame that found it) or none. */
function settleBanner(s: ConsentRunState, found: { cmp: string; agent: FrameAgent } | null): void {
  if (s.banner !== undefined) return;
  s.banner = found;
  s.bannerWaiter?.(found?.cmp ?? null);
}

/** No banner once every frame said it found nothing. */
function checkAllDone(s: ConsentRunState): void {
  if (s.agents.every((a) => a.done)) settleBanner(s, null);
}

/** A message of autoconsent's content script in one frame. */
async function handleMessage(s: ConsentRunState, agent: FrameAgent, message: ContentScriptMessage): Promise<void> {
  switch (message.type) {
    case 'init':
      await agent.send({
        type: 'initResp',
        config: s.config,
        rules: { autoconsent: [], compact: s.rulesFor(message.url, agent.mainFrame) },
      });
      break;
    case 'eval':
      await agent.send({ type: 'evalResp', id: message.id, result: await agent.evaluate(message.code) });
      break;
    case 'popupFound':
      settleBanner(s, { cmp: message.cmp, agent });
      break;
    case 'report':
      if (message.state.lifecycle === 'nothingDetected' && !agent.done) {
        agent.done = true;
        checkAllDone(s);
      }
      break;
    case 'optOutResult':
    case 'autoconsentDone':
      if (s.banner?.agent === agent) s.optOutWaiter?.(message);
      break;
    default:
      break;
  }
}

/** Binding calls arrive on the session of the frame's process; one listener per session. */
async function listen(s: ConsentRunState, target: CDPSession): Promise<void> {
  if (s.sessions.has(target)) return;
  const onBinding = (event: Protocol.Runtime.BindingCalledEvent) => {
    if (event.name !== s.bindingName && event.name !== s.preloadBindingName) return;
    const agent = s.agents.find((a) => a.session === target && a.contextId === event.executionContextId);
    if (!agent) return;
    let message: ContentScriptMessage;
    try {
      message = JSON.parse(event.payload) as ContentScriptMessage;
    } catch {
      return;
    }
    void handleMessage(s, agent, message).catch(() => {});
  };
  s.sessions.set(target, onBinding);
  target.on('Runtime.bindingCalled', onBinding);
  // Bindings and their calls need the Runtime domain on this session; sent together (the session keeps the order).
  await Promise.all([
    target.send('Runtime.enable'),
    target.send('Runtime.addBinding', { name: s.bindingName, executionContextName: s.worldName }),
  ]);
}

/** The run's end of the content script in one frame's world. */
function addAgent(
  s: ConsentRunState,
  target: CDPSession,
  frameId: string,
  executionContextId: number,
  mainFrame: boolean,
  evaluate: FrameAgent['evaluate'],
): FrameAgent {
  const agent: FrameAgent = {
    session: target,
    frameId,
    contextId: executionContextId,
    mainFrame,
    done: false,
    evaluate,
    send: async (message) => {
      await target
        .send('Runtime.evaluate', {
          contextId: executionContextId,
          expression: `window.autoconsentReceiveMessage && window.autoconsentReceiveMessage(${JSON.stringify(message)})`,
        })
        .catch(() => {});
    },
  };
  s.agents.push(agent);
  return agent;
}

/** The content script in a new isolated world of the frame. */
async function inject(
  s: ConsentRunState,
  target: CDPSession,
  frameId: string,
  mainFrame: boolean,
  evaluate: FrameAgent['evaluate'],
): Promise<void> {
  await listen(s, target);
  const { executionContextId } = await target.send('Page.createIsolatedWorld', { frameId, worldName: s.worldName });
  const agent = addAgent(s, target, frameId, executionContextId, mainFrame, evaluate);
  // One evaluation defines the message function and runs the content script.
  const injected = await target.send('Runtime.evaluate', {
    contextId: executionContextId,
    expression: `${sendMessageDefinition(s.bindingName)}\n${s.script}`,
  });
  if (injected.exceptionDetails) {
    agent.done = true;
    throw new Error(
      `autoconsent did not start: ${injected.exceptionDetails.exception?.description ?? injected.exceptionDetails.text}`,
    );
  }
}

/** A child frame the page removed has nothing more to say; if it held the banner, the opt-out hears so. */
function frameDetached(s: ConsentRunState, frame: Frame): void {
  const reach = frameInternals(frame);
  for (const agent of s.agents) {
    if (!agent.mainFrame && agent.frameId === reach?.frameId && !agent.done) {
      agent.done = true;
      if (s.banner?.agent === agent) s.optOutWaiter?.({ type: 'frameGone' });
    }
  }
  checkAllDone(s);
}

// ---- what the caller asks of the run (ConsentRun) ------------------------------------------------------------

function waitForBanner(s: ConsentRunState, timeoutMs: number): Promise<string | null> {
  if (s.banner !== undefined) return Promise.resolve(s.banner?.cmp ?? null);
  return new Promise((resolve) => {
    const cancel = pageTimer(timeoutMs, () => settleBanner(s, null), s.clock);
    s.bannerWaiter = (cmp) => {
      cancel();
      resolve(cmp);
    };
  });
}

async function bannerPainted(s: ConsentRunState, timeoutMs: number): Promise<void> {
  if (!s.banner) return;
  const { agent } = s.banner;
  const painted = agent.session
    .send('Runtime.evaluate', {
      contextId: agent.contextId,
      expression: 'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))',
      awaitPromise: true,
    })
    .then(
      () => {},
      () => {}, // the frame went away: the screenshot shows what there is
    );
  await new Promise<void>((resolve) => {
    const cancel = pageTimer(timeoutMs, resolve, s.clock);
    void painted.then(() => {
      cancel();
      resolve();
    });
  });
}

async function optOut(s: ConsentRunState, timeoutMs: number): Promise<ConsentResult> {
  if (!s.banner) return 'not-found';
  const { cmp, agent } = s.banner;
  const { clock } = s;
  return new Promise<ConsentResult>((resolve) => {
    let succeeded = false;
    let cancelDone = () => {};
    const cancel = pageTimer(timeoutMs, () => finish(succeeded ? 'opted-out' : 'failed'), clock);
    const finish = (result: ConsentResult) => {
      cancel();
      cancelDone();
      s.optOutWaiter = undefined;
      resolve(result);
    };
    s.optOutWaiter = (message) => {
      if (message.type === 'optOutResult') {
        if (!message.result) return finish('failed');
        succeeded = true;
        // 'autoconsentDone' follows for a final (non-intermediate) rule and says if it only hid the banner.
        cancelDone = pageTimer(500, () => finish(isDismissal(cmp, false) ? 'dismissed' : 'opted-out'), clock);
      } else if (message.type === 'autoconsentDone') {
        finish(isDismissal(cmp, message.isCosmetic) ? 'dismissed' : 'opted-out');
      } else if (message.type === 'frameGone') {
        // The page removed the dialog's frame once we had clicked (Sourcepoint does). Without autoconsent's
        // own report from that frame, all that is known is that the banner went away: 'dismissed'.
        finish(succeeded && !isDismissal(cmp, false) ? 'opted-out' : 'dismissed');
      }
    };
    void agent.send({ type: 'optOut' });
  });
}

async function dispose(s: ConsentRunState): Promise<void> {
  s.bannerWaiter = undefined;
  s.optOutWaiter = undefined;
  await Promise.all(
    [...s.sessions].map(async ([target, onBinding]) => {
      target.off('Runtime.bindingCalled', onBinding);
      await target.send('Runtime.removeBinding', { name: s.bindingName }).catch(() => {});
    }),
  );
}

/**
 * The CDP session that owns a frame (the page's own, or the out-of-process frame's) and the frame's id.
 * Puppeteer keeps both on its CDP frame without a public accessor; undefined if that ever changes.
 */
function frameInternals(frame: Frame): { session: CDPSession; frameId: string } | undefined {
  const internals = frame as unknown as { client?: CDPSession; _id?: string };
  return internals.client && typeof internals._id === 'string'
    ? { session: internals.client, frameId: internals._id }
    : undefined;
}

/** A cosmetic rule only hides the banner; the heuristic 'tier1' answer clicks an acknowledge button. */
function isDismissal(cmp: string, isCosmetic: boolean): boolean {
  return isCosmetic || cmp === 'HEURISTIC-TIER1';
}
