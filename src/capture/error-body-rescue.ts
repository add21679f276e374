/**
 * Bodies Chromium reads and then drops: a script, stylesheet or font that answers with an error status (a 404
 * page with a body) is cancelled by Blink as soon as its status is known (loadingFailed net::ERR_ABORTED), and
 * Network.getResponseBody has nothing to give. The WARC must still hold what the server sent, so
 * those three kinds of response are paused at the response stage (Fetch domain) and, when their status is an
 * error, their body is read before they go on. Everything else is not paused at all; a script or stylesheet
 * that answers 2xx/3xx goes on at once (one protocol round trip).
 */
import type { CDPSession, Protocol } from 'puppeteer-core';

/** Resource kinds whose error bodies Blink cancels (images, documents, fetch/XHR keep theirs). */
const DROPPED_ON_ERROR: Protocol.Network.ResourceType[] = ['Script', 'Stylesheet', 'Font'];

export interface ErrorBodyRescue {
  /** Stops pausing responses; paused ones are let go. */
  stop(): Promise<void>;
}

/**
 * Pauses the session's script, stylesheet and font responses; calls `onBody(networkRequestId, bytes)` with the
 * body of each that answered 400 or more. Call before navigating.
 */
export async function rescueErrorBodies(
  session: CDPSession,
  onBody: (networkRequestId: string, body: Buffer) => void,
): Promise<ErrorBodyRescue> {
  const onPaused = (e: Protocol.Fetch.RequestPausedEvent) => void handle(e);
  async function handle(e: Protocol.Fetch.RequestPausedEvent): Promise<void> {
    const status = e.responseStatusCode ?? 0;
    if (status >= 400 && e.networkId) {
      const read = await session.send('Fetch.getResponseBody', { requestId: e.requestId }).catch(() => undefined);
      if (read) onBody(e.networkId, Buffer.from(read.body, read.base64Encoded ? 'base64' : 'utf8'));
    }
    // A closed page or a request the browser already gave up on: nothing to let go.
    await session.send('Fetch.continueResponse', { requestId: e.requestId }).catch(() => {});
  }
  session.on('Fetch.requestPaused', onPaused);
  await session.send('Fetch.enable', {
    patterns: DROPPED_ON_ERROR.map((resourceType) => ({
      urlPattern: '*',
      resourceType,
      requestStage: 'Response' as const,
    })),
  });
  return {
    async stop() {
      session.off('Fetch.requestPaused', onPaused);
      await session.send('Fetch.disable').catch(() => {});
    },
  };
}
