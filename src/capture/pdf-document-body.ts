/**
 * A target that is a PDF (docs/capturing.md, Capture options). Chromium shows a PDF in its viewer, and CDP's getResponseBody
 * then returns the viewer's wrapper HTML, not the document: archived as is, the WACZ would hold the wrong
 * bytes under `application/pdf`. The document is loaded once more through the browser's own network stack
 * (Network.loadNetworkResource: same proxy, same cookies of the capture's context) and its bytes replace
 * the wrapper. Images need nothing: their response body is the image.
 */
import type { CDPSession } from 'puppeteer-core';
import type { NetworkExchange } from '../domain/network-exchange.js';

const MAX_PDF_BYTES = 50 * 1024 * 1024;

/** The exchange of the main document when it is a PDF whose recorded body is not one. */
export function viewerWrappedPdf(exchanges: NetworkExchange[], finalUrl: string): NetworkExchange | undefined {
  const main = exchanges.find((e) => e.url === finalUrl && e.status >= 200 && e.status < 300);
  if (!main) return undefined;
  const type = main.responseHeaders.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  if (!/^application\/(x-)?pdf\b/i.test(type.trim())) return undefined;
  return main.body.subarray(0, 5).toString('latin1') === '%PDF-' ? undefined : main;
}

export async function loadDocumentBytes(session: CDPSession, frameId: string, url: string): Promise<Buffer> {
  const { resource } = await session.send('Network.loadNetworkResource', {
    frameId,
    url,
    options: { disableCache: false, includeCredentials: true },
  });
  if (!resource.success || !resource.stream) {
    throw new Error(`reloading the PDF failed: ${resource.netErrorName ?? `HTTP ${resource.httpStatusCode ?? '?'}`}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for (;;) {
      const chunk = await session.send('IO.read', { handle: resource.stream, size: 1024 * 1024 });
      const bytes = Buffer.from(chunk.data, chunk.base64Encoded ? 'base64' : 'utf8');
      size += bytes.byteLength;
      if (size > MAX_PDF_BYTES) throw new Error(`the PDF is larger than ${MAX_PDF_BYTES} bytes`);
      chunks.push(bytes);
      if (chunk.eof) break;
    }
  } finally {
    await session.send('IO.close', { handle: resource.stream }).catch(() => {});
  }
  return Buffer.concat(chunks);
}
