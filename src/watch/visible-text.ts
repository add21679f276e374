import { selectAll } from 'css-select';
import { type ChildNode, type Element, isTag, isText } from 'domhandler';
import { removeElement } from 'domutils';
import { parseDocument } from 'htmlparser2';

/**
 * The visible text of a rendered page (the capture's stored page.html) as a list of blocks: each block-level
 * element's own text, whitespace collapsed. What a reader sees, not the markup: scripts, styles, templates, the head
 * and `hidden` elements are left out, and so are the elements `ignoreSelectors` names; `ignoreText` matches are cut
 * from each block. Pure: the diff of two pages is the diff of these two lists (text-diff.ts).
 */

const NOT_VISIBLE = new Set(['head', 'script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'canvas']);

/** Elements that start a new block of text (HTML's block-level and table-cell elements, list items, headings). */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'nav',
  'ol',
  'option',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'br',
  'button',
  'label',
  'textarea',
  'select',
]);

export const normaliseWhitespace = (text: string) => text.replace(/\s+/gu, ' ').trim();

export interface TextOptions {
  ignoreSelectors: readonly string[];
  ignoreText: readonly string[];
}

export function visibleTextBlocks(html: string, options: TextOptions): string[] {
  const doc = parseDocument(html, { decodeEntities: true });
  for (const selector of options.ignoreSelectors) for (const el of selectAll(selector, doc)) removeElement(el);
  const patterns = options.ignoreText.map((p) => new RegExp(p, 'gu'));

  const blocks: string[] = [];
  let current = '';
  const flush = () => {
    let text = normaliseWhitespace(current);
    current = '';
    for (const re of patterns) text = normaliseWhitespace(text.replace(re, ' '));
    if (text) blocks.push(text);
  };
  const walk = (nodes: readonly ChildNode[]) => {
    for (const node of nodes) {
      if (isText(node)) current += node.data;
      else if (isTag(node)) visitElement(node);
    }
  };
  const visitElement = (el: Element) => {
    const name = el.name.toLowerCase();
    if (NOT_VISIBLE.has(name) || el.attribs.hidden !== undefined) return;
    if (name === 'img' && el.attribs.alt) {
      current += ` ${el.attribs.alt} `;
      return;
    }
    const block = BLOCK.has(name);
    if (block) flush();
    walk(el.children);
    if (block) flush();
  };
  walk(doc.children);
  flush();
  return blocks;
}
