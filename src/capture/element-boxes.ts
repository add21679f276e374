import type { CDPSession } from 'puppeteer-core';
import { pageWorld } from './behaviors/page-world.js';

/**
 * Where the elements of `recordBoxes` (a capture option, issue 32) are on the screenshot: measured in the page right
 * before it is taken and kept in captureSettings.elementBoxes, so they are in the signed provenance and a diff can
 * leave those elements out of the pixel comparison without rendering anything again (docs/watch.md).
 * Boxes are in screenshot pixels (CSS px × deviceScaleFactor) from the screenshot's top-left, which is the
 * document's top-left for the full-page and the viewport screenshot alike (both clip from 0,0). Measured in an
 * isolated world: the page's own scripts cannot replace querySelectorAll or getBoundingClientRect to fake a box
 * (say, one covering the whole page, so that a diff would mask every change).
 */

export interface ElementBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ElementBoxes {
  /** Per selector, every matching element's box that is drawn (width and height > 0), in document order. */
  boxes: Record<string, ElementBox[]>;
  /** Selectors the browser's own parser refused (css-select accepts a few it does not): nothing was measured. */
  unmeasured?: string[];
  /** Selectors with more matches than MAX_BOXES_PER_SELECTOR: the first ones were kept. */
  truncated?: string[];
}

export const MAX_BOXES_PER_SELECTOR = 500;

type Measured = Array<{ rects: number[][]; more: boolean } | null>;

// The page-side measure as plain text (a serialised TS function would carry helpers tsx injects, e.g. __name):
// CSS px from the document's top-left; null for a selector the browser's querySelectorAll refuses.
const MEASURE = `(selectors, max) => selectors.map((selector) => {
  let elements;
  try { elements = document.querySelectorAll(selector); } catch { return null; }
  const rects = [];
  for (const element of elements) {
    const r = element.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) continue;
    if (rects.length === max) return { rects, more: true };
    rects.push([r.left + window.scrollX, r.top + window.scrollY, r.right + window.scrollX, r.bottom + window.scrollY]);
  }
  return { rects, more: false };
})`;

/** Boxes rounded outwards to whole screenshot pixels, so an element's anti-aliased edge is inside its box. */
export async function measureElementBoxes(
  session: CDPSession,
  mainFrameId: string,
  selectors: string[],
  scale: number,
): Promise<ElementBoxes> {
  const evaluate = await pageWorld(session, mainFrameId);
  const measured = await evaluate<Measured>(`(${MEASURE})(${JSON.stringify(selectors)}, ${MAX_BOXES_PER_SELECTOR})`);
  const result: ElementBoxes = { boxes: {} };
  selectors.forEach((selector, i) => {
    const found = measured[i];
    if (!found) {
      (result.unmeasured ??= []).push(selector);
      return;
    }
    if (found.more) (result.truncated ??= []).push(selector);
    result.boxes[selector] = found.rects
      .map(([left, top, right, bottom]) => {
        const x = Math.max(0, Math.floor(left! * scale));
        const y = Math.max(0, Math.floor(top! * scale));
        return { x, y, width: Math.ceil(right! * scale) - x, height: Math.ceil(bottom! * scale) - y };
      })
      .filter((box) => box.width > 0 && box.height > 0);
  });
  return result;
}
