import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as pkijs from 'pkijs';
import { TsaResponseError } from '../../../src/archive/errors.js';
import { createTsaClient } from '../../../src/archive/tsa-client.js';
import { startLocalTsa, type LocalTsa } from '../../../src/archive/local-tsa.js';
import * as asn1js from 'asn1js';
import { parseTimestampToken, readTokenTstInfo } from '../../../packages/verifier/src/index.js';

const digestOf = (text: string) => new Uint8Array(createHash('sha256').update(text).digest());

describe('TSA client against the local TSA', () => {
  let dir: string;
  let tsa: LocalTsa;
  let replay: Server;
  let replayUrl: string;
  let replayHits = 0;
  let recorded: Buffer | null = null;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tsa-client-'));
    tsa = await startLocalTsa({ dir: join(dir, 'tsa') });
    // Forwards the first request to the real TSA and replays that answer afterwards (stale nonce).
    replay = createServer(async (request, response) => {
      replayHits++;
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      if (!recorded) {
        const upstream = await fetch(tsa.url, {
          method: 'POST',
          headers: { 'content-type': 'application/timestamp-query' },
          body: Buffer.concat(chunks),
        });
        recorded = Buffer.from(await upstream.arrayBuffer());
      }
      response.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(recorded);
    });
    await new Promise<void>((resolve) => replay.listen(0, '127.0.0.1', resolve));
    replayUrl = `http://127.0.0.1:${(replay.address() as AddressInfo).port}/`;
  });

  after(async () => {
    await tsa.close();
    await new Promise<void>((resolve) => replay.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it('returns a token whose imprint is the digest and whose genTime is now', async () => {
    const before = Date.now();
    const result = await createTsaClient({ url: tsa.url }).timestamp(digestOf('a'));
    const token = parseTimestampToken(result.token);
    assert.deepEqual(token.imprint, digestOf('a'));
    assert.equal(result.genTime, token.genTime.toISOString());
    assert.ok(Math.abs(Date.parse(result.genTime) - before) < 5_000);
    assert.equal(result.tsa, tsa.url);
    assert.ok(token.nonce !== null && token.nonce > 0n);
    // What the client checks of a reply, read without the rest of the SignedData, is what the full parse reads.
    const contentInfo = new pkijs.ContentInfo({ schema: asn1js.fromBER(new Uint8Array(result.token).buffer).result });
    const { signedData: _, ...tstInfo } = token;
    assert.deepEqual(readTokenTstInfo(contentInfo), tstInfo);
  });

  it('refuses a replayed reply (nonce not echoed) at once, without retrying', async () => {
    const client = createTsaClient({ url: replayUrl, attempts: 3, backoffMs: 5 });
    await client.timestamp(digestOf('b'));
    replayHits = 0;
    await assert.rejects(client.timestamp(digestOf('b')), (error: unknown) => {
      assert.ok(error instanceof TsaResponseError);
      assert.equal(error.code, 'TSA_BAD_RESPONSE');
      assert.match(error.message, /nonce/);
      return true;
    });
    assert.equal(replayHits, 1);
  });

  it('keeps its CA across restarts and its key file private', async () => {
    const again = await startLocalTsa({ dir: join(dir, 'tsa') });
    try {
      assert.equal(again.caCertPem, tsa.caCertPem);
      assert.notEqual(again.url, tsa.url);
    } finally {
      await again.close();
    }
    for (const name of await readdir(join(dir, 'tsa'))) {
      assert.equal((await stat(join(dir, 'tsa', name))).mode & 0o077, 0, `${name} is private`);
    }
  });

  it('answers a malformed request with a PKIStatus rejection; the client refuses non-SHA-256 digests', async () => {
    const response = await fetch(tsa.url, {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query' },
      body: Buffer.from('garbage'),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/timestamp-reply');
    const reply = pkijs.TimeStampResp.fromBER(await response.arrayBuffer());
    assert.equal(reply.status.status, pkijs.PKIStatus.rejection);
    assert.equal(reply.timeStampToken, undefined);
    await assert.rejects(createTsaClient({ url: tsa.url }).timestamp(new Uint8Array(31)), TypeError);
  });
});
