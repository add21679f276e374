/**
 * Tiny media made with ffmpeg at test time: a 3 s 160×120 H.264/AAC MP4 (progressive, faststart),
 * a 2 s MP3, and an HLS stream of the same clip in two renditions (160×120 and 320×240, 1 s MPEG-TS segments)
 * under a multivariant playlist, and a DASH stream (dash/manifest.mpd: one video and one audio
 * representation); and a server route that answers Range requests as media servers do.
 *
 *   const media = await makeTestMedia();   media.file('clip.mp4');   await media.remove();
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const HLS_RENDITIONS = [
  { name: 'low', size: '160x120', bandwidth: 200_000 },
  { name: 'high', size: '320x240', bandwidth: 600_000 },
] as const;

export interface TestMedia {
  dir: string;
  /** File names in `dir`: clip.mp4, tone.mp3, master.m3u8, low.m3u8, low_0.ts … */
  files: string[];
  file(name: string): Buffer;
  /** Segment file names of one rendition, in order. */
  segments(rendition: 'low' | 'high'): string[];
  remove(): Promise<void>;
}

const FFMPEG = ['-hide_banner', '-loglevel', 'error', '-y'];
const CLIP = [
  '-f',
  'lavfi',
  '-i',
  'testsrc=size=SIZE:rate=15:duration=3',
  '-f',
  'lavfi',
  '-i',
  'sine=frequency=440:duration=3',
];
const H264 = [
  '-c:v',
  'libx264',
  '-preset',
  'ultrafast',
  '-pix_fmt',
  'yuv420p',
  '-g',
  '15',
  '-c:a',
  'aac',
  '-b:a',
  '32k',
  '-shortest',
];

export async function makeTestMedia(): Promise<TestMedia> {
  const dir = await mkdtemp(join(tmpdir(), 'cl-media-'));
  const clip = (size: string) => CLIP.map((a) => a.replace('SIZE', size));
  await Promise.all([
    run('ffmpeg', [...FFMPEG, ...clip('160x120'), ...H264, '-movflags', '+faststart', join(dir, 'clip.mp4')]),
    run('ffmpeg', [
      ...FFMPEG,
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=660:duration=2',
      '-c:a',
      'libmp3lame',
      '-b:a',
      '32k',
      join(dir, 'tone.mp3'),
    ]),
    ...HLS_RENDITIONS.map((r) =>
      run('ffmpeg', [
        ...FFMPEG,
        ...clip(r.size),
        ...H264,
        '-f',
        'hls',
        '-hls_time',
        '1',
        '-hls_list_size',
        '0',
        '-hls_segment_filename',
        join(dir, `${r.name}_%d.ts`),
        join(dir, `${r.name}.m3u8`),
      ]),
    ),
  ]);
  // DASH: the 160×120 clip as one video and one audio representation, 1 s segments (SegmentTimeline).
  await mkdir(join(dir, 'dash'));
  await run('ffmpeg', [
    ...FFMPEG,
    ...clip('160x120'),
    ...H264,
    '-map',
    '0:v',
    '-map',
    '1:a',
    '-f',
    'dash',
    '-seg_duration',
    '1',
    join(dir, 'dash', 'manifest.mpd'),
  ]);
  const master = [
    '#EXTM3U',
    ...HLS_RENDITIONS.flatMap((r) => [
      `#EXT-X-STREAM-INF:BANDWIDTH=${r.bandwidth},RESOLUTION=${r.size},CODECS="avc1.42c00d,mp4a.40.2"`,
      `${r.name}.m3u8`,
    ]),
    '',
  ].join('\n');
  await writeFile(join(dir, 'master.m3u8'), master);
  const files = [
    ...(await readdir(dir)).filter((f) => f !== 'dash'),
    ...(await readdir(join(dir, 'dash'))).map((f) => `dash/${f}`),
  ];
  const bytes = new Map<string, Buffer>();
  for (const name of files) bytes.set(name, await readFile(join(dir, name)));
  return {
    dir,
    files,
    file: (name) => {
      const b = bytes.get(name);
      if (!b) throw new Error(`no test media ${name}`);
      return b;
    },
    segments: (rendition) =>
      bytes
        .get(`${rendition}.m3u8`)!
        .toString('utf8')
        .split('\n')
        .filter((line) => line.endsWith('.ts')),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

const TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  mp3: 'audio/mpeg',
  m3u8: 'application/vnd.apple.mpegurl',
  ts: 'video/mp2t',
  mpd: 'application/dash+xml',
  m4s: 'video/iso.segment',
};

/** What one 206 answer holds at most: like many media servers, a large file is served in chunks. */
export const MAX_RANGE_BYTES = 32 * 1024;

/**
 * Serves `name` as a media server does: Accept-Ranges, 206 for a Range request (at most MAX_RANGE_BYTES, so
 * a player reads clip.mp4 in more than one part), 200 otherwise.
 */
export function serveMedia(media: TestMedia, name: string, req: IncomingMessage, res: ServerResponse): void {
  let body: Buffer;
  try {
    body = media.file(name);
  } catch {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    return void res.end('no such media');
  }
  const type = TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream';
  const headers = { 'Content-Type': type, 'Accept-Ranges': 'bytes', 'Cache-Control': 'no-store' };
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  if (!range || (range[1] === '' && range[2] === '')) {
    res.writeHead(200, { ...headers, 'Content-Length': body.length });
    return void res.end(body);
  }
  const start = range[1] === '' ? Math.max(0, body.length - Number(range[2])) : Number(range[1]);
  const asked = range[1] !== '' && range[2] !== '' ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
  const end = Math.min(asked, start + MAX_RANGE_BYTES - 1);
  if (start > end || start >= body.length) {
    res.writeHead(416, { ...headers, 'Content-Range': `bytes */${body.length}` });
    return void res.end();
  }
  res.writeHead(206, {
    ...headers,
    'Content-Range': `bytes ${start}-${end}/${body.length}`,
    'Content-Length': end - start + 1,
  });
  res.end(body.subarray(start, end + 1));
}
