/**
 * The `html` artifact: the rendered DOM of the page, as the PNG shows it, in one HTML document.
 *
 * - Open shadow roots are written in declarative form (`<template shadowrootmode="open">` inside the
 *   host, via Element.getHTML), so web components keep the content they render; closed roots cannot be read.
 * - Each iframe's document (same-origin or cross-origin, which Chromium renders in another process) is
 *   inlined right after its `<iframe>` element as
 *   `<template data-capture-ledger-frame data-url="…">…the frame's rendered HTML…</template>`:
 *   template content is inert (never rendered, no script runs), so the document still renders and replays
 *   as the page did, while it holds what every frame showed. Frames nest the same way.
 *
 * To find where a frame's document goes, its owner element is given a marker attribute for the moment of
 * serialisation (after the screenshot, so the evidence is untouched); the marker is removed from the DOM
 * and from the text.
 */
import type { Frame, Page } from 'puppeteer-core';
import { withTimeout } from './step-timeout.js';

export interface RenderedHtml {
  html: string;
  /** The main frame's document alone (with its shadow roots), without the inlined frame documents. */
  mainHtml: string;
  /** Frame documents inlined. */
  frames: number;
  /** Frames that could not be read (detached meanwhile, unresponsive renderer, over the limit). */
  notes: string[];
}

const MARKER = 'data-capture-ledger-frame-marker';
/** A page with hundreds of ad frames keeps its first ones; the rest are named in a note. */
export const MAX_INLINED_FRAMES = 50;
const FRAME_STEP_MS = 5000;

// Plain text for the page (see behaviors/auto-scroll.ts on serialised functions). Runs in the frame's main world,
// as page.content() does.
const SERIALIZE = `(() => {
  const roots = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) {
        roots.push(el.shadowRoot);
        walk(el.shadowRoot);
      }
    }
  };
  walk(document);
  const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  const root = document.documentElement;
  if (!root) return doctype;
  if (typeof root.getHTML !== 'function') return doctype + root.outerHTML;
  const escape = (value) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/\\u00a0/g, '&nbsp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const tag = root.localName;
  const attributes = [...root.attributes].map((a) => ' ' + a.name + '="' + escape(a.value) + '"').join('');
  return doctype + '<' + tag + attributes + '>' + root.getHTML({ serializableShadowRoots: true, shadowRoots: roots }) + '</' + tag + '>';
})()`;

export async function renderedHtml(page: Page): Promise<RenderedHtml> {
  const main = page.mainFrame();
  const notes: string[] = [];
  const children = page.frames().filter((frame) => frame !== main && !frame.detached);
  const inlined = children.slice(0, MAX_INLINED_FRAMES);
  if (children.length > inlined.length)
    notes.push(
      `${children.length - inlined.length} frame document(s) not inlined in the html artifact (more than ${MAX_INLINED_FRAMES} frames)`,
    );

  // 1. Mark each frame's owner element in its parent document.
  const marked = new Map<Frame, number>();
  await Promise.all(
    inlined.map(async (frame, index) => {
      const owner = await step(frame.frameElement()).catch(() => null);
      if (!owner) return;
      try {
        await step(owner.evaluate((el, [name, value]) => el.setAttribute(name!, value!), [MARKER, String(index)]));
        marked.set(frame, index);
      } catch {
        // An owner that cannot be marked: its document is appended to its parent's instead.
      } finally {
        await owner.dispose().catch(() => {});
      }
    }),
  );

  // 2. Serialise every document while the markers are in place, then take the markers out again.
  const serialised = new Map<Frame, string>();
  let failed = 0;
  try {
    await Promise.all(
      [main, ...inlined].map(async (frame) => {
        try {
          serialised.set(frame, String(await step(frame.evaluate(SERIALIZE))));
        } catch (error) {
          if (frame === main) throw error;
          failed++;
        }
      }),
    );
  } finally {
    await Promise.all(
      [main, ...inlined].map((frame) =>
        step(
          frame.evaluate(`document.querySelectorAll('[${MARKER}]').forEach((el) => el.removeAttribute('${MARKER}'))`),
        ).catch(() => {}),
      ),
    );
  }
  if (failed > 0) notes.push(`${failed} frame document(s) could not be read for the html artifact`);

  // 3. Put each frame's document after its owner element, innermost first.
  const childrenOf = new Map<Frame, Frame[]>();
  for (const frame of inlined) {
    const parent = frame.parentFrame();
    if (!parent || !serialised.has(frame)) continue;
    childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), frame]);
  }
  let count = 0;
  const compose = (frame: Frame, depth: number): string => {
    let html = serialised.get(frame) ?? '';
    const appended: string[] = [];
    for (const child of depth < 10 ? (childrenOf.get(frame) ?? []) : []) {
      const inline = `<template data-capture-ledger-frame="" data-url="${escapeAttribute(child.url())}">${compose(child, depth + 1)}</template>`;
      count++;
      const index = marked.get(child);
      const attribute = index === undefined ? -1 : html.indexOf(` ${MARKER}="${index}"`);
      const close = attribute < 0 ? -1 : html.indexOf('</iframe>', attribute);
      if (close < 0) {
        appended.push(inline);
        continue;
      }
      const after = close + '</iframe>'.length;
      html = html.slice(0, after) + inline + html.slice(after);
      html = html.slice(0, attribute) + html.slice(attribute + ` ${MARKER}="${index}"`.length);
    }
    // Leftover markers (a frame not inlined) are not part of the page.
    html = html.replace(new RegExp(` ${MARKER}="\\d+"`, 'g'), '');
    return appended.length === 0 ? html : html + appended.join('');
  };
  const html = compose(main, 0);
  const mainHtml = (serialised.get(main) ?? '').replace(new RegExp(` ${MARKER}="\\d+"`, 'g'), '');
  return { html, mainHtml, frames: count, notes };
}

function step<T>(work: Promise<T>): Promise<T> {
  return withTimeout(work, FRAME_STEP_MS, () => new Error('frame step timed out'));
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
