import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeTestMedia, serveMedia } from '../../test/support/test-media.js';

/**
 * A page with a video for the capture-latency bench: /video.html holds a 3 s H.264 clip (test-media.ts, made
 * with ffmpeg) under a short article, and the clip is served as media servers serve it (Range answers in
 * 32 KB parts), so a player reads it in pieces and the capture's auto-play has it fetched whole.
 */
export interface MediaPage {
  url: string;
  close(): Promise<void>;
}

const VIDEO_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>A page with a video</title>
<style>body { margin: 0; font: 18px/1.5 serif } article { padding: 20px 40px }</style></head>
<body><article><h1>A page with a video</h1>
<video src="/media/clip.mp4" width="640" height="480" controls></video>
<p>${'Text around the video. '.repeat(40)}</p></article></body></html>`;

export async function startMediaPage(host = '127.0.0.1'): Promise<MediaPage> {
  const media = await makeTestMedia();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/media/')) return serveMedia(media, path.slice('/media/'.length), req, res);
    const [status, body] = path === '/video.html' ? [200, VIDEO_PAGE] : [404, 'not found'];
    res.writeHead(status, { 'Content-Type': status === 200 ? 'text/html; charset=utf-8' : 'text/plain' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/video.html`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await media.remove();
    },
  };
}
