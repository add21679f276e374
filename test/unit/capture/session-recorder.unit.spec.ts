import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CDPSession } from 'puppeteer-core';
import { concatList, framesInSpan, startSessionRecorder } from '../../../src/capture/session-recorder.js';

describe('session recording: which frames the video shows, and for how long', () => {
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

describe('session recorder over a scripted screencast (ffmpeg encodes it)', () => {
  /** A real JPEG of `color`, made by ffmpeg. */
  const jpeg = (color: string) =>
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      `color=${color}:s=64x40`,
      '-frames:v',
      '1',
      '-f',
      'mjpeg',
      'pipe:1',
    ]);

  /** The part of a CDP session the recorder uses: it records what is sent, and the test emits the frames. */
  function scriptedSession() {
    const events = new EventEmitter();
    const sent: string[] = [];
    const session = {
      on: (name: string, f: (...args: any[]) => void) => events.on(name, f),
      off: (name: string, f: (...args: any[]) => void) => events.off(name, f),
      send: async (method: string) => {
        sent.push(method);
        return {};
      },
    };
    return { session: session as unknown as CDPSession, events, sent };
  }

  it('past maxFrames keeps the newest frame last, counts the replaced ones, and acknowledges every frame', async () => {
    const { session, events, sent } = scriptedSession();
    const recorder = await startSessionRecorder(session, { width: 64, height: 40 }, { maxFrames: 2 });
    try {
      const start = Date.now();
      const colors = ['white', 'red', 'green', 'blue'];
      for (const [i, color] of colors.entries()) {
        events.emit('Page.screencastFrame', {
          data: jpeg(color).toString('base64'),
          sessionId: i + 1,
          metadata: { timestamp: (start + 100 * i) / 1000 },
        });
      }
      const recording = await recorder.finish({ startEpochMs: start, endEpochMs: start + 500 });
      assert.equal(recording.frames, 2);
      assert.equal(recording.framesDropped, 2);
      assert.equal(recording.durationMs, 500);
      assert.equal(sent.filter((m) => m === 'Page.screencastFrameAck').length, 4);
      assert.deepEqual(sent.slice(0, 1), ['Page.startScreencast']);
      assert.ok(sent.includes('Page.stopScreencast'));
      // The last frame shown is the newest (blue), at 300 ms, lasting to the end.
      const dir = await mkdtemp(join(tmpdir(), 'cl-recorder-unit-'));
      try {
        const file = join(dir, 'v.webm');
        await writeFile(file, recording.video);
        const times = execFileSync('ffprobe', [
          '-v',
          'error',
          '-show_entries',
          'packet=pts_time',
          '-of',
          'csv=p=0',
          file,
        ])
          .toString()
          .trim()
          .split('\n')
          .map(Number);
        assert.deepEqual(times, [0, 0.3, 0.499]);
        const last = execFileSync('ffmpeg', [
          '-v',
          'error',
          '-sseof',
          '-0.1',
          '-i',
          file,
          '-frames:v',
          '1',
          '-vf',
          'scale=1:1',
          '-f',
          'rawvideo',
          '-pix_fmt',
          'rgb24',
          'pipe:1',
        ]);
        assert.ok(last[2]! > 150 && last[0]! < 100 && last[1]! < 100, `last frame is blue: ${[...last]}`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    } finally {
      await recorder.dispose();
    }
  });
});
