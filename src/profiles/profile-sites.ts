import { getDomain } from 'tldts-experimental';
import type { BrowserState } from './browser-state.js';

/**
 * The sites a profile holds state for: the registrable domain (public-suffix aware, tldts) of each cookie's domain
 * and each storage origin's host; a host with none (an IP address, `localhost`) stands for itself.
 */
export function siteOf(host: string): string {
  const bare = host
    .replace(/^\./, '')
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  return getDomain(bare) ?? bare;
}

export function sitesOf(state: BrowserState): string[] {
  const sites = new Set<string>();
  for (const cookie of state.cookies) sites.add(siteOf(cookie.domain));
  for (const origin of state.origins) sites.add(siteOf(new URL(origin.origin).hostname));
  return [...sites].sort();
}
