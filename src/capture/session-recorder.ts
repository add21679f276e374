/**
 * The recording of a capture session (`options.recordSession`): what the browser showed from the
 * start of navigation to the screenshot, as a WebM video on the capture's clock.
 *
 * Frames come from Chromium's screencast (`Page.startScreencast`): a JPEG each time the compositor draws a new
 * frame of the page, stamped with the time it was drawn. So a page that does not change costs nothing between
 * its frames, and each frame stays on screen exactly until the next one, as it did in the browser. Frames go to
 * a private temporary directory as they come; at the end ffmpeg reads them through its concat demuxer with
 * each frame's own duration (variable frame rate, millisecond time base) and encodes VP8 at its realtime
 * setting. The video's 0 is the start of navigation, its end the moment the screenshot was taken, and
 * its `creation_time` is the start of navigation in UTC: a time t in the video is `startedAt` + t.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CDPSession, Protocol } from 'puppeteer-core';
import { CaptureError } from './capture-error.js';

export const SESSION_VIDEO_MEDIA_TYPE = 'video/webm';

/**
 * At most this many frames are kept (≈ 100 s at 30 frames a second); past it each new frame replaces the last one
 * kept, so the video still ends on what the screen showed last, and the frames it replaced are counted.
 */
export const MAX_SESSION_FRAMES = 3000;
const JPEG_QUALITY = 80;
/** VP8's realtime speed and a quality target fit for text on screen; the bit rate is the ceiling crf works under. */
const ENCODER_ARGS = ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-crf', '10', '-b:v', '1M'];
const FFMPEG_TIMEOUT_MS = 60_000;

export interface SessionRecording {
  /** The WebM file. */
  video: Buffer;
  /** When the video's 0 was (the start of navigation), ISO 8601 UTC. */
  startedAt: string;
  /** Video length in ms: from the start of navigation to the screenshot. */
  durationMs: number;
  /** Frames the browser drew and the video shows. */
  frames: number;
  /** Frames drawn past MAX_SESSION_FRAMES that a later one replaced: not in the video. */
  framesDropped: number;
}

export interface SessionRecorder {
  /**
   * Ends the recording at `endEpochMs` (the screenshot) with its 0 at `startEpochMs` (the start of navigation),
   * both epoch ms of this host's clock, like Chromium's frame times; answers the encoded video.
   */
  finish(span: { startEpochMs: number; endEpochMs: number }, signal?: AbortSignal): Promise<SessionRecording>;
  /** Stops the screencast if it still runs and removes the frames; safe to call more than once. */
  dispose(): Promise<void>;
}

interface Frame {
  file: string;
  /** Epoch ms the frame was drawn. */
  at: number;
}

/** Starts the screencast of the page `session` belongs to, at most `size` CSS px (the viewport). */
export async function startSessionRecorder(
  session: CDPSession,
  size: { width: number; height: number },
  options: { ffmpegPath?: string; maxFrames?: number } = {},
): Promise<SessionRecorder> {
  const maxFrames = options.maxFrames ?? MAX_SESSION_FRAMES;
  const dir = await mkdtemp(join(tmpdir(), 'cl-session-'));
  const frames: Frame[] = [];
  const writes: Array<Promise<void>> = [];
  let received = 0;
  let dropped = 0;
  let stopped = false;
  let removed: Promise<void> | undefined;
  // Disposing stops an encoding still running (a capture that failed meanwhile).
  const disposed = new AbortController();

  const onFrame = (event: Protocol.Page.ScreencastFrameEvent) => {
    session.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => {});
    if (stopped) return;
    const at = event.metadata.timestamp !== undefined ? event.metadata.timestamp * 1000 : Date.now();
    const file = `f${String(received++).padStart(6, '0')}.jpg`;
    if (frames.length >= maxFrames) {
      frames[frames.length - 1] = { file, at };
      dropped++;
    } else frames.push({ file, at });
    writes.push(writeFile(join(dir, file), Buffer.from(event.data, 'base64')));
  };
  session.on('Page.screencastFrame', onFrame);

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    session.off('Page.screencastFrame', onFrame);
    await session.send('Page.stopScreencast').catch(() => {});
  };

  try {
    await session.send('Page.startScreencast', {
      format: 'jpeg',
      quality: JPEG_QUALITY,
      maxWidth: size.width,
      maxHeight: size.height,
      everyNthFrame: 1,
    });
  } catch (error) {
    session.off('Page.screencastFrame', onFrame);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    async finish({ startEpochMs, endEpochMs }, signal) {
      await stop();
      await Promise.all(writes);
      const shown = framesInSpan(frames, startEpochMs, endEpochMs);
      if (shown.length === 0)
        throw new CaptureError('capture_failed', 'The browser drew no frame to record the session from', true);
      const output = join(dir, 'session.webm');
      await writeFile(join(dir, 'frames.ffconcat'), concatList(shown, endEpochMs - startEpochMs));
      await runFfmpeg(
        options.ffmpegPath ?? 'ffmpeg',
        ffmpegArgs(size, new Date(startEpochMs).toISOString()),
        dir,
        signal ? AbortSignal.any([signal, disposed.signal]) : disposed.signal,
      );
      return {
        video: await readFile(output),
        startedAt: new Date(startEpochMs).toISOString(),
        durationMs: Math.round(endEpochMs - startEpochMs),
        frames: shown.length,
        framesDropped: dropped,
      };
    },
    async dispose() {
      disposed.abort(new Error('session recorder disposed'));
      await stop();
      removed ??= Promise.allSettled(writes).then(() => rm(dir, { recursive: true, force: true }));
      await removed;
    },
  };
}

/** A frame in the video: its file and its time from the video's 0, in ms. */
export interface ShownFrame {
  file: string;
  atMs: number;
}

/**
 * The frames the video shows: those drawn before the start are what the screen showed at the start (only the
 * last of them counts, at 0), and the first frame stands from 0; those drawn after the end are not shown.
 * Times from the start, increasing.
 */
export function framesInSpan(frames: ReadonlyArray<Frame>, startEpochMs: number, endEpochMs: number): ShownFrame[] {
  const sorted = [...frames].sort((a, b) => a.at - b.at);
  const shown: ShownFrame[] = [];
  for (const frame of sorted) {
    if (frame.at > endEpochMs) break;
    const atMs = Math.max(0, Math.round(frame.at - startEpochMs));
    if (shown.length > 0 && shown.at(-1)!.atMs === atMs) shown[shown.length - 1] = { file: frame.file, atMs };
    else shown.push({ file: frame.file, atMs });
  }
  // Nothing was drawn between the start and the first frame: the screen showed it (the page navigation left).
  if (shown.length > 0) shown[0] = { ...shown[0]!, atMs: 0 };
  return shown;
}

/**
 * ffmpeg's concat script: each frame lasts until the next one, the last until the end. The image demuxer is
 * told a 1000 fps rate so durations keep their milliseconds (its default 25 fps would round them to 40 ms);
 * the last frame is listed once more, 1 ms before the end, so its duration is kept and the video ends there.
 */
export function concatList(shown: ReadonlyArray<ShownFrame>, durationMs: number): string {
  const end = Math.max(durationMs, shown.at(-1)!.atMs + 2);
  const lines = ['ffconcat version 1.0'];
  const entry = (file: string, ms?: number) => {
    lines.push(`file '${file}'`, 'option framerate 1000');
    if (ms !== undefined) lines.push(`duration ${(ms / 1000).toFixed(3)}`);
  };
  for (const [i, frame] of shown.entries()) entry(frame.file, (shown[i + 1]?.atMs ?? end - 1) - frame.atMs);
  entry(shown.at(-1)!.file);
  return `${lines.join('\n')}\n`;
}

function ffmpegArgs(size: { width: number; height: number }, startedAt: string): string[] {
  // Frames keep the page's aspect ratio within `size`; the video is `size`, even in both directions (yuv420p).
  const width = size.width - (size.width % 2);
  const height = size.height - (size.height % 2);
  const fit = `scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:0:0:white,format=yuv420p`;
  return [
    ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y'],
    ['-f', 'concat', '-safe', '0', '-i', 'frames.ffconcat'],
    ['-an', '-vf', fit, '-fps_mode', 'passthrough', '-enc_time_base', '1/1000'],
    ['-threads', '1', ...ENCODER_ARGS],
    ['-metadata', `creation_time=${startedAt}`, '-metadata', 'title=Capture Ledger session recording'],
    ['session.webm'],
  ].flat();
}

async function runFfmpeg(ffmpeg: string, args: string[], cwd: string, signal?: AbortSignal): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(ffmpeg, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], signal, timeout: FFMPEG_TIMEOUT_MS });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) =>
      reject(
        signal?.aborted
          ? error
          : new CaptureError('capture_failed', 'The session recording could not be encoded', true, { cause: error }),
      ),
    );
    child.on('close', (code, killed) => {
      if (code === 0) return resolve();
      reject(
        new CaptureError('capture_failed', 'The session recording could not be encoded', true, {
          cause: new Error(`ffmpeg exited with ${code ?? killed}: ${stderr.trim()}`),
        }),
      );
    });
  });
}
