/**
 * Runs a capture's behaviors one after another within one budget (options.behaviorTimeout): each gets what
 * the ones before it left, and one that is still busy when the budget is spent is left behind — the page is
 * captured as it is then, with a note. What ran, for how long and what each did is the report recorded in
 * captureSettings.behaviors (and so in the provenance record and the signed bundle).
 */
import type { CDPSession, Page } from 'puppeteer-core';
import type { BehaviorName } from '../../domain/capture-options.js';
import { CaptureError } from '../capture-error.js';
import type { InflightSource } from '../settle.js';
import { withTimeout } from '../step-timeout.js';
import type { BehaviorContext, BehaviorFindings } from './behavior.js';
import { type PageWorld, pageWorld } from './page-world.js';
import { behaviorsFor } from './registry.js';

export interface BehaviorRun {
  name: BehaviorName;
  ms: number;
  did: BehaviorFindings;
  /** Whether the page gave it work (Behavior.found): `found: false` with its `ms` is what a page with nothing for it cost. */
  found: boolean;
  /** Still busy when the budget was spent (or not started: nothing was left). */
  outOfBudget?: true;
  /** Why it stopped early, when it failed (the capture goes on). */
  failed?: string;
}

export interface BehaviorsReport {
  /** What the capture asked for (options.behaviors or the default). */
  requested: BehaviorName[];
  budgetMs: number;
  /** From the first behavior's start to the last one's end. */
  ms: number;
  ran: BehaviorRun[];
  /** Site-specific behaviors asked for whose match rule did not hold on this page. */
  notMatched: BehaviorName[];
  outOfBudget: boolean;
}

export interface BehaviorsInput {
  page: Page;
  session: CDPSession;
  mainFrameId: string;
  pending: InflightSource;
  signal: AbortSignal;
  names: readonly BehaviorName[];
  budgetMs: number;
  requestedUrls(): Set<string>;
  completeUrls(): Set<string>;
  maxPageHeightPx: number;
  /** See BehaviorContext.quietWindowMs and skipScroll. */
  quietWindowMs: number;
  skipScroll?: BehaviorFindings | undefined;
  /** The main frame's behaviors world when the capture already made it; else it is made here. */
  world?: PageWorld | undefined;
  notes: string[];
}

/** A behavior's page-side code gets this long past the budget to return before it is left behind. */
const GRACE_MS = 1500;

export async function runBehaviors(input: BehaviorsInput): Promise<BehaviorsReport> {
  const started = performance.now();
  const chosen = behaviorsFor(input.names);
  const report: BehaviorsReport = {
    requested: [...input.names],
    budgetMs: input.budgetMs,
    ms: 0,
    ran: [],
    notMatched: [],
    outOfBudget: false,
  };
  if (chosen.length === 0) return report;
  const evaluate = input.world ?? (await pageWorld(input.session, input.mainFrameId));
  const left = () => Math.max(0, input.budgetMs - (performance.now() - started));
  const ctx: BehaviorContext = {
    page: input.page,
    session: input.session,
    mainFrameId: input.mainFrameId,
    pending: input.pending,
    signal: input.signal,
    left,
    requestedUrls: input.requestedUrls,
    completeUrls: input.completeUrls,
    evaluate,
    maxPageHeightPx: input.maxPageHeightPx,
    quietWindowMs: input.quietWindowMs,
    skipScroll: input.skipScroll,
    notes: input.notes,
  };
  // Site-specific behaviors' rules, asked in one evaluation.
  const ruled = chosen.filter((b) => b.matches !== undefined);
  const matched =
    ruled.length === 0
      ? []
      : await evaluate<boolean[]>(
          `[${ruled.map((b) => `(() => { try { return Boolean(${b.matches}); } catch { return false; } })()`).join(', ')}]`,
        );
  const skipped = new Set(ruled.filter((_, i) => !matched[i]).map((b) => b.name));
  report.notMatched = [...skipped];

  for (const behavior of chosen) {
    if (skipped.has(behavior.name)) continue;
    const start = performance.now();
    const run: BehaviorRun = { name: behavior.name, ms: 0, did: {}, found: false };
    report.ran.push(run);
    if (left() <= 0) {
      run.outOfBudget = true;
      report.outOfBudget = true;
      continue;
    }
    try {
      run.did = await withTimeout(
        behavior.run(ctx),
        left() + GRACE_MS,
        () => new CaptureError('timeout', `behavior ${behavior.name} overran the behaviors' budget`, true),
        input.signal,
      );
      if (left() <= 0) {
        run.outOfBudget = true;
        report.outOfBudget = true;
      }
    } catch (error) {
      if (input.signal.aborted) throw error;
      if (left() <= 0) {
        run.outOfBudget = true;
        report.outOfBudget = true;
      } else {
        run.failed = error instanceof Error ? error.message : String(error);
        input.notes.push(`behavior ${behavior.name} failed: ${run.failed}`);
      }
    }
    run.found = behavior.found(run.did);
    run.ms = Math.round(performance.now() - start);
  }
  report.ms = Math.round(performance.now() - started);
  if (report.outOfBudget) {
    const cut = report.ran.filter((r) => r.outOfBudget).map((r) => r.name);
    input.notes.push(
      `behaviors' ${Math.round(input.budgetMs / 1000)} s budget ran out (${cut.join(', ')}): the page was captured as it was then`,
    );
  }
  return report;
}
