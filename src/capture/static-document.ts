/**
 * Whether a loaded page can still change by itself (behaviors and waits that cost nothing on a
 * page that gives them nothing to do). The quiet windows of a capture — the settle phase's 500 ms, the 300 ms
 * a behavior waits after what it started — are there for work the service cannot see coming: a script's
 * promise chain, animation frame or event handler that starts a request after a pause. A document with no
 * script, no handler attribute, no frame or plug-in, no media, no self-refresh and no running animation has
 * nothing that could: what it still loads (a lazy image a scroll brought into view, a font a style asked for)
 * starts within a frame of its cause and is tracked in flight. Such a page gets short quiet windows,
 * autoconsent's second, heuristic look (which clicks acknowledge buttons a script would answer) is skipped, and
 * unless something on it loads only when scrolled to (`waitsForScroll`) it is not scrolled through; every other
 * page keeps the full windows (its settle phase may still end early: early-quiet.ts), and is scrolled unless
 * nothing on it is lazy and no script of it watches scrolling (documentWaitsForScroll below, steps/behaviors.ts).
 * The verdict and the windows used are recorded in captureSettings.
 *
 * Checked in the behaviors' isolated world (the page's own globals cannot answer for it) over the main frame's
 * DOM; a page whose main frame has child frames is dynamic without looking.
 */

import type { PageWorld } from './behaviors/page-world.js';

/** The quiet windows of a page that cannot change by itself. */
export const STATIC_QUIET_WINDOW_MS = 150;
/** Larger documents are not walked for handler attributes: they count as dynamic. */
const MAX_ELEMENTS = 20_000;

/**
 * `waitsForScroll`: something on the static page loads only when scrolled to — an element with
 * `loading=lazy`, or `content-visibility` (in a style attribute or a stylesheet, or a stylesheet this world may
 * not read) that leaves off-screen content unrendered; without it, scrolling a static page loads nothing.
 */
export type DocumentDynamics =
  | { static: true; waitsForScroll: boolean }
  /** `waitsForScroll`: documentWaitsForScroll's answer (absent: not asked, or no answer). */
  | { static: false; because: string; waitsForScroll?: boolean };

// Page-side: whether a stylesheet (or one it @imports) uses content-visibility; one this world may not read (another
// origin's) counts as using it.
const SHEETS_HIDE_CONTENT = `((d) => {
  const sheets = [...d.styleSheets];
  while (sheets.length > 0) {
    const sheet = sheets.pop();
    try {
      for (const rule of sheet.cssRules) {
        if (rule.styleSheet) sheets.push(rule.styleSheet);
        else if (rule.cssText.includes('content-visibility')) return true;
      }
    } catch {
      return true;
    }
  }
  return false;
})`;

// Page-side code as plain text (see auto-scroll.ts). Returns why the page may change, or what a static one holds.
const WHY_DYNAMIC = `(() => {
  const d = document;
  if (d.readyState !== 'complete') return 'it is still loading';
  if (d.querySelector('script')) return 'it has scripts';
  if (d.querySelector('iframe, frame, object, embed')) return 'it has frames or embedded objects';
  if (d.querySelector('video, audio')) return 'it has media';
  if (d.querySelector('meta[http-equiv="refresh" i]')) return 'it refreshes itself';
  if (typeof d.getAnimations === 'function' && d.getAnimations().length > 0) return 'it has running animations';
  const all = d.getElementsByTagName('*');
  if (all.length > ${MAX_ELEMENTS}) return 'it has more than ${MAX_ELEMENTS} elements';
  const svg = 'http://www.w3.org/2000/svg';
  const smil = new Set(['animate', 'animateMotion', 'animateTransform', 'set']);
  let waitsForScroll = d.querySelector('[loading="lazy" i]') !== null;
  for (const el of all) {
    if (el.shadowRoot) return 'it has shadow roots';
    if (!waitsForScroll && (el.getAttribute('style') || '').includes('content-visibility')) waitsForScroll = true;
    if (el.localName.includes('-')) return 'it has custom elements';
    if (el.namespaceURI === svg && smil.has(el.localName)) return 'it has SVG animations';
    for (const attribute of el.attributes) if (attribute.name.startsWith('on')) return 'it has event handler attributes';
  }
  if (!waitsForScroll) waitsForScroll = (${SHEETS_HIDE_CONTENT})(d);
  return { waitsForScroll };
})()`;

// Page-side: whether a page with scripts has something that loads only when scrolled to, or a scroll handler
// attribute (listeners and observers its scripts made are the page watch's to tell, pending-timers.ts).
const WAITS_FOR_SCROLL = `((d) => {
  if (d.querySelector('[loading="lazy" i], [onscroll], [onscrollend], [onwheel], [onmousewheel], [ontouchmove]')) return true;
  const all = d.getElementsByTagName('*');
  if (all.length > ${MAX_ELEMENTS}) return true;
  for (const el of all) if ((el.getAttribute('style') || '').includes('content-visibility')) return true;
  return (${SHEETS_HIDE_CONTENT})(d);
})(document)`;

/**
 * The main frame's document now. `evaluate`: page-side code in an isolated world of the main frame (the
 * behaviors', behaviors/page-world.ts); `childFrames`: how many frames the page has besides the main one.
 */
export async function documentDynamics(evaluate: PageWorld, childFrames: number): Promise<DocumentDynamics> {
  if (childFrames > 0) return { static: false, because: 'it has frames' };
  const found = await evaluate<string | { waitsForScroll: boolean }>(WHY_DYNAMIC);
  return typeof found === 'string' ? { static: false, because: found } : { static: true, ...found };
}

/**
 * On a page with scripts: whether its document has something that loads only when scrolled to (`loading=lazy`,
 * content-visibility) or a scroll handler attribute. Together with the page watch's `watchesScroll` (listeners and
 * IntersectionObservers its scripts made), false means scrolling through it loads nothing.
 */
export function documentWaitsForScroll(evaluate: PageWorld): Promise<boolean> {
  return evaluate<boolean>(WAITS_FOR_SCROLL);
}
