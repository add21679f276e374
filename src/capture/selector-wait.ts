/**
 * The `waitForSelector` step (docs/capturing.md, Capture options): after load and before the settle phase, wait until an element
 * matching the selector exists. Not finding it is not a failure: the capture goes on and is `partial`,
 * with the reason recorded in captureSettings.
 */
import type { Page } from 'puppeteer-core';

export interface SelectorWaitResult {
  found: boolean;
  waitedMs: number;
  /** Why it was not found: time limit or a selector the browser cannot parse. */
  reason?: string;
}

export async function waitForSelectorStep(
  page: Page,
  selector: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<SelectorWaitResult> {
  const start = performance.now();
  const waitedMs = () => Math.round(performance.now() - start);
  try {
    await page.waitForSelector(selector, { timeout: timeoutMs, signal });
    return { found: true, waitedMs: waitedMs() };
  } catch (error) {
    if (signal.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const reason = /not a valid selector|SyntaxError/i.test(message)
      ? `waitForSelector: '${selector}' is not a valid CSS selector`
      : `waitForSelector: no element matched '${selector}' within ${Math.round(timeoutMs / 1000)} s after load`;
    return { found: false, waitedMs: waitedMs(), reason };
  }
}
