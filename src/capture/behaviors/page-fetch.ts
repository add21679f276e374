/**
 * Fetches URLs from inside the page, so that the browser asks for them as the page would (its cookies, its
 * referrer, through the capture's egress proxy) and the network recorder archives the answers like any other.
 * A few at a time, each body read to its end, all within the behaviors' budget.
 */
import type { Frame } from 'puppeteer-core';
import type { BehaviorContext } from './behavior.js';

const PARALLEL = 6;

// Page-side. mode no-cors: another site's resource is fetched (and recorded) whatever its CORS headers; its
// body is still read by the browser to the end, though the page cannot see it. With `asText` the page reads
// same-origin or CORS-allowed bodies (playlists) and hands them back.
const FETCH_ALL = `(async (urls, parallel, budgetMs, asText) => {
  const deadline = performance.now() + budgetMs;
  const out = urls.map(() => null);
  let next = 0;
  let fetched = 0;
  let failed = 0;
  const one = async (i) => {
    const left = deadline - performance.now();
    if (left <= 0) return;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), left);
    try {
      const response = await fetch(urls[i], asText
        ? { credentials: 'include', signal: abort.signal }
        : { mode: 'no-cors', credentials: 'include', signal: abort.signal });
      if (asText) out[i] = await response.text();
      else await response.arrayBuffer();
      fetched++;
    } catch {
      failed++;
    } finally {
      clearTimeout(timer);
    }
  };
  const worker = async () => { while (next < urls.length && performance.now() < deadline) await one(next++); };
  await Promise.all(Array.from({ length: Math.min(parallel, urls.length) }, worker));
  return { fetched, failed, texts: asText ? out : [] };
})`;

export interface PageFetchOutcome {
  fetched: number;
  failed: number;
  /** With asText: each URL's body, null when it could not be read. */
  texts: Array<string | null>;
}

/**
 * The same from inside `frame`, in its own main world (its origin: a cross-site frame's media is same-origin
 * there); a frame gone meanwhile fetches nothing.
 */
export async function fetchInFrame(frame: Frame, urls: string[], budgetMs: number): Promise<PageFetchOutcome> {
  if (urls.length === 0) return { fetched: 0, failed: 0, texts: [] };
  return (await frame
    .evaluate(`${FETCH_ALL}(${JSON.stringify(urls)}, ${PARALLEL}, ${Math.max(0, Math.round(budgetMs))}, false)`)
    .catch(() => ({ fetched: 0, failed: urls.length, texts: [] }))) as PageFetchOutcome;
}

export async function fetchInPage(
  ctx: BehaviorContext,
  urls: string[],
  options: { asText?: boolean } = {},
): Promise<PageFetchOutcome> {
  if (urls.length === 0) return { fetched: 0, failed: 0, texts: [] };
  return ctx.evaluate<PageFetchOutcome>(
    `${FETCH_ALL}(${JSON.stringify(urls)}, ${PARALLEL}, ${Math.max(0, Math.round(ctx.left()))}, ${options.asText === true})`,
  );
}
