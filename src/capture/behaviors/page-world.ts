/**
 * The isolated world behaviors run their page-side code in: the page's DOM, but not its globals, so a page's
 * own scripts cannot replace scrollTo, click or setTimeout under a behavior, nor see what it marked.
 */
import type { CDPSession } from 'puppeteer-core';

export const BEHAVIOR_WORLD = 'capture-ledger-behaviors';

/** Evaluates page-side code in one isolated world: awaits promises and returns values by value. */
export type PageWorld = <T>(expression: string) => Promise<T>;

/** A world in `frameId`. */
export async function pageWorld(session: CDPSession, frameId: string): Promise<PageWorld> {
  const { executionContextId } = await session.send('Page.createIsolatedWorld', {
    frameId,
    worldName: BEHAVIOR_WORLD,
  });
  return async <T>(expression: string): Promise<T> => {
    const { result, exceptionDetails } = await session.send('Runtime.evaluate', {
      contextId: executionContextId,
      expression,
      awaitPromise: true,
      returnByValue: true,
    });
    if (exceptionDetails)
      throw new Error(
        `page-side behavior code failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`,
      );
    return result.value as T;
  };
}
