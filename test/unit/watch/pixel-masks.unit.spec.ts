import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { notifies, type WatchSettings } from '../../../src/watch/watch-policy.js';
import { type CaptureSide, diffCaptures, pixelMasks } from '../../../src/watch/capture-diff.js';
import { encodePng } from '../../../src/watch/diff-image.js';
import { diffRecord } from '../../../src/watch/diff-record.js';
import type { Box, RgbaImage } from '../../../src/watch/pixel-diff.js';

/**
 * ignoreSelectors on pixels (docs/watch.md): each capture recorded where the ignored elements were on its
 * screenshot (captureSettings.elementBoxes); the diff masks the union of both captures' boxes in both images.
 */

function screenshot(width: number, height: number, boxes: Array<Box & { shade: number }>): Uint8Array {
  const img: RgbaImage = { width, height, data: new Uint8Array(width * height * 4).fill(255) };
  for (const b of boxes)
    for (let y = b.y; y < b.y + b.height; y++)
      for (let x = b.x; x < b.x + b.width; x++) img.data.fill(b.shade, (y * width + x) * 4, (y * width + x) * 4 + 3);
  return encodePng(img);
}

const side = (captureId: string, png: Uint8Array, elementBoxes: CaptureSide['elementBoxes']): CaptureSide => ({
  captureId,
  url: 'https://example.org/',
  completedAt: '2026-11-26T10:00:00.000Z',
  bundleHash: null,
  html: null,
  headers: null,
  screenshot: png,
  wacz: null,
  elementBoxes,
});

// The ad moved down 20 px and got taller between the two captures, and its colour changed.
const adBefore = { x: 10, y: 100, width: 300, height: 40 };
const adAfter = { x: 10, y: 120, width: 300, height: 56 };
const options = { ignoreSelectors: ['aside.ad', '#clock'], ignoreText: [] };

describe('ignoreSelectors on pixels: the recorded boxes are masked', () => {
  it('masks the union of both captures’ boxes, so an ad that moved and changed counts for nothing', async () => {
    const base = side('cap_a', screenshot(400, 300, [{ ...adBefore, shade: 0 }]), {
      'aside.ad': [adBefore],
      '#clock': [],
    });
    const next = side('cap_b', screenshot(400, 300, [{ ...adAfter, shade: 90 }]), {
      'aside.ad': [adAfter],
      '#clock': [],
    });
    const diff = await diffCaptures(base, next, options);
    assert.deepEqual(diff.screenshot!.ignored, {
      masked: ['aside.ad', '#clock'],
      notRecorded: [],
      maskedText: [],
      textNotRecorded: [],
    });
    assert.equal(diff.screenshot!.changedPixels, 0);
    assert.equal(diff.screenshot!.changedRatio, 0);
    assert.equal(diff.changed, false);
    // The evidence record says it, so it is signed.
    assert.deepEqual(JSON.parse(diffRecord(diff).record).pixelsIgnored, {
      masked: ['aside.ad', '#clock'],
      notRecorded: [],
      maskedText: [],
      textNotRecorded: [],
    });

    // Without the selector the same two screenshots differ where the ad was and is.
    const plain = await diffCaptures(base, next, { ignoreSelectors: [], ignoreText: [] });
    assert.ok(plain.screenshot!.changedPixels >= 300 * 40, JSON.stringify(plain.screenshot));
    assert.deepEqual(plain.screenshot!.ignored, { masked: [], notRecorded: [], maskedText: [], textNotRecorded: [] });
  });

  it('still counts a change outside the masked boxes', async () => {
    const base = side('cap_a', screenshot(400, 300, [{ ...adBefore, shade: 0 }]), { 'aside.ad': [adBefore] });
    const next = side(
      'cap_b',
      screenshot(400, 300, [
        { ...adAfter, shade: 90 },
        { x: 0, y: 250, width: 50, height: 10, shade: 0 },
      ]),
      { 'aside.ad': [adAfter] },
    );
    const diff = await diffCaptures(base, next, { ignoreSelectors: ['aside.ad'], ignoreText: [] });
    assert.equal(diff.screenshot!.changedPixels, 50 * 10);
    assert.equal(diff.screenshot!.regionCount, 1);
    assert.ok(diff.screenshot!.regions[0]!.y >= 240);
  });

  it('says which selectors could not be masked: not recorded by one capture or by neither', () => {
    const masks = pixelMasks(
      { elementBoxes: { 'aside.ad': [adBefore] } },
      { elementBoxes: null },
      options.ignoreSelectors,
    );
    assert.deepEqual(masks, {
      ignoreBoxes: [],
      ignored: { masked: [], notRecorded: ['aside.ad', '#clock'], maskedText: [], textNotRecorded: [] },
    });
    const some = pixelMasks(
      { elementBoxes: { 'aside.ad': [adBefore] } },
      { elementBoxes: { 'aside.ad': [adAfter] } },
      options.ignoreSelectors,
    );
    assert.deepEqual(some, {
      ignoreBoxes: [adBefore, adAfter],
      ignored: { masked: ['aside.ad'], notRecorded: ['#clock'], maskedText: [], textNotRecorded: [] },
    });
    // An element that matched nothing is recorded (no boxes): masked, with nothing to mask.
    const none = pixelMasks({ elementBoxes: { '#clock': [] } }, { elementBoxes: { '#clock': [] } }, ['#clock']);
    assert.deepEqual(none, {
      ignoreBoxes: [],
      ignored: { masked: ['#clock'], notRecorded: [], maskedText: [], textNotRecorded: [] },
    });
  });
});

describe('ignoreText on pixels: the recorded boxes of the text’s matches are masked', () => {
  // A clock's text "Updated 10:42:07" drawn in a box that changed width as the time changed.
  const clock = 'Updated \\d+:\\d+:\\d+';
  const clockBefore = { x: 20, y: 200, width: 160, height: 20 };
  const clockAfter = { x: 20, y: 200, width: 176, height: 20 };
  const withText = (id: string, png: Uint8Array, textBoxes: CaptureSide['textBoxes']): CaptureSide => ({
    ...side(id, png, null),
    textBoxes,
  });

  it('masks the union of both captures’ text boxes and says the pattern was masked, in the signed record too', async () => {
    const base = withText('cap_a', screenshot(400, 300, [{ ...clockBefore, shade: 0 }]), { [clock]: [clockBefore] });
    const next = withText('cap_b', screenshot(400, 300, [{ ...clockAfter, shade: 60 }]), { [clock]: [clockAfter] });
    const diff = await diffCaptures(base, next, { ignoreSelectors: [], ignoreText: [clock] });
    assert.deepEqual(diff.screenshot!.ignored, {
      masked: [],
      notRecorded: [],
      maskedText: [clock],
      textNotRecorded: [],
    });
    assert.equal(diff.screenshot!.changedPixels, 0);
    assert.equal(diff.changed, false);
    assert.deepEqual(JSON.parse(diffRecord(diff).record).pixelsIgnored, {
      masked: [],
      notRecorded: [],
      maskedText: [clock],
      textNotRecorded: [],
    });
    // Without the pattern the clock's pixels count.
    const plain = await diffCaptures(base, next, { ignoreSelectors: [], ignoreText: [] });
    assert.ok(plain.screenshot!.changedPixels >= 160 * 20, JSON.stringify(plain.screenshot));
  });

  it('keeps patterns and selectors apart: a selector’s boxes never mask a pattern spelt alike', () => {
    const masks = pixelMasks(
      { elementBoxes: { clock: [clockBefore] }, textBoxes: null },
      { elementBoxes: { clock: [clockAfter] }, textBoxes: { clock: [clockAfter] } },
      [],
      ['clock'],
    );
    assert.deepEqual(masks, {
      ignoreBoxes: [],
      ignored: { masked: [], notRecorded: [], maskedText: [], textNotRecorded: ['clock'] },
    });
    const both = pixelMasks(
      { elementBoxes: { aside: [clockBefore] }, textBoxes: { [clock]: [] } },
      { elementBoxes: { aside: [clockBefore] }, textBoxes: { [clock]: [clockAfter] } },
      ['aside', 'nav'],
      [clock],
    );
    assert.deepEqual(both, {
      ignoreBoxes: [clockBefore, clockBefore, clockAfter],
      ignored: { masked: ['aside'], notRecorded: ['nav'], maskedText: [clock], textNotRecorded: [] },
    });
  });
});

describe('the watch’s notify rule with masked pixels', () => {
  const watch: WatchSettings = {
    notifyOn: 'change',
    minTextChange: 0,
    minPixelChange: null,
    ignoreSelectors: ['aside.ad'],
    ignoreText: [],
  };
  const pixelsOnly = {
    textBlocksAdded: 0,
    textBlocksRemoved: 0,
    textBlocksChanged: 0,
    textChangeRatio: 0,
    headersChanged: 0,
    resourcesAdded: 0,
    resourcesRemoved: 0,
    resourcesChanged: 0,
    pixelChangeRatio: 0.01,
    changedRegions: 1,
  };

  it('lets pixels alone notify when every ignoreSelector was masked', () => {
    assert.equal(notifies(watch, pixelsOnly, true), true);
    assert.equal(notifies(watch, { ...pixelsOnly, pixelChangeRatio: 0, changedRegions: 0 }, true), false);
  });

  it('keeps the rule otherwise: pixels alone need minPixelChange', () => {
    assert.equal(notifies(watch, pixelsOnly, false), false);
    assert.equal(notifies({ ...watch, ignoreSelectors: [] }, pixelsOnly, true), false);
    assert.equal(notifies({ ...watch, minPixelChange: 0.05 }, pixelsOnly, true), false);
    assert.equal(notifies({ ...watch, minPixelChange: 0.005 }, pixelsOnly, false), true);
  });

  it('counts ignoreText patterns too: a watch with only ignoreText, all masked, lets pixels alone notify', () => {
    const textOnly = { ...watch, ignoreSelectors: [], ignoreText: ['Updated \\d+:\\d+'] };
    assert.equal(notifies(textOnly, pixelsOnly, true), true);
    assert.equal(notifies(textOnly, pixelsOnly, false), false);
  });
});
