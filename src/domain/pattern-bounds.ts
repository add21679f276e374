/**
 * What a tenant's regular expression or CSS selector may ask of the service (docs/security.md, Untrusted
 * computation): both run over pages the tenant chose, so a construct whose cost grows without bound with the page
 * is refused when the pattern is submitted (a capture's recordTextBoxes and recordBoxes, a diff's query, a schedule's
 * watch), naming it. Pure: a static reading of the source, no matching. What these rules let through still runs in a
 * worker thread under a time limit (src/watch/diff-thread.ts): they refuse the well-known catastrophes early and
 * clearly, the limit ends the rest.
 */

export const SELECTOR_BOUNDS = {
  /** Combinators (descendant, `>`, `+`, `~`) in the whole selector, inside :not()/:is()/:has() too. */
  combinators: 8,
  /** General-sibling combinators (`~`): each one multiplies the work by the number of siblings. */
  siblingCombinators: 1,
  /** `:has()` pseudo-classes: each one searches a subtree for every element it is tested on. */
  has: 1,
} as const;

/**
 * Why a regular expression (JavaScript source, flags `gu`, already known to compile) can backtrack without bound;
 * null when it cannot in the ways refused here: a backreference or lookaround (outside what a non-backtracking
 * engine can do), and a repeated group that itself holds a variable repetition or alternatives — `(a+)+`,
 * `(a|a)*`, `(a?){30}` — whose ways of matching grow exponentially with the text.
 */
export function patternHazard(pattern: string): string | null {
  interface Group {
    /** Holds a quantifier whose minimum and maximum differ, or alternatives: it can match a text in several ways. */
    ambiguous: boolean;
  }
  const stack: Group[] = [{ ambiguous: false }];
  /** The atom a quantifier would apply to: null (none yet), a single character/class, or a closed group. */
  let last: { group: Group | null } | null = null;
  let i = 0;
  const top = () => stack[stack.length - 1]!;
  const quantifier = (): { min: number; max: number; length: number } | null => {
    const c = pattern[i];
    if (c === '*') return { min: 0, max: Number.POSITIVE_INFINITY, length: 1 };
    if (c === '+') return { min: 1, max: Number.POSITIVE_INFINITY, length: 1 };
    if (c === '?') return { min: 0, max: 1, length: 1 };
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (!m) return null;
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
      return { min, max, length: m[0].length };
    }
    return null;
  };
  while (i < pattern.length) {
    const c = pattern[i]!;
    const q = last ? quantifier() : null;
    if (q) {
      i += q.length;
      if (pattern[i] === '?') i++; // lazy: the same ways to match, tried in another order
      if (q.max > 1 && last?.group?.ambiguous)
        return 'a repeated group holds a variable repetition or alternatives (as in (a+)+ or (a|b)*), which can backtrack exponentially';
      if (q.min !== q.max) top().ambiguous = true;
      last = null;
      continue;
    }
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next !== undefined && /[1-9]/.test(next)) return 'backreferences (\\1 …) are not allowed';
      if (next === 'k' && pattern[i + 2] === '<') return 'backreferences (\\k<name>) are not allowed';
      // \p{…}, \P{…}, \u{…}: the braces belong to the escape, not a quantifier.
      const braced = /^\\[pPu]\{[^}]*\}/.exec(pattern.slice(i));
      i += braced ? braced[0].length : 2;
      last = { group: null };
      continue;
    }
    if (c === '[') {
      i++;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      i++;
      last = { group: null };
      continue;
    }
    if (c === '(') {
      if (/^\(\?<?[=!]/.test(pattern.slice(i)))
        return 'lookahead and lookbehind ((?= …), (?! …), (?<= …), (?<! …)) are not allowed';
      const named = /^\(\?(<[^>]+>|[a-z-]*:)/.exec(pattern.slice(i));
      i += named ? named[0].length : 1;
      stack.push({ ambiguous: false });
      last = null;
      continue;
    }
    if (c === ')') {
      i++;
      const closed = stack.length > 1 ? stack.pop()! : { ambiguous: false };
      if (closed.ambiguous) top().ambiguous = true;
      last = { group: closed };
      continue;
    }
    if (c === '|') {
      top().ambiguous = true;
      i++;
      last = null;
      continue;
    }
    i++;
    last = c === '^' || c === '$' ? null : { group: null };
  }
  return null;
}

/**
 * Why a CSS selector (already known to compile) could take time without bound on a large page: more combinators,
 * general-sibling combinators or `:has()` than SELECTOR_BOUNDS allows (counted through the whole selector list,
 * inside pseudo-classes too); null when it is within them.
 */
export function selectorHazard(selector: string): string | null {
  let combinators = 0;
  let siblings = 0;
  let has = 0;
  /** Inside :nth-…( ): `+` there is arithmetic (2n+1), not a combinator. */
  const parens: boolean[] = [];
  /** The last significant character: a descendant combinator is whitespace between two compound selectors. */
  let previous = '';
  let pendingSpace = false;
  let i = 0;
  const s = selector.trim();
  while (i < s.length) {
    const c = s[i]!;
    if (c === '\\') {
      i += 2;
      previous = 'x';
      pendingSpace = false;
      continue;
    }
    if (c === '"' || c === "'") {
      i++;
      while (i < s.length && s[i] !== c) i += s[i] === '\\' ? 2 : 1;
      i++;
      previous = 'x';
      pendingSpace = false;
      continue;
    }
    if (c === '[') {
      if (pendingSpace && !'>+~,('.includes(previous)) combinators++;
      i++;
      while (i < s.length && s[i] !== ']') {
        if (s[i] === '"' || s[i] === "'") {
          const q = s[i];
          i++;
          while (i < s.length && s[i] !== q) i += s[i] === '\\' ? 2 : 1;
        }
        i++;
      }
      i++;
      previous = 'x';
      pendingSpace = false;
      continue;
    }
    if (/\s/.test(c)) {
      pendingSpace = true;
      i++;
      continue;
    }
    const arithmetic = parens.length > 0 && parens[parens.length - 1] === true;
    if ((c === '>' || c === '+' || c === '~') && !arithmetic) {
      combinators++;
      if (c === '~') siblings++;
      previous = c;
      pendingSpace = false;
      i++;
      continue;
    }
    if (c === ',' || c === ')') {
      if (c === ')') parens.pop();
      previous = c;
      pendingSpace = false;
      i++;
      continue;
    }
    if (pendingSpace && !arithmetic && previous !== '' && !'>+~,('.includes(previous)) combinators++;
    pendingSpace = false;
    if (c === '(') {
      const name = /:([\w-]+)$/.exec(s.slice(0, i))?.[1]?.toLowerCase() ?? '';
      if (name === 'has') has++;
      parens.push(name.startsWith('nth-'));
      previous = c;
      i++;
      continue;
    }
    previous = c;
    i++;
  }
  const B = SELECTOR_BOUNDS;
  if (siblings > B.siblingCombinators)
    return `at most ${B.siblingCombinators} general-sibling combinator (~) is allowed; this selector has ${siblings}`;
  if (has > B.has) return `at most ${B.has} :has() is allowed; this selector has ${has}`;
  if (combinators > B.combinators)
    return `at most ${B.combinators} combinators are allowed; this selector has ${combinators}`;
  return null;
}
