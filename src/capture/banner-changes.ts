/**
 * What the page changed since consent detection's latest look began, and whether any of it could be a banner.
 *
 * Detection looks again whenever the page was active after a look (consent-looks.ts): a CMP that fetched its
 * configuration draws its banner after the answer. But most pages that stay active after load (a single-page app
 * rendering its list from an API answer) draw nothing a banner could be made of, and each look compiles and runs
 * autoconsent anew in the renderer (its rules, then its heuristics, which read the computed style of every element).
 *
 * A MutationObserver in autoconsent's preloaded world (consent-handler.ts, preloadConsent; the page's scripts cannot
 * see it) keeps the elements the page added, and those whose attributes or text it changed, since the latest `mark()`.
 * `since()` says whether any of them could be or reveal a banner — conservatively: any of
 * - a script, style sheet, frame, object or embed (what loads or styles a banner later);
 * - a dialog (`<dialog>`, `role=dialog|alertdialog`, `aria-modal`), an element positioned fixed or sticky (what
 *   autoconsent's heuristics look for), a custom element or a shadow host (what they cannot see into), an empty
 *   element that takes up room (a closed shadow root's host looks so: a closed root is not visible to the watch);
 * - an id or class, or text, with a word of consent, cookies or privacy in it (in the languages CMPs are most used in);
 * - more changes than it keeps (MAX_KEPT) or more elements than it reads (MAX_READ).
 * It answers with what it found (the reason for another look) or null: then nothing that could show a banner changed,
 * and another look would find what the latest found. A child frame is not watched: its page's caller looks again.
 */
import type { CDPSession } from 'puppeteer-core';

/** Elements kept since the latest mark; past this the answer is "another look". */
const MAX_KEPT = 2000;
/** Elements (the kept ones and their descendants) read by one `since()`; past this the answer is "another look". */
const MAX_READ = 3000;

/** Words of a consent banner, of its container's id or class, or of a CMP's name. */
export const BANNER_WORDS =
  /cookie|consent|gdpr|dsgvo|rgpd|privacy|privacid|privacit|datenschutz|einwillig|zustimm|toestemming|samtykke|samtycke|suostum|zgod|souhlas|riservatezza|confidentialit|tracking|partner|cmp|tcf|onetrust|didomi|usercentrics|cookiebot|quantcast|trustarc|truste|sourcepoint|sp_message|iubenda|osano|klaro/i;

/** Elements that take up room without children or text of their own. */
const REPLACED = [
  'img',
  'svg',
  'canvas',
  'video',
  'audio',
  'picture',
  'input',
  'textarea',
  'select',
  'br',
  'hr',
  'meter',
  'progress',
];

const SHOWS_OR_LOADS =
  'script,style,link,iframe,frame,object,embed,dialog,[role=dialog],[role=alertdialog],[aria-modal=true]';

/**
 * The watch, as plain text for the preloaded world (it runs before the page's parser has made `<html>`): defines
 * `bannerChanges` in that world's scope, holding `mark()` and `since()`.
 */
export const BANNER_CHANGES_WATCH = `const bannerChanges = (() => {
  const words = ${BANNER_WORDS.toString()};
  const showsOrLoads = ${JSON.stringify(SHOWS_OR_LOADS)};
  const replaced = new Set(${JSON.stringify(REPLACED)});
  const emptyWithRoom = (element) => {
    if (element.childElementCount > 0 || replaced.has(element.localName) || (element.textContent || '').trim()) return false;
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };
  let kept = new Set();
  let overflow = false;
  const keep = (node) => {
    const element = node.nodeType === 1 ? node : node.parentElement;
    if (!element || overflow) return;
    kept.add(element);
    if (kept.size > ${MAX_KEPT}) { overflow = true; kept = new Set(); }
  };
  const take = (records) => {
    for (const record of records) {
      if (record.type === 'childList') for (const node of record.addedNodes) keep(node);
      else keep(record.target);
    }
  };
  const observer = new MutationObserver(take);
  observer.observe(document, {
    childList: true, subtree: true, characterData: true, attributes: true,
    attributeFilter: ['style', 'class', 'id', 'hidden', 'open', 'role', 'aria-modal', 'aria-hidden'],
  });
  const named = (element) =>
    words.test(element.id || '') || words.test(typeof element.className === 'string' ? element.className : '');
  const why = (root, budget) => {
    if (root.matches(showsOrLoads) || root.querySelector(showsOrLoads)) return 'an element that loads or shows a dialog';
    if (words.test(root.textContent || '')) return 'text with consent words';
    const elements = [root, ...root.querySelectorAll('*')];
    if (elements.length > budget.left) return 'more elements than read';
    budget.left -= elements.length;
    for (const element of elements) {
      if (element.shadowRoot || element.localName.includes('-')) return 'a custom element or shadow host';
      if (named(element)) return 'an id or class with consent words';
      const position = getComputedStyle(element).position;
      if (position === 'fixed' || position === 'sticky') return 'an element positioned ' + position;
      if (emptyWithRoom(element)) return 'an empty element that takes up room';
    }
    return null;
  };
  return {
    mark() {
      observer.takeRecords();
      kept = new Set();
      overflow = false;
      return true;
    },
    since() {
      take(observer.takeRecords());
      if (overflow) return 'more changes than kept';
      const budget = { left: ${MAX_READ} };
      for (const element of kept) {
        if (!element.isConnected) continue;
        const found = why(element, budget);
        if (found) return found;
      }
      return null;
    },
  };
})();`;

/** The watch in one document, reached through its world's execution context. */
export interface BannerChanges {
  /** From now on: what the page changes counts for `since()` (sent at once, before the look it marks). */
  mark(): Promise<void>;
  /** Why another look could find a banner the latest did not; null: nothing that could be one changed; undefined: unknown. */
  since(): Promise<string | null | undefined>;
}

/** `global`: the expression that names the watch in the world (e.g. a global the world's script set). */
export function bannerChangesIn(
  session: CDPSession,
  contextId: () => number | undefined,
  global: string,
): BannerChanges {
  const call = async (method: 'mark' | 'since'): Promise<unknown> => {
    const id = contextId();
    if (id === undefined) return undefined;
    const evaluated = await session
      .send('Runtime.evaluate', {
        contextId: id,
        expression: `typeof ${global} === 'object' ? ${global}.${method}() : undefined`,
        returnByValue: true,
        timeout: 1000,
      })
      .catch(() => undefined);
    return evaluated && !evaluated.exceptionDetails ? evaluated.result.value : undefined;
  };
  return {
    async mark() {
      await call('mark');
    },
    async since() {
      const value = await call('since');
      return typeof value === 'string' || value === null ? value : undefined;
    },
  };
}
