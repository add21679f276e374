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
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { CDPSession, Protocol } from 'puppeteer-core';
import {
  filterCompactRules,
  type BackgroundMessage,
  type Config,
  type ContentScriptMessage,
  type IndexedCMPRuleset,
} from '@duckduckgo/autoconsent';

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
  /** The CMP whose banner is visible, or null if none appeared before the deadline. */
  waitForBanner(timeoutMs: number): Promise<string | null>;
  /** Asks autoconsent to opt out of the banner found by waitForBanner. */
  optOut(timeoutMs: number): Promise<ConsentResult>;
  dispose(): Promise<void>;
}

const WORLD_NAME = 'capture-ledger-consent';
const BINDING_NAME = '__captureLedgerConsent';

const AUTOCONSENT_CONFIG: Config = {
  enabled: true,
  autoAction: null,
  disabledCmps: [],
  enablePrehide: false,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  // One retry after 500 ms (the second attempt also runs the heuristics): on a page without a banner
  // autoconsent reports 'nothingDetected' in well under a second instead of waiting for DOM mutations.
  detectRetries: 1,
  isMainWorld: false,
  prehideTimeout: 0,
  enableHeuristicDetection: true,
  enablePopupMutationObserver: false,
  visualTest: false,
  logs: { lifecycle: false, rulesteps: false, detectionsteps: false, evals: false, errors: false, messages: false, waits: false },
  performanceLoggingEnabled: false,
  heuristicPopupSearchTimeout: 100,
  heuristicMode: 'tier1',
};

let assets: { script: string; rules: IndexedCMPRuleset } | undefined;

function loadAssets(): { script: string; rules: IndexedCMPRuleset } {
  if (!assets) {
    const require = createRequire(import.meta.url);
    const dist = dirname(require.resolve('@duckduckgo/autoconsent'));
    assets = {
      script: readFileSync(join(dist, 'autoconsent.playwright.js'), 'utf8'),
      rules: JSON.parse(readFileSync(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8')) as IndexedCMPRuleset,
    };
  }
  return assets;
}

/**
 * Injects autoconsent into the current document of the main frame and starts detection in the page.
 * Detection runs while the caller does other work (scrolling); waitForBanner collects the outcome.
 */
export async function startConsentRun(session: CDPSession, options: { mainFrameId: string; url: string }): Promise<ConsentRun> {
  const { script, rules } = loadAssets();
  let contextId: number | undefined;
  let banner: string | null | undefined; // undefined: still looking
  let bannerWaiter: ((cmp: string | null) => void) | undefined;
  let optOutWaiter: ((message: ContentScriptMessage) => void) | undefined;

  const send = async (message: BackgroundMessage) => {
    if (contextId === undefined) return;
    await session
      .send('Runtime.evaluate', {
        contextId,
        expression: `window.autoconsentReceiveMessage && window.autoconsentReceiveMessage(${JSON.stringify(message)})`,
      })
      .catch(() => {});
  };
  const foundBanner = (cmp: string | null) => {
    if (banner !== undefined) return;
    banner = cmp;
    bannerWaiter?.(cmp);
  };

  const handle = async (message: ContentScriptMessage) => {
    switch (message.type) {
      case 'init':
        await send({
          type: 'initResp',
          config: AUTOCONSENT_CONFIG,
          rules: { autoconsent: [], compact: filterCompactRules(rules, { url: options.url, mainFrame: true }) },
        });
        break;
      case 'eval': {
        // Rule snippets that need the page's own globals run in the main world (no contextId).
        const evaluated = await session
          .send('Runtime.evaluate', { expression: message.code, returnByValue: true, timeout: 1000 })
          .catch(() => undefined);
        const result = evaluated && !evaluated.exceptionDetails ? Boolean(evaluated.result.value) : false;
        await send({ type: 'evalResp', id: message.id, result });
        break;
      }
      case 'popupFound':
        foundBanner(message.cmp);
        break;
      case 'report':
        if (message.mainFrame && message.state.lifecycle === 'nothingDetected') foundBanner(null);
        break;
      case 'optOutResult':
      case 'autoconsentDone':
        optOutWaiter?.(message);
        break;
      default:
        break;
    }
  };

  const onBinding = (event: Protocol.Runtime.BindingCalledEvent) => {
    if (event.name !== BINDING_NAME || event.executionContextId !== contextId) return;
    let message: ContentScriptMessage;
    try {
      message = JSON.parse(event.payload) as ContentScriptMessage;
    } catch {
      return;
    }
    void handle(message).catch(() => {});
  };

  session.on('Runtime.bindingCalled', onBinding);
  await session.send('Runtime.enable'); // bindings and their calls need the Runtime domain on this session
  await session.send('Runtime.addBinding', { name: BINDING_NAME, executionContextName: WORLD_NAME });
  ({ executionContextId: contextId } = await session.send('Page.createIsolatedWorld', {
    frameId: options.mainFrameId,
    worldName: WORLD_NAME,
  }));
  // CDP bindings take one string; autoconsent sends objects and expects a promise back.
  await session.send('Runtime.evaluate', {
    contextId,
    expression: `window.autoconsentSendMessage = (m) => { ${BINDING_NAME}(JSON.stringify(m)); return Promise.resolve(); };`,
  });
  const injected = await session.send('Runtime.evaluate', { contextId, expression: script });
  if (injected.exceptionDetails) throw new Error(`autoconsent did not start: ${injected.exceptionDetails.exception?.description ?? injected.exceptionDetails.text}`);

  return {
    waitForBanner(timeoutMs) {
      if (banner !== undefined) return Promise.resolve(banner);
      return new Promise((resolve) => {
        const timer = setTimeout(() => foundBanner(null), timeoutMs);
        bannerWaiter = (cmp) => {
          clearTimeout(timer);
          resolve(cmp);
        };
      });
    },
    async optOut(timeoutMs) {
      if (!banner) return 'not-found';
      const cmp = banner;
      const outcome = await new Promise<ConsentResult>((resolve) => {
        let succeeded = false;
        let doneTimer: NodeJS.Timeout | undefined;
        const timer = setTimeout(() => finish(succeeded ? 'opted-out' : 'failed'), timeoutMs);
        const finish = (result: ConsentResult) => {
          clearTimeout(timer);
          clearTimeout(doneTimer);
          optOutWaiter = undefined;
          resolve(result);
        };
        optOutWaiter = (message) => {
          if (message.type === 'optOutResult') {
            if (!message.result) return finish('failed');
            succeeded = true;
            // 'autoconsentDone' follows for a final (non-intermediate) rule and says if it only hid the banner.
            doneTimer = setTimeout(() => finish(isDismissal(cmp, false) ? 'dismissed' : 'opted-out'), 500);
          } else if (message.type === 'autoconsentDone') {
            finish(isDismissal(cmp, message.isCosmetic) ? 'dismissed' : 'opted-out');
          }
        };
        void send({ type: 'optOut' });
      });
      return outcome;
    },
    async dispose() {
      session.off('Runtime.bindingCalled', onBinding);
      bannerWaiter = undefined;
      optOutWaiter = undefined;
      await session.send('Runtime.removeBinding', { name: BINDING_NAME }).catch(() => {});
    },
  };
}

/** A cosmetic rule only hides the banner; the heuristic 'tier1' answer clicks an acknowledge button. */
function isDismissal(cmp: string, isCosmetic: boolean): boolean {
  return isCosmetic || cmp === 'HEURISTIC-TIER1';
}
