/**
 * The user agent a capture presents: headless Chromium's own string with "HeadlessChrome" replaced by
 * "Chrome" (same version), and client hints that name Chromium, as capture tools do (browsertrix-crawler,
 * Scoop). Many sites answer "HeadlessChrome" with a challenge or a stripped page; the evidence should show
 * what a visitor's browser gets. The provenance record keeps the string actually sent.
 */
import type { Page } from 'puppeteer-core';

export function withoutHeadless(userAgent: string): string {
  return userAgent.replace(/HeadlessChrome\//g, 'Chrome/');
}

/** Sets the page's user agent (all its frames, cross-origin ones too); returns the string it sends. */
export async function presentAsChrome(page: Page, browserUserAgent: string): Promise<string> {
  const userAgent = withoutHeadless(browserUserAgent);
  const fullVersion = /Chrome\/([\d.]+)/.exec(userAgent)?.[1] ?? '0.0.0.0';
  const major = fullVersion.split('.')[0]!;
  const brands = [
    { brand: 'Chromium', version: major },
    { brand: 'Not/A)Brand', version: '24' },
  ];
  await page.setUserAgent({
    userAgent,
    userAgentMetadata: {
      brands,
      fullVersionList: brands.map((b) => ({
        brand: b.brand,
        version: b.brand === 'Chromium' ? fullVersion : `${b.version}.0.0.0`,
      })),
      fullVersion,
      platform: 'Linux',
      platformVersion: '',
      architecture: 'x86',
      model: '',
      mobile: false,
    },
  });
  return userAgent;
}
