import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'puppeteer-core';
import { matchOperation, type OpenApiDoc } from './openapi-check.js';

/**
 * What every console browser test checks on our pages (DESIGN decision 17): axe-core finds no
 * serious or critical violation, the browser logs no error from our origin, and every request to our origin is an
 * operation of /openapi.json or a console page or asset.
 */
const require = createRequire(import.meta.url);
const AXE_SOURCE = readFile(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The console's pages and assets; its sign-in routes are API operations like any other. */
export const CONSOLE_PATHS = /^\/console(?!\/session|\/oidc)(\/.*)?$/;

/** What a test collects from its pages: requests to our origin (`METHOD /path?query`) and problems seen. */
export interface BrowserRecord {
  requested: string[];
  problems: string[];
}

/** Puppeteer's waits (navigation, selectors, functions) on a test's page: generous, for a busy 2-core host. */
export const PAGE_WAIT_MS = 90_000;

/**
 * Records `page`'s requests to `origin`, and as problems its console errors, error answers (4xx, 5xx) and uncaught
 * errors from our origin. `expected401` says when a 401 is the point (a session ended on purpose). The page's
 * default waits become PAGE_WAIT_MS instead of puppeteer's 30 s.
 */
export function watchPage(page: Page, origin: string, into: BrowserRecord, expected401: () => boolean = () => false) {
  page.setDefaultTimeout(PAGE_WAIT_MS);
  const ours = (url: string | undefined) => !url || new URL(url).origin === origin;
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.origin === origin) into.requested.push(`${r.method()} ${u.pathname}${u.search}`);
  });
  page.on('console', (m) => {
    if (m.type() !== 'error' || !ours(m.location().url)) return;
    if (expected401() && /status of 401/.test(m.text())) return;
    into.problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && ours(r.url()) && !(r.status() === 401 && expected401()))
      into.problems.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`);
  });
  page.on('pageerror', (e) => {
    if (ours(page.url())) into.problems.push(`page error: ${(e as Error).message} (${page.url()})`);
  });
}

/** axe-core in the page (injected over CDP, so the page's CSP is untouched): no serious or critical violation. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(await AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as any).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
  assert.deepEqual(violations, [], `${what}: axe-core violations`);
}

/** The requests recorded that are neither a console page or asset nor an operation of the OpenAPI document. */
export function undocumentedRequests(doc: OpenApiDoc, requested: readonly string[]): string[] {
  const undocumented = requested.filter((r) => {
    const [method, url] = r.split(' ') as [string, string];
    return !CONSOLE_PATHS.test(url.split('?')[0]!) && !matchOperation(doc, method, url);
  });
  return [...new Set(undocumented)];
}
