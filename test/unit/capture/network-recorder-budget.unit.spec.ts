import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { CDPSession } from 'puppeteer-core';
import { createNetworkRecorder } from '../../../src/capture/network-recorder.js';

/** A CDP session stand-in: events are emitted by the test; getResponseBody answers when the test says so. */
function fakeSession() {
  const events = new EventEmitter();
  const bodies = new Map<string, { resolve: (body: string) => void; promise: Promise<string> }>();
  const bodyOf = (id: string) => {
    if (!bodies.has(id)) {
      let resolve!: (body: string) => void;
      const promise = new Promise<string>((r) => (resolve = r));
      bodies.set(id, { resolve, promise });
    }
    return bodies.get(id)!;
  };
  const session = {
    on: (e: string, f: (...a: unknown[]) => void) => events.on(e, f),
    off: (e: string, f: (...a: unknown[]) => void) => events.off(e, f),
    send: async (method: string, params?: { requestId: string }) =>
      method === 'Network.getResponseBody'
        ? { body: await bodyOf(params!.requestId).promise, base64Encoded: false }
        : {},
  } as unknown as CDPSession;
  const request = (requestId: string, url: string, type: string) => {
    events.emit('Network.requestWillBeSent', {
      requestId,
      loaderId: type === 'Document' ? requestId : 'loader',
      frameId: 'main',
      type,
      wallTime: 1,
      request: { url, method: 'GET', headers: {} },
    });
    events.emit('Network.responseReceived', {
      requestId,
      response: { url, status: 200, statusText: 'OK', headers: {}, protocol: 'http/1.1' },
    });
    events.emit('Network.loadingFinished', { requestId });
  };
  return { session, request, answer: (id: string, body: string) => bodyOf(id).resolve(body) };
}

describe('network recorder body budget', () => {
  it('keeps the main document when its body is read after sub-resources that filled the budget', async () => {
    const fake = fakeSession();
    const recorder = createNetworkRecorder(fake.session, { mainFrameId: 'main', maxBodyBytes: 400 });
    await recorder.start();
    fake.request('doc', 'http://site.test/', 'Document');
    fake.request('css', 'http://site.test/a.css', 'Stylesheet');
    fake.request('img', 'http://site.test/b.png', 'Image');
    // The sub-resources' bodies come back first (a busy machine), then the document's.
    fake.answer('css', 'c'.repeat(200));
    fake.answer('img', 'i'.repeat(150));
    await new Promise((r) => setImmediate(r));
    fake.answer('doc', 'd'.repeat(300));
    const { exchanges, notes } = await recorder.finish(1000);
    const byPath = new Map(exchanges.map((e) => [new URL(e.url).pathname, e.body.length]));
    assert.equal(byPath.get('/'), 300, 'the main document is kept');
    assert.ok([...byPath.values()].reduce((a, b) => a + b, 0) <= 400);
    assert.ok(!byPath.get('/b.png'), 'the sub-resource kept last gave way');
    assert.ok(
      notes.some((n) => /budget/.test(n)),
      notes.join('; '),
    );
    recorder.dispose();
  });

  it('records a response whose body it does not have, marked WARC-Truncated, and names requests that got no response', async () => {
    const fake = fakeSession();
    const recorder = createNetworkRecorder(fake.session, { mainFrameId: 'main', maxBodyBytes: 400 });
    await recorder.start();
    fake.request('doc', 'http://site.test/', 'Document');
    fake.request('gone', 'http://site.test/missing.png', 'Image'); // its body read never answers
    fake.answer('doc', '<html></html>');
    const { exchanges, notes } = await recorder.finish(50);
    const missing = exchanges.find((e) => e.url === 'http://site.test/missing.png');
    assert.ok(missing, 'the response has a record');
    assert.equal(missing.body.length, 0);
    assert.equal(missing.truncated, 'unspecified');
    assert.equal(exchanges.find((e) => e.url === 'http://site.test/')?.truncated, undefined);
    assert.ok(
      notes.some((n) => /without their body/.test(n)),
      notes.join('; '),
    );
    recorder.dispose();
  });
});
