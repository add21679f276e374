import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pino from 'pino';
import { makeBundle } from '../../../src/archive/bundle.js';
import nacl from 'tweetnacl';
import {
  certificateMessage,
  parseTimestampToken,
  sha256Prefixed,
  verifyBundle,
} from '../../../packages/verifier/src/index.js';
import { localNotary, NotaryRefusal } from '../../../src/archive/notary.js';
import { NOTARY_SUBJECTS, remoteNotary, serveNotary } from '../../../src/archive/notary-service.js';
import { startLocalTsa, type LocalTsa } from '../../../src/archive/local-tsa.js';
import { signingKeyFromSeed } from '../../../src/archive/signing-key.js';
import { createTsaClient } from '../../../src/archive/tsa-client.js';
import { freePort } from '../../../src/infra/free-port.js';
import { startNatsOnly } from '../../support/harness.js';
import { startServiceProcess } from '../../support/service-process.js';
import { publishedKeys, sampleCapture, TEST_SEED, testKey } from '../../unit/archive/bundle-fixture.js';

/**
 * The signer role over a real nats-server: the worker's side (remoteNotary) has no key, builds the WACZ
 * itself and gets a timestamp and a signature for its hash; the bundle verifies like one signed in place.
 */
describe('notary service (signer role) over NATS', () => {
  let infra: Awaited<ReturnType<typeof startNatsOnly>>;
  let signerConn: NatsConnection;
  let workerConn: NatsConnection;
  let tsa: LocalTsa;
  let tsaDir: string;
  let service: { stop(): Promise<void> };
  const log = pino({ level: 'silent' });

  before(async () => {
    infra = await startNatsOnly();
    signerConn = await connect({ servers: infra.nats.url });
    workerConn = await connect({ servers: infra.nats.url });
    tsaDir = await mkdtemp(join(tmpdir(), 'cl-notary-tsa-'));
    tsa = await startLocalTsa({ dir: tsaDir });
    service = serveNotary(signerConn, localNotary(testKey(), { timestamper: createTsaClient({ url: tsa.url }) }), log);
    // The subscription must reach the server before the first request, or it finds no responder.
    await signerConn.flush();
  });

  after(async () => {
    await service.stop();
    await workerConn.close();
    await signerConn.close();
    await tsa.close();
    await rm(tsaDir, { recursive: true, force: true });
    await infra.stop();
  });

  it('signs and time-stamps a bundle built by a process that holds no key; it verifies', async () => {
    const bundle = await makeBundle(sampleCapture(), remoteNotary(workerConn));
    assert.ok(bundle);
    assert.equal(bundle.ref.version, '0.2.0');
    assert.equal(bundle.ref.keyId, testKey().keyId);
    const result = await verifyBundle(bundle.bytes, { keys: publishedKeys(), tsaCaCertsPem: [tsa.caCertPem] });
    assert.equal(result.verified, true, JSON.stringify(result.checks));
    assert.deepEqual(result.checks.map((c) => c.name).sort(), [
      'artifactHashes',
      'bundleHash',
      'signature',
      'timestamp',
    ]);
  });

  it('certifies a certificate hash over NATS: a signature over the certificate message, a timestamp of its digest; nothing else passes', async () => {
    const document = new TextEncoder().encode('%PDF-1.3 a certificate as rendered');
    const certificateHash = await sha256Prefixed(document);
    const bundleHash = `sha256:${'ab'.repeat(32)}`;
    const attested = await remoteNotary(workerConn).certify({ captureId: 'cap_0123', bundleHash, certificateHash });
    assert.equal(attested.signature.keyId, testKey().keyId);
    const message = certificateMessage('cap_0123', bundleHash, certificateHash);
    const publicKey = Buffer.from(attested.signature.publicKey, 'base64');
    assert.ok(nacl.sign.detached.verify(message, Buffer.from(attested.signature.signature, 'base64'), publicKey));
    // The context string keeps a certificate signature from passing for a bundle signature over the same hash.
    assert.ok(
      !nacl.sign.detached.verify(
        new TextEncoder().encode(certificateHash),
        Buffer.from(attested.signature.signature, 'base64'),
        publicKey,
      ),
    );
    assert.ok(attested.timestamp);
    const token = parseTimestampToken(Buffer.from(attested.timestamp.token, 'base64'));
    assert.equal(Buffer.from(token.imprint).toString('hex'), certificateHash.slice('sha256:'.length));
    await assert.rejects(
      remoteNotary(workerConn).certify({ captureId: 'cap_0123', bundleHash, certificateHash: 'md5:00' }),
      (err: unknown) => err instanceof NotaryRefusal && err.code === 'bad-request',
    );
  });

  it('refuses to sign for a key the bundle does not name (the key rotated meanwhile)', async () => {
    const notary = remoteNotary(workerConn);
    const other = signingKeyFromSeed(Buffer.alloc(32, 7).toString('base64'));
    await assert.rejects(
      notary.sign({
        captureId: 'cap_x',
        bundleHash: `sha256:${'ab'.repeat(32)}`,
        keyId: other.keyId,
        version: '0.1.0',
      }),
      (err: unknown) => err instanceof NotaryRefusal && err.code === 'key-changed',
    );
  });

  it('answers a malformed request with a bad-request refusal, not a signature', async () => {
    const reply = (
      await workerConn.request(NOTARY_SUBJECTS.sign, JSON.stringify({ bundleHash: 'not a hash' }), { timeout: 10_000 })
    ).json<{
      ok: boolean;
      error?: { code: string };
    }>();
    assert.equal(reply.ok, false);
    assert.equal(reply.error?.code, 'bad-request');
    const digest = (
      await workerConn.request(NOTARY_SUBJECTS.timestamp, JSON.stringify({ digest: 'AAAA' }), { timeout: 10_000 })
    ).json<{ ok: boolean }>();
    assert.equal(digest.ok, false);
  });

  it('runs as a process of its own with no database: answers /health, publishes its key, signs for a worker', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cl-signer-'));
    // The same key as the in-process signer: signers of one deployment share SIGNING_KEY.
    const signer = await startServiceProcess(
      {
        ROLES: 'signer',
        NATS_URL: infra.nats.url,
        DATA_DIR: dataDir,
        SIGNING_KEY: TEST_SEED,
        TSA_URL: 'none',
        DATABASE_URL: '',
      },
      await freePort(),
    );
    try {
      const health = (await (await fetch(`${signer.baseUrl}/health`)).json()) as { checks?: Record<string, boolean> };
      assert.deepEqual(Object.keys(health.checks ?? {}), ['nats'], 'readiness checks NATS only');
      assert.equal(existsSync(join(dataDir, 'postgres')), false, 'no embedded Postgres was started');
      // With the in-process signer stopped, only the process answers: no TSA there, so a v0.1.0 bundle.
      await service.stop();
      try {
        const bundle = await makeBundle(sampleCapture(), remoteNotary(workerConn));
        assert.equal(bundle?.ref.keyId, testKey().keyId);
        assert.equal(bundle?.ref.version, '0.1.0');
        assert.equal((await verifyBundle(bundle!.bytes, { keys: publishedKeys(), tsaCaCertsPem: [] })).verified, true);
      } finally {
        service = serveNotary(
          signerConn,
          localNotary(testKey(), { timestamper: createTsaClient({ url: tsa.url }) }),
          log,
        );
      }
    } finally {
      assert.equal(await signer.kill('SIGTERM'), 0, signer.output());
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('says that no signer is running when none answers', async () => {
    await service.stop();
    try {
      await assert.rejects(
        makeBundle(sampleCapture(), remoteNotary(workerConn)),
        /no signer is running: start a process with the signer role/,
      );
    } finally {
      service = serveNotary(
        signerConn,
        localNotary(testKey(), { timestamper: createTsaClient({ url: tsa.url }) }),
        log,
      );
    }
  });
});
