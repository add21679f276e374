/**
 * A behavior: something a person does on a page so that what they came for loads — scroll, open "show more",
 * play the video — run by the capture after load within the tenant's behaviorTimeout. One
 * module per behavior (this folder); registry.ts lists them in the order they run. A site-specific one says
 * where it applies with `matches`, a page-side expression; the others run on every page and return at once
 * when the page gives them nothing to do: their cost is in proportion to what they find.
 */
import type { CDPSession, Page } from 'puppeteer-core';
import type { BehaviorName } from '../../domain/capture-options.js';
import type { InflightSource } from '../settle.js';

/** How long a behavior waits for nothing to be pending after what it started (shorter on a static page, static-document.ts). */
export const BEHAVIOR_QUIET_WINDOW_MS = 300;

/** What a behavior did, in counts and flags (recorded in captureSettings.behaviors and the provenance). */
export type BehaviorFindings = Record<string, number | boolean>;

export interface BehaviorContext {
  readonly page: Page;
  readonly session: CDPSession;
  readonly mainFrameId: string;
  /** The page's requests and short timers: a behavior waits for what it started to end. */
  readonly pending: InflightSource;
  readonly signal: AbortSignal;
  /** Milliseconds left of the behaviors' budget (0 when spent). */
  left(): number;
  /** Every URL the page requested so far. */
  requestedUrls(): Set<string>;
  /** URLs the page has a whole response for (not only byte ranges of). */
  completeUrls(): Set<string>;
  /** Runs page-side code (plain text, not a serialised function) in the behaviors' isolated world of the main frame. */
  evaluate<T>(expression: string): Promise<T>;
  /** The quiet window to wait for after what the behavior started: BEHAVIOR_QUIET_WINDOW_MS, less on a static page. */
  readonly quietWindowMs: number;
  /**
   * Set on a page on which nothing loads only when scrolled to — a static one, or one whose scripts do not watch
   * scrolling (static-document.ts, pending-timers.ts): scrolling it loads nothing, and this is recorded instead.
   */
  readonly skipScroll?: BehaviorFindings | undefined;
  /** The full-page screenshot is cut at this height: scrolling further only feeds the archive. */
  readonly maxPageHeightPx: number;
  /** Things an operator may want to know. */
  readonly notes: string[];
}

export interface Behavior {
  readonly name: BehaviorName;
  /** A page-side expression that is true where this site-specific behavior applies; absent: every page. */
  readonly matches?: string;
  run(ctx: BehaviorContext): Promise<BehaviorFindings>;
  /**
   * Whether its findings are work the page gave it (something loaded, clicked, played or fetched): recorded as
   * `found` beside its time, so "found nothing, cost N ms" reads in captureSettings.behaviors.
   */
  found(did: BehaviorFindings): boolean;
}
