import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDiffOptions } from '../../../src/watch/diff-options.js';
import { diffHeaders } from '../../../src/watch/header-diff.js';
import { diffResources } from '../../../src/watch/resource-diff.js';
import { diffTextBlocks } from '../../../src/watch/text-diff.js';
import { visibleTextBlocks } from '../../../src/watch/visible-text.js';

const none = { ignoreSelectors: [], ignoreText: [] };

describe('visible text blocks', () => {
  it('splits block elements, collapses whitespace and leaves out what is not seen', () => {
    const html = `<html><head><title>T</title><style>p{}</style></head><body>
      <h1>  Hello
        world </h1><p>First <b>bold</b> para.</p><script>var x = 1</script>
      <div hidden>secret</div><ul><li>one</li><li>two</li></ul><img alt="a cat"></body></html>`;
    assert.deepEqual(visibleTextBlocks(html, none), ['Hello world', 'First bold para.', 'one', 'two', 'a cat']);
  });

  it('drops the elements ignoreSelectors names and cuts ignoreText matches', () => {
    const html = '<body><p>Story</p><aside class="ad">Buy now</aside><p>Updated 10:42 today</p></body>';
    assert.deepEqual(visibleTextBlocks(html, { ignoreSelectors: ['.ad'], ignoreText: ['\\d\\d:\\d\\d'] }), [
      'Story',
      'Updated today',
    ]);
  });
});

describe('text diff', () => {
  it('pairs a removed and an added block at the same place as changed', () => {
    const d = diffTextBlocks(['a', 'b', 'c'], ['a', 'B', 'c', 'd']);
    assert.deepEqual(d.changes, [
      { kind: 'changed', baseIndex: 1, index: 1, before: 'b', after: 'B' },
      { kind: 'added', index: 3, text: 'd' },
    ]);
    assert.equal(d.changeRatio, 2 / 4);
  });

  it('reports removed blocks and nothing for equal lists', () => {
    assert.deepEqual(diffTextBlocks(['a', 'b'], ['b']).changes, [{ kind: 'removed', baseIndex: 0, text: 'a' }]);
    const same = diffTextBlocks(['a'], ['a']);
    assert.equal(same.changes.length, 0);
    assert.equal(same.changeRatio, 0);
  });
});

describe('header diff', () => {
  it('lists volatile headers apart', () => {
    const d = diffHeaders(
      { 'content-type': 'text/html', date: 'Mon', 'x-request-id': '1', 'x-old': 'y', etag: '"a"' },
      { 'Content-Type': 'text/plain', date: 'Tue', 'x-request-id': '2', 'x-new': 'z', etag: '"b"' },
    );
    assert.deepEqual(d.changes, [
      { kind: 'changed', name: 'content-type', baseValue: 'text/html', value: 'text/plain' },
      { kind: 'added', name: 'x-new', value: 'z' },
      { kind: 'removed', name: 'x-old', baseValue: 'y' },
    ]);
    assert.deepEqual(
      d.volatile.map((c) => c.name),
      ['date', 'etag', 'x-request-id'],
    );
  });
});

describe('resource diff', () => {
  it('names added, removed and changed URLs', () => {
    const r = (url: string, payloadDigest: string) => ({ url, status: 200, payloadDigest });
    const d = diffResources([r('/a', '1'), r('/b', '2'), r('/c', '3')], [r('/a', '1'), r('/b', '9'), r('/d', '4')]);
    assert.deepEqual(d.added, ['/d']);
    assert.deepEqual(d.removed, ['/c']);
    assert.deepEqual(d.changed, [{ url: '/b', baseDigests: ['2'], digests: ['9'] }]);
  });
});

describe('diff options', () => {
  it('refuses a malformed selector or pattern naming the field', () => {
    const bad = parseDiffOptions({ ignoreSelectors: ['div[['] });
    assert.equal(bad.ok, false);
    assert.equal(!bad.ok && bad.field, 'ignoreSelectors');
    const badRe = parseDiffOptions({ ignoreText: ['(unclosed'] }, 'watch.');
    assert.equal(!badRe.ok && badRe.field, 'watch.ignoreText');
    assert.equal(parseDiffOptions({ ignoreSelectors: 3 }).ok, false);
  });

  it('takes a single string or a list', () => {
    const ok = parseDiffOptions({ ignoreSelectors: '#clock', ignoreText: ['\\d+'] });
    assert.deepEqual(ok.ok && ok.options, { ignoreSelectors: ['#clock'], ignoreText: ['\\d+'] });
  });
});
