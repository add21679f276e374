import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SignedBundle } from '../../../src/archive/bundle.js';
import { localNotary } from '../../../src/archive/notary.js';
import { startLocalTsa, type LocalTsa } from '../../../src/archive/local-tsa.js';
import { createTsaClient } from '../../../src/archive/tsa-client.js';
import { noteSignerFromSeed, signCheckpoint, verifierKeyString } from '../../../src/transparency/checkpoint.js';
import type { TransparencyEvidence } from '../../../src/transparency/inclusion-check.js';
import { type TransparencyInput, verifyBundleWithLog } from '../../../src/transparency/verify-transparency.js';
import { captureLeaf, encodeLeaf } from '../../../src/transparency/leaf.js';
import { MerkleTree } from '../../../src/transparency/merkle.js';
import {
  publishedKeys,
  readJson,
  rezip,
  sampleCapture,
  signedBundle,
  testKey,
  unzip,
  writeJson,
} from '../archive/bundle-fixture.js';

/**
 * The transparency extension of bundle verification (beside the spec's checks): the leaf is made from the bundle itself, and must be in the
 * tree of a checkpoint signed by the log's key. Given / when / then over a real signed, time-stamped bundle.
 */

const logSigner = noteSignerFromSeed('ledger.test/v1/log', new Uint8Array(32).fill(5));
const b64 = (h: Uint8Array) => Buffer.from(h).toString('base64');
const filler = (i: number) => new TextEncoder().encode(`{"other":${i}}`);

describe('verification: the transparency check', () => {
  let dir: string;
  let tsa: LocalTsa;
  let bundle: SignedBundle;
  let captureId: string;
  let evidence: TransparencyEvidence;
  let options: { keys: ReturnType<typeof publishedKeys>; tsaCaCertsPem: string[] };
  const INDEX = 6;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'inclusion-check-'));
    tsa = await startLocalTsa({ dir: join(dir, 'tsa') });
    options = { keys: publishedKeys(), tsaCaCertsPem: [tsa.caCertPem] };
    bundle = await signedBundle(
      sampleCapture(),
      localNotary(testKey(), { timestamper: createTsaClient({ url: tsa.url }) }),
    );
    captureId = sampleCapture().captureId;
    // The log: some other leaves, then this bundle's (made as the sequencer makes it from the ledger event), then more.
    const tree = new MerkleTree();
    for (let i = 0; i < 10; i++) {
      tree.appendLeaf(
        i === INDEX
          ? encodeLeaf(captureLeaf(captureId, bundle.ref.bundleHash, bundle.ref.keyId, bundle.timestamp!.genTime))
          : filler(i),
      );
    }
    evidence = {
      logKey: verifierKeyString(logSigner),
      checkpoint: signCheckpoint(
        { origin: logSigner.name, size: 10, rootHash: tree.root(), extensions: [] },
        logSigner,
      ),
      leafIndex: INDEX,
      inclusionProof: tree.inclusionProof(INDEX).map(b64),
    };
  });
  after(async () => {
    await tsa.close();
    await rm(dir, { recursive: true, force: true });
  });

  const check = async (bytes: Uint8Array, transparency: TransparencyInput | undefined) => {
    const r = await verifyBundleWithLog(bytes, { ...options, transparency });
    return { r, t: r.transparency };
  };

  it('passes beside the spec checks when the leaf is in the signed tree, with the proof it was checked with', async () => {
    const { r, t } = await check(bundle.bytes, evidence);
    assert.deepEqual(
      r.checks.map((c) => c.name),
      ['artifactHashes', 'bundleHash', 'signature', 'timestamp'],
    );
    assert.equal(t?.status, 'pass', t?.detail);
    assert.equal(t?.leafIndex, INDEX);
    assert.equal(t?.checkpoint, evidence.checkpoint);
    assert.equal(r.verified, true);
  });

  it('is absent without log evidence, and skipped when the log has no proof yet', async () => {
    assert.equal((await check(bundle.bytes, undefined)).t, undefined);
    const { r, t } = await check(bundle.bytes, { unavailable: 'not in the log yet' });
    assert.equal(t?.status, 'skip');
    assert.equal(r.verified, true);
  });

  it('fails for another index, a proof of another leaf, a tampered checkpoint or another log key', async () => {
    for (const [what, ev] of [
      ['index', { ...evidence, leafIndex: INDEX + 1 }],
      ['proof', { ...evidence, inclusionProof: [...evidence.inclusionProof.slice(1), evidence.inclusionProof[0]!] }],
      ['checkpoint', { ...evidence, checkpoint: evidence.checkpoint.replace('\n10\n', '\n11\n') }],
      [
        'key',
        { ...evidence, logKey: verifierKeyString(noteSignerFromSeed(logSigner.name, new Uint8Array(32).fill(6))) },
      ],
    ] as Array<[string, TransparencyEvidence]>) {
      const { r, t } = await check(bundle.bytes, ev);
      assert.equal(t?.status, 'fail', what);
      // The spec's `verified` is over the spec's checks (2.6); the log's result is reported beside it.
      assert.equal(r.verified, true, what);
    }
  });

  it('fails for a second bundle of the same capture: the log holds the first one', async () => {
    // The operator signs another capture for the same ID and moment: it verifies on its own, but its leaf is not the logged one.
    const other = await signedBundle(
      sampleCapture({ completedAt: '2024-05-01T10:00:09.000Z' }),
      localNotary(testKey(), { timestamper: createTsaClient({ url: tsa.url }) }),
    );
    assert.notEqual(other.ref.bundleHash, bundle.ref.bundleHash);
    const { r, t } = await check(other.bytes, evidence);
    assert.equal(r.checks.find((c) => c.name === 'signature')?.status, 'pass');
    assert.equal(t?.status, 'fail');
    assert.match(t!.detail!, /not at index 6/);
  });

  it('is skipped when the bundle hash fails', async () => {
    const files = unzip(bundle.bytes);
    const dp = readJson(files, 'datapackage.json');
    dp.title = 'altered';
    writeJson(files, 'datapackage.json', dp);
    const { t } = await check(rezip(files), evidence);
    assert.equal(t?.status, 'skip');
  });
});
