/**
 * auto-fetch: what the page names but did not load at this viewport — every srcset candidate (other widths
 * and pixel ratios), lazy-loading `data-*` URLs (data-src, data-srcset, data-bg …), posters, and the url()s of
 * stylesheet rules (backgrounds under other media queries, fonts not used yet, @import-ed sheets) — is fetched,
 * so that the page replays at another size and nothing it asks for at replay is missing. Only http(s) URLs the
 * page has not requested yet, at most MAX_AUTO_FETCH per capture.
 */
import type { Behavior, BehaviorContext, BehaviorFindings } from './behavior.js';
import { fetchInPage } from './page-fetch.js';

export const MAX_AUTO_FETCH = 300;

// Page-side: the candidate URLs, absolute, without duplicates.
const CANDIDATES = `(() => {
  const found = new Set();
  const add = (raw, base) => {
    if (!raw) return;
    const value = String(raw).trim();
    if (!value || value.startsWith('data:') || value.startsWith('blob:')) return;
    try {
      const url = new URL(value, base || document.baseURI);
      if (url.protocol === 'http:' || url.protocol === 'https:') { url.hash = ''; found.add(url.href); }
    } catch {}
  };
  // "a.jpg 1x, b.jpg 2x" and "a.jpg 480w, b.jpg 800w"; URLs may contain commas only when not followed by a space.
  const addSrcset = (srcset) => {
    for (const candidate of String(srcset || '').split(/,\\s+/)) add(candidate.trim().split(/\\s+/)[0]);
  };
  for (const el of document.querySelectorAll('img[srcset], source[srcset]')) addSrcset(el.getAttribute('srcset'));
  for (const el of document.querySelectorAll('img[src], source[src], video[poster], link[rel~="stylesheet"][href], link[rel~="icon"][href]')) {
    add(el.getAttribute(el.tagName === 'VIDEO' ? 'poster' : el.tagName === 'LINK' ? 'href' : 'src'));
  }
  // Lazy-loading attributes by name (their value must still look like a URL); any other data-* only when its
  // value names an image, stylesheet or font file. Never a data-* value that merely resolves to some URL.
  const LAZY = /^data-(?:lazy-?)?(?:src|original|bg|background|background-image|poster|img|image|hi-?res(?:-src)?|full(?:-src)?|large(?:-src)?|zoom(?:-src)?|lazy)$/;
  const URLISH = /^[^\\s]*[\\/.][^\\s]*$/;
  const RESOURCE = /\\.(?:png|jpe?g|gif|webp|avif|svg|ico|bmp|css|woff2?|ttf|otf)(?:[?#]|$)/i;
  for (const el of document.querySelectorAll('img, source, picture, video, audio, div, span, a, figure, section, li')) {
    for (const attr of el.attributes) {
      if (!attr.name.startsWith('data-')) continue;
      if (attr.name.endsWith('srcset')) { addSrcset(attr.value); continue; }
      if ((LAZY.test(attr.name) && URLISH.test(attr.value.trim())) || RESOURCE.test(attr.value)) {
        const bg = /url\\((['"]?)(.*?)\\1\\)/.exec(attr.value);
        add(bg ? bg[2] : attr.value);
      }
    }
  }
  const URL_IN_CSS = /url\\(\\s*(['"]?)(.*?)\\1\\s*\\)/g;
  const walk = (rules, base) => {
    for (const rule of rules) {
      if (rule.styleSheet) {
        add(rule.href, base);
        try { walk(rule.styleSheet.cssRules, rule.styleSheet.href || base); } catch {}
      }
      if (rule.cssRules) walk(rule.cssRules, base);
      if (rule.style) for (const m of rule.style.cssText.matchAll(URL_IN_CSS)) add(m[2], base);
    }
  };
  for (const sheet of document.styleSheets) {
    try { walk(sheet.cssRules, sheet.href || document.baseURI); } catch {} // another site's sheet: not readable
  }
  return [...found];
})()`;

export const autoFetch: Behavior = {
  name: 'auto-fetch',
  run: fetchCandidates,
  found: (did) => Number(did.fetched) + Number(did.failed) > 0,
};

async function fetchCandidates(ctx: BehaviorContext): Promise<BehaviorFindings> {
  const candidates = await ctx.evaluate<string[]>(CANDIDATES);
  const requested = ctx.requestedUrls();
  const missing = candidates.filter((url) => !requested.has(url));
  const chosen = missing.slice(0, MAX_AUTO_FETCH);
  if (missing.length > chosen.length)
    ctx.notes.push(`auto-fetch fetched ${chosen.length} of ${missing.length} URLs the page names but had not loaded`);
  const outcome = await fetchInPage(ctx, chosen);
  return {
    candidates: candidates.length,
    alreadyLoaded: candidates.length - missing.length,
    fetched: outcome.fetched,
    failed: outcome.failed,
  };
}
