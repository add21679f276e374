// A target that is not HTML : a PDF or an image is captured — the response itself archived,
// a screenshot of what the browser shows — and for a PDF the archived body is the document, not the
// wrapper page of Chromium's PDF viewer.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { capturePage } from '../../../src/capture/page-capture.js';
import { launchChromium, type LaunchedChromium } from '../../../src/capture/browser-launch.js';

const PDF = Buffer.from(
  '%PDF-1.1\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);
// 1×1 PNG
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const T = { timeout: 30_000 };

describe('capturing a PDF or an image', () => {
  let server: Server;
  let origin: string;
  let chromium: LaunchedChromium;

  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/doc.pdf') return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
      if (req.url === '/image.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('a PDF: complete, the archived response body is the PDF itself', T, async () => {
    const result = await capturePage(chromium.browser, `${origin}/doc.pdf`, {
      timeoutMs: 10_000,
      handleConsent: false,
    });
    assert.equal(result.renderQuality, 'full');
    assert.equal(result.mainStatus, 200);
    const main = result.exchanges.find((e) => e.url === `${origin}/doc.pdf`);
    assert.ok(main);
    assert.ok(main.body.equals(PDF), `archived body: ${JSON.stringify(main.body.subarray(0, 40).toString('latin1'))}`);
    assert.ok(result.screenshot.length > 0);
  });

  it('an image: complete, the archived response body is the image', T, async () => {
    const result = await capturePage(chromium.browser, `${origin}/image.png`, {
      timeoutMs: 10_000,
      handleConsent: false,
    });
    assert.equal(result.renderQuality, 'full');
    const main = result.exchanges.find((e) => e.url === `${origin}/image.png`);
    assert.ok(main?.body.equals(PNG));
    assert.ok(result.screenshot.length > 0);
  });
});
