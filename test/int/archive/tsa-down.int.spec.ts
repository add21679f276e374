import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { TsaUnavailableError } from '../../../src/archive/errors.js';
import { localNotary } from '../../../src/archive/notary.js';
import { createTsaClient } from '../../../src/archive/tsa-client.js';
import { verifyBundle } from '../../../packages/verifier/src/index.js';
import { publishedKeys, sampleCapture, signedBundle, testKey } from '../../unit/archive/bundle-fixture.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** A TSA that is down never costs the capture: retries, then a v0.1.0 bundle with timestampError. */
describe('TSA down', () => {
  let hits = 0;
  let failing: Server;
  let failingUrl: string;
  let closedUrl: string;

  before(async () => {
    failing = createServer((request, response) => {
      hits++;
      request.resume();
      response.writeHead(503).end('maintenance');
    });
    failingUrl = await listen(failing);
    const gone = createServer();
    closedUrl = await listen(gone);
    await new Promise<void>((resolve) => gone.close(() => resolve()));
  });

  after(async () => {
    await new Promise<void>((resolve) => failing.close(() => resolve()));
  });

  it('retries 3 times on 503, then builds a verifiable v0.1.0 bundle and reports timestampError', async () => {
    hits = 0;
    const bundle = await signedBundle(
      sampleCapture(),
      localNotary(testKey(), { timestamper: createTsaClient({ url: failingUrl, attempts: 3, backoffMs: 10 }) }),
    );
    assert.equal(hits, 3);
    assert.equal(bundle.ref.version, '0.1.0');
    assert.equal(bundle.timestamp, undefined);
    assert.match(bundle.timestampError ?? '', /unavailable after 3 attempts: HTTP 503/);
    const result = await verifyBundle(bundle.bytes, { keys: publishedKeys(), tsaCaCertsPem: [] });
    assert.equal(result.version, '0.1.0');
    assert.equal(result.verified, true);
    assert.deepEqual(
      result.checks.map((c) => c.name),
      ['artifactHashes', 'bundleHash', 'signature'],
    );
  });

  it('throws a typed TsaUnavailableError when nothing listens', async () => {
    const client = createTsaClient({ url: closedUrl, attempts: 2, backoffMs: 5 });
    await assert.rejects(client.timestamp(new Uint8Array(32)), (error: unknown) => {
      assert.ok(error instanceof TsaUnavailableError);
      assert.equal(error.code, 'TSA_UNAVAILABLE');
      assert.equal(error.attempts, 2);
      return true;
    });
    const bundle = await signedBundle(sampleCapture(), localNotary(testKey(), { timestamper: client }));
    assert.equal(bundle.ref.version, '0.1.0');
    assert.ok(bundle.timestampError);
  });

  it("rethrows with onTimestampFailure 'throw'", async () => {
    await assert.rejects(
      signedBundle(
        sampleCapture(),
        localNotary(testKey(), { timestamper: createTsaClient({ url: closedUrl, attempts: 1 }) }),
        { onTimestampFailure: 'throw' },
      ),
      TsaUnavailableError,
    );
  });
});
