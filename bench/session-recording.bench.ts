import { readFile } from 'node:fs/promises';
import { launchChromium } from '../src/capture/browser-launch.js';
import { capturePage } from '../src/capture/page-capture.js';
import { DEFAULT_CAPTURE_SETTINGS } from '../src/domain/capture-options.js';
import { startFixtureSite } from '../test/support/fixture-site.js';
import type { BenchLine } from './registry.js';
import { envCount, round } from './support/bench-kit.js';
import { watchTreeCpu } from './support/process-cpu.js';
import { startStaticPages } from './support/static-pages.js';

/**
 * What `options.recordSession` costs. The capture engine (capturePage, as the worker runs it) in
 * this process against one Chromium, captures with and without the recording alternated on each page:
 * /plain.html (text, three viewports: the scroll is all that moves), /lazy (lazy images found by the scroll) and
 * /animated.html (a box moving without end: a new frame all the time, the worst case).
 *
 * CPU per capture: this node process (process.cpuUsage: the capture's own work, the frames' decoding and
 * writing), Chromium's process tree (sampled from /proc: the screencast's JPEG encoding), and ffmpeg (the
 * encoding, exactly: the CPU of reaped children from /proc/self/stat, and ffmpeg is the only child this process
 * reaps). Bytes per second of page: the video's size over its length (navigation to screenshot).
 *
 * BENCH_SESSION_CAPTURES (default 6): captures per page and side, after one warm-up each.
 */
export async function sessionRecordingBench(): Promise<BenchLine[]> {
  const count = envCount('BENCH_SESSION_CAPTURES', 6);
  const site = await startFixtureSite();
  const pages = await startStaticPages();
  const chromium = await launchChromium({ chromiumPath: process.env.CHROMIUM_PATH });
  const targets: Array<[string, string]> = [
    ['/plain.html', pages.urlOf('/plain.html')],
    ['/lazy', site.url('/lazy')],
    ['/animated.html', pages.urlOf('/animated.html')],
  ];
  const lines: BenchLine[] = [];
  try {
    for (const [name, url] of targets) {
      const one = async (recordSession: boolean) => {
        const node = process.cpuUsage();
        const children = await reapedChildrenCpuMs();
        const tree = await watchTreeCpu(chromium.pid!, { rootKind: 'chromium:browser' });
        const started = performance.now();
        const result = await capturePage(chromium.browser, url, {
          timeoutMs: 20_000,
          settings: { ...DEFAULT_CAPTURE_SETTINGS, recordSession },
        });
        const wallMs = performance.now() - started;
        await new Promise((resolve) => setTimeout(resolve, 200)); // the context's renderer winds down
        const chromiumMs = Object.values(await tree.stop()).reduce((a, b) => a + b, 0);
        const spent = process.cpuUsage(node);
        return {
          wallMs,
          nodeMs: (spent.user + spent.system) / 1000,
          chromiumMs,
          ffmpegMs: (await reapedChildrenCpuMs()) - children,
          recording: result.sessionRecording,
        };
      };
      await one(false);
      await one(true);
      const off: Awaited<ReturnType<typeof one>>[] = [];
      const on: Awaited<ReturnType<typeof one>>[] = [];
      for (let i = 0; i < count; i++) {
        off.push(await one(false));
        on.push(await one(true));
      }
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const total = (r: (typeof off)[number]) => r.nodeMs + r.chromiumMs + r.ffmpegMs;
      const recordings = on.map((r) => r.recording!);
      const videoBytes = mean(recordings.map((r) => r.video.byteLength));
      const videoMs = mean(recordings.map((r) => r.durationMs));
      lines.push({
        figure: 'session recording: CPU ms per capture, without → with recordSession',
        page: name,
        captures: count,
        node: [round(mean(off.map((r) => r.nodeMs))), round(mean(on.map((r) => r.nodeMs)))],
        chromium: [round(mean(off.map((r) => r.chromiumMs))), round(mean(on.map((r) => r.chromiumMs)))],
        ffmpeg: [round(mean(off.map((r) => r.ffmpegMs))), round(mean(on.map((r) => r.ffmpegMs)))],
        total: [round(mean(off.map(total))), round(mean(on.map(total)))],
        extraCpuMs: round(mean(on.map(total)) - mean(off.map(total))),
        ratio: round(mean(on.map(total)) / mean(off.map(total)), 2),
        ratioIs: 'CPU per capture with / without the recording',
        wallMs: [round(mean(off.map((r) => r.wallMs))), round(mean(on.map((r) => r.wallMs)))],
      });
      lines.push({
        figure: 'session recording: the video',
        page: name,
        videoMs: round(videoMs),
        frames: round(mean(recordings.map((r) => r.frames)), 1),
        framesPerSecond: round((mean(recordings.map((r) => r.frames)) * 1000) / videoMs, 1),
        bytes: Math.round(videoBytes),
        bytesPerSecondOfPage: Math.round((videoBytes * 1000) / videoMs),
      });
    }
    return lines;
  } finally {
    await chromium.close();
    await pages.close();
    await site.close();
  }
}

/** CPU ms of this process's children that have exited and been reaped (cutime + cstime of /proc/self/stat). */
async function reapedChildrenCpuMs(): Promise<number> {
  const stat = await readFile('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // cutime and cstime are fields 16 and 17 (1-based, as proc(5) counts); fields[] starts at field 3.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}
