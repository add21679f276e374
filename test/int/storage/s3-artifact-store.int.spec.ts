import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  GetObjectRetentionCommand,
  ListObjectVersionsCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import {
  ArtifactConflictError,
  ArtifactLockedError,
  type ArtifactStore,
  digestOf,
  StorageUnavailableError,
} from '../../../src/storage/artifact-store.js';
import { blobKey, nameKey, openS3ArtifactStore, s3Client } from '../../../src/storage/s3-artifact-store.js';
import type { S3Settings } from '../../../src/config/storage-config.js';
import { artifactObjectName } from '../../../src/domain/artifacts.js';
import { storagePendingWrites } from '../../../src/observability/metrics.js';
import { artifactStoreContract } from '../../support/artifact-store-contract.js';
import { type Radosgw, startRadosgw } from '../../support/radosgw.js';

const bytesOf = (n: number, seed = 1) => new Uint8Array(n).map((_, k) => (k * 31 + seed) & 0xff);
const text = async (body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) => {
  const parts: Buffer[] = [];
  for await (const p of body) parts.push(Buffer.from(p));
  return Buffer.concat(parts);
};

async function* pieces(bytes: Uint8Array, size: number) {
  for (let offset = 0; offset < bytes.byteLength; offset += size) yield bytes.subarray(offset, offset + size);
}

/** The S3 adapter of the artifact store against a real S3 server (radosgw, test/support/radosgw.ts). */
describe('S3 artifact store', () => {
  let gw: Radosgw;
  let settings: S3Settings;
  let store: ArtifactStore;
  let raw: S3Client;

  before(async () => {
    gw = await startRadosgw();
    settings = {
      endpoint: gw.endpoint,
      region: gw.region,
      bucket: 'artifacts',
      forcePathStyle: true,
      credentials: { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey },
      presignedDownloads: true,
      presignSeconds: 60,
    };
    store = await openS3ArtifactStore(settings, { outageWaitMs: 120_000 });
    raw = s3Client(settings);
  });
  after(async () => {
    raw?.destroy();
    await gw?.stop();
  });

  artifactStoreContract(() => store);

  it('stores and reads objects of every size, multipart above 8 MiB, with the JetStream store digest', async () => {
    assert.equal(store.kind, 's3');
    for (const size of [0, 1, 128 * 1024 + 1, 9 * 1024 * 1024]) {
      const bytes = bytesOf(size, size);
      await store.put(`cap_x/a/${size}`, bytes);
      assert.ok(Buffer.from((await store.get(`cap_x/a/${size}`))!).equals(Buffer.from(bytes)), `${size} bytes`);
      assert.equal(await store.digest(`cap_x/a/${size}`), digestOf(bytes));
      assert.deepEqual(await store.check(`cap_x/a/${size}`), { status: 'ok', size, digest: digestOf(bytes) });
    }
    assert.equal(await store.get('cap_x/none'), null);
    assert.equal(await store.read('cap_x/none'), null);
    assert.deepEqual(await store.check('cap_x/none'), { status: 'missing' });
  });

  it('stores a streamed body without knowing its digest first: staged, copied to its digest key, staging removed', async () => {
    for (const size of [0, 70_000, 9 * 1024 * 1024 + 5]) {
      const bytes = bytesOf(size, 11);
      await store.put(`cap_s/${size}`, pieces(bytes, 65_537));
      assert.equal(await store.digest(`cap_s/${size}`), digestOf(bytes), `${size} bytes`);
      assert.ok(Buffer.from((await store.get(`cap_s/${size}`))!).equals(Buffer.from(bytes)));
    }
    // The same bytes streamed under another name, and again under the first: one blob, no conflict.
    await store.put('cap_s/again', pieces(bytesOf(70_000, 11), 4096));
    await store.put('cap_s/70000', pieces(bytesOf(70_000, 11), 1000));
    await assert.rejects(store.put('cap_s/70000', pieces(bytesOf(70_000, 12), 1000)), ArtifactConflictError);
    const staging = await raw.send(new ListObjectVersionsCommand({ Bucket: 'artifacts', Prefix: 'staging/' }));
    assert.deepEqual(staging.Versions ?? [], [], 'nothing left under staging/');
  });

  it('streams byte ranges', async () => {
    const bytes = bytesOf(300_000, 7);
    await store.put('cap_r/wacz', bytes);
    const part = await store.read('cap_r/wacz', { start: 1000, end: 1999 });
    assert.equal(part?.size, 300_000);
    assert.ok((await text(part!.body)).equals(Buffer.from(bytes.subarray(1000, 2000))));
    const whole = await store.read('cap_r/wacz');
    assert.ok((await text(whole!.body)).equals(Buffer.from(bytes)));
  });

  it('is write-once by name, and stores identical bytes once under their digest', async () => {
    await store.put('cap_w/one', bytesOf(10, 1));
    await store.put('cap_w/one', bytesOf(10, 1)); // a retried write of the same bytes
    await assert.rejects(store.put('cap_w/one', bytesOf(10, 2)), ArtifactConflictError);
    await store.put('cap_w/two', bytesOf(10, 1));
    const key = blobKey(digestOf(bytesOf(10, 1)));
    assert.match(key, /^blobs\/sha256\/[0-9a-f]{64}$/);
    const versions = await raw.send(new ListObjectVersionsCommand({ Bucket: 'artifacts', Prefix: key }));
    assert.equal(versions.Versions?.length, 1, 'two names, one blob');
  });

  it('hands out presigned links that serve the bytes and their ranges straight from storage', async () => {
    const url = await store.presign!('cap_r/wacz', { fileName: 'cap_r-bundle.wacz', type: 'application/wacz+zip' });
    assert.ok(url?.startsWith(`${gw.endpoint}/artifacts/blobs/sha256/`));
    const res = await fetch(url!, { headers: { range: 'bytes=0-9' } });
    assert.equal(res.status, 206);
    assert.equal(res.headers.get('content-type'), 'application/wacz+zip');
    assert.match(res.headers.get('content-disposition') ?? '', /cap_r-bundle\.wacz/);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(bytesOf(300_000, 7).subarray(0, 10))));
  });

  it('keeps a bundle under compliance retention: deleting and shortening are refused by storage', async () => {
    const until = new Date(Date.now() + 2 * 86_400_000);
    await store.put('cap_l/wacz', bytesOf(5000, 3), { retainUntil: until });
    const state = await store.lock!.state('cap_l/wacz');
    assert.equal(state?.retainUntil?.toISOString(), until.toISOString());
    assert.equal(state?.legalHold, false);
    await assert.rejects(store.lock!.remove('cap_l/wacz'), ArtifactLockedError);
    await assert.rejects(store.lock!.retain('cap_l/wacz', new Date(Date.now() + 86_400_000)), ArtifactLockedError);
    const longer = new Date(Date.now() + 3 * 86_400_000);
    await store.lock!.retain('cap_l/wacz', longer);
    assert.equal((await store.lock!.state('cap_l/wacz'))?.retainUntil?.toISOString(), longer.toISOString());
    // A delete marker over the keys hides nothing: reads follow the name record to the blob's version.
    await raw.send(new DeleteObjectCommand({ Bucket: 'artifacts', Key: nameKey('cap_l/wacz') }));
    await raw.send(new DeleteObjectCommand({ Bucket: 'artifacts', Key: blobKey(digestOf(bytesOf(5000, 3))) }));
    // (A store of its own: this one remembers the record it read.)
    const fresh = await openS3ArtifactStore(settings);
    assert.deepEqual((await fresh.check('cap_l/wacz')).status, 'ok');
  });

  it('locks a session video like the other artifacts: whole in parts, or streamed and copied to its blob', async () => {
    const until = new Date(Date.now() + 2 * 86_400_000);
    // The worker stores the video it encoded whole (multipart above 8 MiB); a streamed body goes through staging.
    const whole = artifactObjectName('cap_v1', 'a1', 'session');
    const streamed = artifactObjectName('cap_v2', 'a1', 'session');
    await store.put(whole, bytesOf(9 * 1024 * 1024 + 3, 21), { retainUntil: until });
    await store.put(streamed, pieces(bytesOf(9 * 1024 * 1024 + 7, 22), 65_537), { retainUntil: until });
    for (const name of [whole, streamed]) {
      const got = await raw.send(new GetObjectCommand({ Bucket: 'artifacts', Key: nameKey(name) }));
      const record = JSON.parse(await got.Body!.transformToString()) as { blob: string; version?: string };
      for (const [Key, VersionId] of [
        [nameKey(name), got.VersionId],
        [record.blob, record.version],
      ] as const) {
        const held = await raw.send(new GetObjectRetentionCommand({ Bucket: 'artifacts', Key, VersionId }));
        assert.equal(held.Retention?.Mode, 'COMPLIANCE', `${Key} of ${name}`);
        assert.equal(held.Retention?.RetainUntilDate?.toISOString(), until.toISOString(), `${Key} of ${name}`);
      }
      await assert.rejects(store.lock!.remove(name), ArtifactLockedError);
    }
  });

  it('counts a streamed upload as a pending write while it is under way', async () => {
    const pending = async () => (await storagePendingWrites.get()).values[0]?.value ?? 0;
    const before = await pending();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let uploading = false;
    async function* held() {
      yield bytesOf(70_000, 31);
      // The upload has taken the first piece and waits for the next one.
      uploading = true;
      await released;
      yield bytesOf(70_000, 32);
    }
    const writing = store.put('cap_p/session', held());
    try {
      const deadline = Date.now() + 60_000;
      while (!uploading) {
        assert.ok(Date.now() < deadline, 'the upload never asked for the second piece');
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(await pending(), before + 1);
    } finally {
      release();
    }
    await writing;
    assert.equal(await pending(), before);
  });

  it('places and lifts a legal hold; a held object without retention cannot be deleted', async () => {
    await store.put('cap_h/wacz', bytesOf(100, 9));
    await store.lock!.legalHold(['cap_h/wacz'], true);
    assert.equal((await store.lock!.state('cap_h/wacz'))?.legalHold, true);
    await assert.rejects(store.lock!.remove('cap_h/wacz'), ArtifactLockedError);
    await store.lock!.legalHold(['cap_h/wacz'], false);
    assert.equal((await store.lock!.state('cap_h/wacz'))?.legalHold, false);
  });

  it('lifting the hold of one capture keeps the bytes it shares with another held capture held', async () => {
    await store.put('cap_s1/screenshot', bytesOf(2000, 11));
    await store.put('cap_s2/screenshot', bytesOf(2000, 11));
    await store.lock!.legalHold(['cap_s1/screenshot'], true);
    await store.lock!.legalHold(['cap_s2/screenshot'], true);
    await store.lock!.legalHold(['cap_s1/screenshot'], false, ['cap_s2/screenshot']);
    assert.equal((await store.lock!.state('cap_s1/screenshot'))?.legalHold, false);
    assert.equal((await store.lock!.state('cap_s2/screenshot'))?.legalHold, true);
    // The one stored copy of those bytes is still held: storage refuses deleting it through either name.
    await assert.rejects(store.lock!.remove('cap_s1/screenshot'), ArtifactLockedError);
    await assert.rejects(store.lock!.remove('cap_s2/screenshot'), ArtifactLockedError);
    await store.lock!.legalHold(['cap_s2/screenshot'], false);
    assert.equal((await store.lock!.state('cap_s2/screenshot'))?.legalHold, false);
  });

  it('names a blob whose bytes do not match the recorded digest corrupt', async () => {
    const record = { digest: digestOf(bytesOf(64, 1)), size: 64, blob: 'blobs/sha256/forged' };
    await raw.send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'blobs/sha256/forged', Body: bytesOf(64, 2) }));
    await raw.send(
      new PutObjectCommand({ Bucket: 'artifacts', Key: nameKey('cap_c/x'), Body: JSON.stringify(record) }),
    );
    const checked = await store.check('cap_c/x');
    assert.equal(checked.status, 'corrupt');
  });

  it('storage down: reads fail at once as unavailable, a write waits and lands when storage is back', async () => {
    await gw.stopGateway();
    await assert.rejects(store.get('cap_x/a/1'), StorageUnavailableError);
    const writing = store.put('cap_o/wacz', bytesOf(2000, 4));
    await new Promise((r) => setTimeout(r, 3000));
    await gw.startGateway();
    await writing;
    assert.equal((await store.check('cap_o/wacz')).status, 'ok');
  });
});
