import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkRecordBoxes, checkRecordTextBoxes } from '../../../src/domain/capture-options.js';
import { patternHazard, selectorHazard } from '../../../src/domain/pattern-bounds.js';
import { DiffBoundError } from '../../../src/watch/diff-bounds.js';
import { createDiffThreads } from '../../../src/watch/diff-thread.js';
import { parseDiffOptions } from '../../../src/watch/diff-options.js';
import { diffTextBlocks } from '../../../src/watch/text-diff.js';
import { parseWatchSettings } from '../../../src/watch/watch-settings-parser.js';

describe('pattern bounds: regular expressions that backtrack without bound', () => {
  it('refuses nested and alternating repetition, backreferences and lookarounds', () => {
    for (const [pattern, why] of [
      ['(a+)+$', /repeated group/],
      ['(a|a)*', /repeated group/],
      ['(a|aa)*b', /repeated group/],
      ['(a?){30}a{30}', /repeated group/],
      ['((a+)b)*', /repeated group/],
      ['(?<word>\\w+)-(?:x|y){2,}', /repeated group/],
      ['(.)\\1', /backreferences/],
      ['(?<q>.)\\k<q>', /backreferences/],
      ['(?=a)a', /lookahead/],
      ['(?!a)b', /lookahead/],
      ['(?<=a)b', /lookahead/],
      ['(?<!a)b', /lookahead/],
    ] as const)
      assert.match(patternHazard(pattern) ?? 'accepted', why, pattern);
  });

  it('accepts what cannot: fixed repetitions of groups, single repetitions, classes and escapes', () => {
    for (const pattern of [
      'Updated \\d{1,2}:\\d{2}',
      '(\\d{2}:){2}\\d{2}',
      '(?:ab)+',
      '(?:a+)?',
      '(?<year>\\d{4})-\\d+',
      '[(+*|]+',
      '\\p{L}+\\s+\\u{61}{2,}',
      '\\(a+\\)+',
      'last (?:updated|modified)',
      'a{1,3}b{2}',
    ])
      assert.equal(patternHazard(pattern), null, pattern);
  });

  it('is what every place that takes a pattern refuses, naming the field', () => {
    const query = parseDiffOptions({ ignoreText: ['(a+)+$'] });
    assert.equal(query.ok, false);
    assert.ok(!query.ok && query.field === 'ignoreText' && /repeated group/.test(query.detail));
    const watch = parseWatchSettings({ ignoreText: ['ok', '(x|y)*z'] });
    assert.ok(!watch.ok && watch.detail.startsWith('watch.ignoreText'), JSON.stringify(watch));
    assert.match(String(checkRecordTextBoxes(['(a+)+$'], 'options.recordTextBoxes')), /^options\.recordTextBoxes\[0\]/);
  });
});

describe('selector bounds', () => {
  it('refuses sibling-combinator chains, nested :has() and long chains of combinators', () => {
    for (const [selector, why] of [
      ['x ~ p ~ p ~ p', /general-sibling .* has 3/],
      ['p ~ p ~ p', /general-sibling/],
      ['p:not(a ~ b ~ c)', /general-sibling/],
      ['a ~ b, c ~ d', /general-sibling/],
      ['*:has(*:has(*))', /:has\(\)/],
      ['a b c d e f g h i j', /combinators .* has 9/],
      ['a>b>c>d>e>f>g>h>i>j', /combinators .* has 9/],
    ] as const)
      assert.match(selectorHazard(selector) ?? 'accepted', why, selector);
  });

  it('accepts ordinary selectors, reading attribute values, strings and nth arithmetic as they are', () => {
    for (const selector of [
      '.ad',
      '#clock, .ticker, aside.promo',
      'x ~ p',
      'div > p + span',
      'main article p',
      'li:nth-child(2n + 1)',
      '[data-x~="a b c d e f g h i j"] p',
      "[title='~ ~ ~']",
      'section:has(> .ad)',
      'div  >  p',
    ])
      assert.equal(selectorHazard(selector), null, selector);
  });

  it('is what every place that takes a selector refuses, naming the field', () => {
    const query = parseDiffOptions({ ignoreSelectors: 'x ~ p ~ p ~ p' });
    assert.ok(!query.ok && query.field === 'ignoreSelectors', JSON.stringify(query));
    const watch = parseWatchSettings({ ignoreSelectors: ['x ~ p ~ p ~ p'] });
    assert.ok(!watch.ok && watch.detail.startsWith('watch.ignoreSelectors'), JSON.stringify(watch));
    assert.match(String(checkRecordBoxes(['x ~ p ~ p ~ p'], 'options.recordBoxes')), /^options\.recordBoxes\[0\]/);
  });
});

describe('text diff bounds', () => {
  const page = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `block ${i} ${tag}`);

  it('refuses a page with more blocks than it compares, before comparing', () => {
    assert.throws(
      () => diffTextBlocks(page(11, 'a'), page(3, 'a'), { textBlocks: 10, textEdits: 100 }),
      (err: unknown) => err instanceof DiffBoundError && err.bound === 'textBlocks' && /11 blocks/.test(err.message),
    );
  });

  it('stops following edits beyond its bound, and compares pages that differ less', () => {
    assert.throws(
      () => diffTextBlocks(page(50, 'a'), page(50, 'b'), { textBlocks: 100, textEdits: 20 }),
      (err: unknown) => err instanceof DiffBoundError && err.bound === 'textEdits',
    );
    const edited = page(50, 'a');
    edited[7] = 'changed';
    const d = diffTextBlocks(page(50, 'a'), edited, { textBlocks: 100, textEdits: 20 });
    assert.equal(d.changed, 1);
    assert.equal(d.added + d.removed, 0);
  });
});

describe('diff threads', () => {
  const side = (captureId: string, html: string) => ({
    captureId,
    url: 'https://example.com/',
    completedAt: '2026-01-01T00:00:00.000Z',
    bundleHash: null,
    html,
    headers: null,
    screenshot: null,
    wacz: null,
  });

  it('diffs in a thread, ends one past its time limit, and diffs again after', async () => {
    const threads = createDiffThreads(1500);
    try {
      const options = { ignoreSelectors: [], ignoreText: [] };
      const done = await threads.run({
        kind: 'diff',
        base: side('a', '<p>one</p>'),
        next: side('b', '<p>two</p>'),
        options,
      });
      assert.equal(done.summary.textBlocksChanged, 1);
      // The thread does not check its patterns: one that would backtrack for hours shows the limit ends it.
      const page = `<p>${'a'.repeat(40)}!</p>`;
      await assert.rejects(
        threads.run({
          kind: 'diff',
          base: side('a', page),
          next: side('b', page),
          options: { ignoreSelectors: [], ignoreText: ['(a+)+$'] },
        }),
        (err: unknown) => err instanceof DiffBoundError && err.bound === 'timeLimit' && /1\.5 s/.test(err.message),
      );
      const again = await threads.run({
        kind: 'diff',
        base: side('a', '<p>x</p>'),
        next: side('b', '<p>x</p>'),
        options,
      });
      assert.equal(again.changed, false);
    } finally {
      await threads.close();
    }
  });
});
