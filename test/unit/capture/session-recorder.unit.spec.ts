import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { concatList, framesInSpan } from '../../../src/capture/session-recorder.js';

describe('session recording: which frames the video shows, and for how long (issue 35 §3)', () => {
  const start = 1_800_000_000_000;

  it('puts the video 0 at the start: the last frame drawn before it stands from 0, later ones at their own time', () => {
    const shown = framesInSpan(
      [
        { file: 'f000002.jpg', at: start + 120.4 },
        { file: 'f000000.jpg', at: start - 300 },
        { file: 'f000001.jpg', at: start - 20 },
        { file: 'f000003.jpg', at: start + 650 },
        { file: 'f000004.jpg', at: start + 2500 },
      ],
      start,
      start + 2000,
    );
    assert.deepEqual(shown, [
      { file: 'f000001.jpg', atMs: 0 },
      { file: 'f000002.jpg', atMs: 120 },
      { file: 'f000003.jpg', atMs: 650 },
    ]);
  });

  it('lets the first frame stand from 0 when nothing was drawn before the start', () => {
    const shown = framesInSpan([{ file: 'a.jpg', at: start + 16 }], start, start + 700);
    assert.deepEqual(shown, [{ file: 'a.jpg', atMs: 0 }]);
  });

  it('keeps the later of two frames drawn in the same millisecond', () => {
    const shown = framesInSpan(
      [
        { file: 'a.jpg', at: start + 10.1 },
        { file: 'b.jpg', at: start + 10.3 },
      ],
      start,
      start + 50,
    );
    assert.deepEqual(shown, [{ file: 'b.jpg', atMs: 0 }]);
  });

  it('gives each frame the time to the next, the last one the time to the end, at millisecond precision', () => {
    const list = concatList(
      [
        { file: 'a.jpg', atMs: 0 },
        { file: 'b.jpg', atMs: 120 },
        { file: 'c.jpg', atMs: 697 },
      ],
      2001,
    );
    assert.equal(
      list,
      [
        'ffconcat version 1.0',
        "file 'a.jpg'",
        'option framerate 1000',
        'duration 0.120',
        "file 'b.jpg'",
        'option framerate 1000',
        'duration 0.577',
        "file 'c.jpg'",
        'option framerate 1000',
        'duration 1.303',
        "file 'c.jpg'",
        'option framerate 1000',
        '',
      ].join('\n'),
    );
  });

  it('still ends after the last frame when it was drawn at the very end', () => {
    const list = concatList([{ file: 'a.jpg', atMs: 0 }], 0);
    assert.match(list, /duration 0\.001\nfile 'a\.jpg'/);
  });
});
