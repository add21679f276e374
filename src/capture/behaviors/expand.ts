/**
 * expand: opens what a page keeps behind "show more / more replies / read more" on the same page — clicks each
 * such control once, round after round while clicking brings more of them (a thread whose replies have their
 * own "show more replies"), within a bound on clicks and the behaviors' budget. It never leaves the page: a
 * control that is a link elsewhere is not clicked, and while it runs the page's own cross-document
 * navigations are cancelled (Navigation API `navigate` event). Closed <details> are opened too.
 */
import type { Protocol } from 'puppeteer-core';
import { waitForNetworkQuiet } from '../settle.js';
import type { Behavior, BehaviorContext, BehaviorFindings } from './behavior.js';

/** At most this many clicks per capture, in at most this many rounds. */
export const MAX_EXPAND_CLICKS = 100;
const MAX_ROUNDS = 12;
/** The cap of the wait for quiet (ctx.quietWindowMs) after it. */
const AFTER_CLICKS_QUIET_CAP_MS = 2000;

/**
 * Page-side: the labels of controls that open more of the same page. Anchored, short labels only: "Learn
 * more", "More options" (a consent banner's) or a headline with "more" in it are not such controls.
 */
const LABEL = String.raw`/^(?:(?:show|load|view|see|read|display)\s+(?:\d+\s+)?(?:more|all|previous|older|earlier|hidden|remaining|other)(?:\s+(?:replies|reply|comments?|answers?|posts?|results?|items?|messages?|responses?|reviews?))?(?:\s*\(\d+\))?|(?:\d+\s+)?more\s+(?:replies|reply|comments?|answers?|responses?)|(?:show|view|see|load)\s+(?:\d+\s+)?(?:replies|reply|comments?|answers?|thread|responses?)|(?:read|show|see)\s+(?:the\s+)?(?:full|whole|entire|rest\s+of\s+the)\s+(?:story|post|article|text|thread|review|comment)|continue\s+reading|expand(?:\s+(?:thread|all|replies|comments))?)\s*[.…]*$/i`;

/** Page-side: cancels the page's cross-document navigations while `on`; installed once per world. */
const NAVIGATION_GUARD = `((on) => {
  if (typeof navigation === 'undefined') return false;
  if (!window.__captureLedgerGuard) {
    window.__captureLedgerGuard = { on: false, cancelled: 0 };
    navigation.addEventListener('navigate', (event) => {
      const guard = window.__captureLedgerGuard;
      if (guard.on && event.cancelable && !event.destination.sameDocument) {
        event.preventDefault();
        guard.cancelled++;
      }
    });
  }
  window.__captureLedgerGuard.on = on;
  return window.__captureLedgerGuard.cancelled;
})`;

/**
 * Page-side: one round of clicks under `root` (a selector; the document when empty). Returns how many
 * controls were clicked and <details> opened, and whether the navigation guard is up; each element is
 * clicked once per capture (a WeakSet kept in the isolated world).
 */
export const EXPAND_ROUND = `((rootSelector, maxClicks) => {
  const label = ${LABEL};
  const done = (window.__captureLedgerExpanded ||= new WeakSet());
  const roots = rootSelector ? [...document.querySelectorAll(rootSelector)] : [document];
  const visible = (el) => {
    if (!el.isConnected || el.getClientRects().length === 0) return false;
    const style = getComputedStyle(el);
    return style.visibility !== 'hidden' && style.display !== 'none' && !el.disabled && el.getAttribute('aria-disabled') !== 'true';
  };
  // A link to another page (or another place than this one) is navigation, not "more of this page".
  const leavesPage = (el) => {
    const link = el.closest('a[href]');
    if (!link) return false;
    const href = link.getAttribute('href').trim();
    if (href === '' || href.startsWith('#') || /^javascript:/i.test(href)) return false;
    if (link.target && link.target !== '_self') return true;
    try {
      const to = new URL(link.href);
      return !(to.origin === location.origin && to.pathname === location.pathname && to.search === location.search);
    } catch { return true; }
  };
  const submitsForm = (el) => el.form != null && (el.type === 'submit' || el.type === 'image');
  let guarded = false;
  let clicked = 0;
  let opened = 0;
  for (const root of roots) {
    for (const details of root.querySelectorAll('details:not([open])')) {
      if (done.has(details) || !visible(details)) continue;
      done.add(details);
      details.open = true;
      opened++;
    }
    const controls = root.querySelectorAll('button, [role="button"], a, summary, [aria-expanded="false"], input[type="button"]');
    for (const el of controls) {
      if (clicked >= maxClicks) break;
      if (done.has(el) || el.tagName === 'SUMMARY') continue;
      const text = (el.innerText || el.value || el.getAttribute('aria-label') || '').replace(/\\s+/g, ' ').trim();
      if (text.length === 0 || text.length > 60 || !label.test(text)) continue;
      done.add(el);
      if (!visible(el) || leavesPage(el) || submitsForm(el)) continue;
      // Up before the first click: a handler that sets location.href navigates within click().
      if (!guarded) guarded = ${NAVIGATION_GUARD}(true) !== false;
      el.click();
      clicked++;
    }
  }
  return { clicked, opened, guarded };
})`;

export const expand: Behavior = {
  name: 'expand',
  run: (ctx) => expandControls(ctx, ''),
  found: (did) => Number(did.clicked) > 0 || Number(did.detailsOpened) > 0,
};

/**
 * Rounds of clicks under `rootSelector` (the whole document when empty) until a round finds nothing new,
 * MAX_ROUNDS, MAX_EXPAND_CLICKS or the budget; each round's clicks get a short quiet window to load what
 * they asked for. Also used by site-specific behaviors on their own part of the page.
 */
export async function expandControls(ctx: BehaviorContext, rootSelector: string): Promise<BehaviorFindings> {
  let clicked = 0;
  let opened = 0;
  let rounds = 0;
  // A new document in the main frame (same-document changes such as pushState are not reported here).
  let leftPage = false;
  const onNavigated = (e: Protocol.Page.FrameNavigatedEvent) => {
    if (e.frame.parentId === undefined) leftPage = true;
  };
  let guarded = false;
  ctx.session.on('Page.frameNavigated', onNavigated);
  try {
    while (rounds < MAX_ROUNDS && clicked < MAX_EXPAND_CLICKS && ctx.left() > 0 && !ctx.signal.aborted) {
      const round = await ctx.evaluate<{ clicked: number; opened: number; guarded: boolean }>(
        `${EXPAND_ROUND}(${JSON.stringify(rootSelector)}, ${MAX_EXPAND_CLICKS - clicked})`,
      );
      guarded ||= round.guarded;
      if (round.clicked === 0 && round.opened === 0) break;
      rounds++;
      clicked += round.clicked;
      opened += round.opened;
      await waitForNetworkQuiet(ctx.pending, {
        quietWindowMs: ctx.quietWindowMs,
        capMs: Math.max(ctx.quietWindowMs, Math.min(AFTER_CLICKS_QUIET_CAP_MS, ctx.left())),
        signal: ctx.signal,
      });
    }
  } finally {
    ctx.session.off('Page.frameNavigated', onNavigated);
  }
  const cancelled = guarded ? await ctx.evaluate<number>(`${NAVIGATION_GUARD}(false)`).catch(() => 0) : 0;
  if (leftPage) ctx.notes.push('a "show more" control took the page elsewhere although navigation was blocked');
  if (clicked >= MAX_EXPAND_CLICKS) ctx.notes.push(`expand stopped at its bound of ${MAX_EXPAND_CLICKS} clicks`);
  return { clicked, detailsOpened: opened, rounds, navigationsBlocked: cancelled };
}
