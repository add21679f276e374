import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ComparisonSummary, notifies, watchedRunOptions } from '../../../src/watch/watch-policy.js';
import { parseWatchSettings } from '../../../src/watch/watch-settings-parser.js';

const quiet: ComparisonSummary = {
  textBlocksAdded: 0,
  textBlocksRemoved: 0,
  textBlocksChanged: 0,
  textChangeRatio: 0,
  headersChanged: 0,
  resourcesAdded: 0,
  resourcesRemoved: 0,
  resourcesChanged: 0,
  pixelChangeRatio: 0,
  changedRegions: 0,
};

describe('watch settings', () => {
  it('fills the defaults and names the field at fault', () => {
    const ok = parseWatchSettings({ notifyOn: 'change', ignoreSelectors: ['.ad'] });
    assert.deepEqual(ok.ok && ok.watch, {
      notifyOn: 'change',
      minTextChange: 0,
      minPixelChange: null,
      ignoreSelectors: ['.ad'],
      ignoreText: [],
    });
    assert.deepEqual(parseWatchSettings(undefined), { ok: true, watch: undefined });
    const detail = (input: unknown) => {
      const r = parseWatchSettings(input);
      return r.ok ? null : r.detail;
    };
    assert.match(detail({ minPixelChange: -1 })!, /^watch\.minPixelChange/);
    assert.match(detail({ minTextChange: 'a lot' })!, /^watch\.minTextChange/);
    assert.match(detail({ notifyOn: 'always' })!, /^watch\.notifyOn/);
    assert.match(detail({ colour: 'red' })!, /^watch\.colour is not a watch setting/);
    assert.match(detail({ ignoreSelectors: ['a:::b'] })!, /^watch\.ignoreSelectors/);
    assert.match(detail([1])!, /^watch must be a JSON object/);
  });
});

describe('notifies', () => {
  const watch = parseWatchSettings({ minTextChange: 0.2 });
  const w = watch.ok ? watch.watch! : assert.fail();

  it('is quiet when nothing changed and when pixels alone changed without minPixelChange', () => {
    assert.equal(notifies(w, quiet), false);
    assert.equal(notifies(w, { ...quiet, pixelChangeRatio: 0.5, changedRegions: 3 }), false);
  });

  it('compares the text ratio with minTextChange', () => {
    assert.equal(notifies(w, { ...quiet, textBlocksChanged: 1, textChangeRatio: 0.1 }), false);
    assert.equal(notifies(w, { ...quiet, textBlocksChanged: 2, textChangeRatio: 0.2 }), true);
  });

  it('notifies on pixels beyond minPixelChange, and on headers and resources', () => {
    const px = { ...w, minPixelChange: 0.05 };
    assert.equal(notifies(px, { ...quiet, pixelChangeRatio: 0.01 }), false);
    assert.equal(notifies(px, { ...quiet, pixelChangeRatio: 0.06 }), true);
    assert.equal(notifies(w, { ...quiet, headersChanged: 1 }), true);
    assert.equal(notifies(w, { ...quiet, resourcesChanged: 1 }), true);
  });
});

describe('watchedRunOptions', () => {
  it('adds the watch’s ignoreSelectors to recordBoxes and its ignoreText to recordTextBoxes, without repeats', () => {
    const watch = { ignoreSelectors: ['aside.ad'], ignoreText: ['Updated \\d+:\\d+'] };
    assert.deepEqual(watchedRunOptions({ pdf: true, recordTextBoxes: ['now', 'Updated \\d+:\\d+'] }, watch), {
      pdf: true,
      recordBoxes: ['aside.ad'],
      recordTextBoxes: ['now', 'Updated \\d+:\\d+'],
    });
    assert.deepEqual(watchedRunOptions(undefined, { ignoreSelectors: [], ignoreText: ['x'] }), {
      recordTextBoxes: ['x'],
    });
    assert.equal(watchedRunOptions(undefined, { ignoreSelectors: [], ignoreText: [] }), undefined);
  });
});
