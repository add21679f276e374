/**
 * Out-of-process frames (cross-site iframes, rendered by their own renderer) have their own CDP session; the
 * page's session does not see their subresource traffic. This hands each such frame's session to the network
 * recorder as the frame attaches, and tells it when the frame goes away.
 */
import type { CDPSession, Frame, Page } from 'puppeteer-core';
import type { NetworkRecorder } from './network-recorder.js';

/** Follows the page's out-of-process frames until the returned function is called. */
export function recordOutOfProcessFrames(page: Page, recorder: NetworkRecorder): () => void {
  const own = sessionOf(page.mainFrame());
  const known = new Map<Frame, CDPSession>();
  const onAttached = (frame: Frame) => {
    const frameSession = sessionOf(frame);
    if (!frameSession || frameSession === own) return;
    known.set(frame, frameSession);
    void recorder.addSession(frameSession);
  };
  // A frame that moves to another process gets a new session: puppeteer reports it as navigated/swapped.
  const onNavigated = (frame: Frame) => {
    if (!known.has(frame) || sessionOf(frame) !== known.get(frame)) onAttached(frame);
  };
  const onDetached = (frame: Frame) => {
    const frameSession = known.get(frame);
    if (frameSession) recorder.sessionGone(frameSession);
    known.delete(frame);
  };
  page.on('frameattached', onAttached);
  page.on('framenavigated', onNavigated);
  page.on('framedetached', onDetached);
  return () => {
    page.off('frameattached', onAttached);
    page.off('framenavigated', onNavigated);
    page.off('framedetached', onDetached);
  };
}

/** Puppeteer keeps a frame's session on its CDP frame without a public accessor (as consent-handler.ts reads it). */
function sessionOf(frame: Frame): CDPSession | undefined {
  return (frame as unknown as { client?: CDPSession }).client;
}
