import { type PageWorld, pageWorld } from '../behaviors/page-world.js';
import type { Step } from '../capture-steps.js';
import {
  type DocumentDynamics,
  documentDynamics,
  documentWaitsForScroll,
  STATIC_QUIET_WINDOW_MS,
} from '../static-document.js';
import { type CaptureGiven, STEP_TIMEOUT_MS } from './capture-given.js';
import type { Navigation } from './navigation.js';

/** Whether the loaded page can change by itself (static-document.ts), and the quiet windows that follow from it. */
export interface DocumentQuiet {
  /** The settle phase's quiet window: the option's (500 ms by default), STATIC_QUIET_WINDOW_MS on a static page. */
  quietWindowMs: number;
  /** Absent when the page was not inspected (a partial capture): it then counts as dynamic. */
  dynamics?: DocumentDynamics;
  /** The behaviors' isolated world of the main frame, made once for the inspection and the behaviors. */
  world?: PageWorld;
}

export const documentQuiet = (quietWindowMs: number): DocumentQuiet => ({ quietWindowMs });

/** The quiet window after what a behavior or the consent answer started: shorter on a static page. */
export const afterActionQuietMs = (quiet: Readonly<DocumentQuiet>, dynamicMs: number): number =>
  quiet.dynamics?.static ? Math.min(dynamicMs, STATIC_QUIET_WINDOW_MS) : dynamicMs;

/**
 * Whether the loaded page can still change by itself (static-document.ts). A static page's quiet windows are
 * STATIC_QUIET_WINDOW_MS; a page that cannot be asked counts as dynamic (the full windows).
 */
export const inspectDocumentStep: Step<{
  given: CaptureGiven;
  navigation: Readonly<Navigation>;
  quiet: DocumentQuiet;
}> = {
  name: 'inspect-document',
  when: (s) => !s.navigation.timedOut,
  async run({ given, quiet }) {
    const inspecting = (async (): Promise<DocumentDynamics> => {
      quiet.world = await pageWorld(given.session, given.mainFrameId);
      const dynamics = await documentDynamics(quiet.world, given.page.frames().length - 1);
      if (dynamics.static || given.page.frames().length > 1) return dynamics;
      return { ...dynamics, waitsForScroll: await documentWaitsForScroll(quiet.world) };
    })();
    quiet.dynamics = await given.bounds.page(inspecting, STEP_TIMEOUT_MS).catch((error: unknown): DocumentDynamics => {
      if (given.signal.aborted) throw error;
      return { static: false, because: 'it could not be inspected' };
    });
    if (quiet.dynamics.static) quiet.quietWindowMs = Math.min(quiet.quietWindowMs, STATIC_QUIET_WINDOW_MS);
  },
};
