import type { CDPSession } from 'puppeteer-core';
import { pageWorld } from './behaviors/page-world.js';

/**
 * Where the elements of `recordBoxes` and the text matching `recordTextBoxes` (a capture option) are on the screenshot: measured in the page right
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
  /**
   * Per recordTextBoxes pattern, the boxes of its matches in the page's visible text (each line a match spans is
   * a box), in document order. Its own map: a pattern and a selector spelt alike never mix. Absent: none asked for.
   */
  textBoxes?: Record<string, ElementBox[]>;
  /** Patterns with more than MAX_BOXES_PER_SELECTOR boxes: the first ones were kept. */
  textTruncated?: string[];
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

// The text measure: the main document's text nodes (not those of script, style, noscript or template, nor of an
// element whose visibility is hidden), each pattern's matches with flags gu on each node's text as it is, and a
// Range over each match: its client rects (one per line it is drawn on), in CSS px from the document's top-left.
const MEASURE_TEXT = `(patterns, max) => {
  const root = document.body || document.documentElement;
  const nodes = [];
  if (root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('script, style, noscript, template')) continue;
      if (getComputedStyle(parent).visibility === 'hidden') continue;
      nodes.push(node);
    }
  }
  return patterns.map((pattern) => {
    let re;
    try { re = new RegExp(pattern, 'gu'); } catch { return null; }
    const rects = [];
    const range = document.createRange();
    for (const node of nodes) {
      for (const match of node.data.matchAll(re)) {
        if (match[0].length === 0) continue;
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        for (const r of range.getClientRects()) {
          if (r.width <= 0 || r.height <= 0) continue;
          if (rects.length === max) return { rects, more: true };
          rects.push([r.left + window.scrollX, r.top + window.scrollY, r.right + window.scrollX, r.bottom + window.scrollY]);
        }
      }
    }
    return { rects, more: false };
  });
}`;

const toScreenshotPx = (rects: number[][], scale: number): ElementBox[] =>
  rects
    .map(([left, top, right, bottom]) => {
      const x = Math.max(0, Math.floor(left! * scale));
      const y = Math.max(0, Math.floor(top! * scale));
      return { x, y, width: Math.ceil(right! * scale) - x, height: Math.ceil(bottom! * scale) - y };
    })
    .filter((box) => box.width > 0 && box.height > 0);

/** Boxes rounded outwards to whole screenshot pixels, so an element's anti-aliased edge is inside its box. */
export async function measureElementBoxes(
  session: CDPSession,
  mainFrameId: string,
  selectors: string[],
  scale: number,
  patterns: string[] = [],
): Promise<ElementBoxes> {
  const evaluate = await pageWorld(session, mainFrameId);
  const max = MAX_BOXES_PER_SELECTOR;
  const { measured, text } = await evaluate<{ measured: Measured; text: Measured }>(
    `({ measured: (${MEASURE})(${JSON.stringify(selectors)}, ${max}), text: (${MEASURE_TEXT})(${JSON.stringify(patterns)}, ${max}) })`,
  );
  const result: ElementBoxes = { boxes: {} };
  selectors.forEach((selector, i) => {
    const found = measured[i];
    if (!found) {
      (result.unmeasured ??= []).push(selector);
      return;
    }
    if (found.more) (result.truncated ??= []).push(selector);
    result.boxes[selector] = toScreenshotPx(found.rects, scale);
  });
  if (patterns.length > 0) {
    const textBoxes: Record<string, ElementBox[]> = {};
    patterns.forEach((pattern, i) => {
      const found = text[i];
      if (!found) return; // refused by the option's check already; a page cannot make a pattern fail to compile
      if (found.more) (result.textTruncated ??= []).push(pattern);
      textBoxes[pattern] = toScreenshotPx(found.rects, scale);
    });
    result.textBoxes = textBoxes;
  }
  return result;
}
