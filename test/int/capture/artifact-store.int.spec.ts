import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { type ObjectInfo, type ObjectStore, Objm } from '@nats-io/obj';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { type ArtifactStore, digestOf } from '../../../src/storage/artifact-store.js';
import { CHUNK_BYTES, openArtifactStore, storedNamesIn } from '../../../src/storage/jetstream-artifact-store.js';
import { readRecordedArtifact } from '../../../src/capture/recorded-artifact.js';
import type { DomainError } from '../../../src/domain/errors.js';
import { artifactStoreContract } from '../../support/artifact-store-contract.js';
import { startNatsOnly } from '../../support/harness.js';

async function* pieces(bytes: Uint8Array, size: number) {
  for (let offset = 0; offset < bytes.byteLength; offset += size) yield bytes.subarray(offset, offset + size);
}

/** The write-once artifact store: no purge, no delete, no rollup; old objects still read. */
describe('artifact store', () => {
  let infra: Awaited<ReturnType<typeof startNatsOnly>>;
  let nc: NatsConnection;
  let store: ArtifactStore;
  let watch: Subscription;
  const forbidden: string[] = [];
  let old: ObjectStore;
  let oldInfo: ObjectInfo;
  const oldBytes = new Uint8Array(400_000).map((_, k) => (k * 13) & 0xff);
  const bytesOf = (n: number, seed = 1) => new Uint8Array(n).map((_, k) => (k * 31 + seed) & 0xff);

  before(async () => {
    infra = await startNatsOnly();
    nc = await connect({ servers: infra.nats.url });
    // Every purge or message delete anyone asks the server for, seen from a second connection.
    const observer = await connect({ servers: infra.nats.url });
    watch = observer.subscribe('$JS.API.STREAM.>', {
      callback: (_e, m) => {
        if (/^\$JS\.API\.STREAM\.(PURGE|MSG\.DELETE)\./.test(m.subject)) forbidden.push(m.subject);
      },
    });
    await observer.flush();
    // As a deployment of an older release left it: the library's stream, an object the library wrote.
    old = await new Objm(nc).create('artifacts');
    oldInfo = await old.putBlob({ name: 'cap_old/wacz' }, oldBytes);
    store = await openArtifactStore(nc);
  });
  after(async () => {
    watch?.unsubscribe();
    await nc?.close();
    await infra?.stop();
  });

  artifactStoreContract(() => store);

  it('stores and reads objects of every size, with the object store digest', async () => {
    for (const size of [0, 1, 128 * 1024 + 1, CHUNK_BYTES, CHUNK_BYTES + 1, 2_700_000]) {
      const bytes = bytesOf(size, size);
      await store.put(`cap_x/a/${size}`, bytes);
      assert.deepEqual(Buffer.from((await store.get(`cap_x/a/${size}`))!), Buffer.from(bytes), `${size} bytes`);
      assert.match((await store.digest(`cap_x/a/${size}`))!, /^SHA-256=[A-Za-z0-9_-]{43}=$/);
      assert.deepEqual(await store.check(`cap_x/a/${size}`), {
        status: 'ok',
        size,
        digest: (await store.digest(`cap_x/a/${size}`))!,
      });
    }
    // A streamed body, in pieces that do not line up with the chunks: the same object, the same digest.
    const streamed = bytesOf(300_001, 5);
    await store.put('cap_x/streamed', pieces(streamed, 7777));
    assert.deepEqual(Buffer.from((await store.get('cap_x/streamed'))!), Buffer.from(streamed));
    assert.equal(await store.digest('cap_x/streamed'), digestOf(streamed));
    await store.put('cap_x/streamed', pieces(streamed, 100_000)); // retried with a new stream: fine
    await assert.rejects(store.put('cap_x/streamed', pieces(bytesOf(300_001, 6), 7777)), {
      name: 'ArtifactConflictError',
    });
    assert.equal(await store.get('cap_x/none'), null);
    assert.equal(await store.digest('cap_x/none'), null);
    assert.deepEqual(await store.check('cap_x/none'), { status: 'missing' });
  });

  it('is write-once: the same bytes again are a no-op, other bytes under a stored name are refused', async () => {
    await store.put('cap_x/once', bytesOf(300_000));
    const seq = (await jetstream(nc).streams.get('OBJ_artifacts')).info().then((i) => i.state.last_seq);
    await store.put('cap_x/once', bytesOf(300_000));
    assert.equal(
      (await (await jetstream(nc).streams.get('OBJ_artifacts')).info()).state.last_seq,
      await seq,
      'nothing written again',
    );
    await assert.rejects(store.put('cap_x/once', bytesOf(10)), { name: 'ArtifactConflictError' });
    assert.deepEqual(Buffer.from((await store.get('cap_x/once'))!), Buffer.from(bytesOf(300_000)));
  });

  it('reads objects the nats.js object store wrote (a deployment upgrading keeps its evidence), and then refuses purges', async () => {
    const jsm = await jetstreamManager(nc);
    const config = (await jsm.streams.info('OBJ_artifacts')).config;
    assert.deepEqual(
      [config.deny_purge, config.deny_delete],
      [true, true],
      'opening the store made the stream refuse purges and deletes',
    );
    const bytes = oldBytes;
    const info = oldInfo;
    assert.deepEqual(Buffer.from((await store.get('cap_old/wacz'))!), Buffer.from(bytes));
    assert.equal(await store.digest('cap_old/wacz'), info.digest);
    assert.equal((await store.check('cap_old/wacz')).status, 'ok');
    // And the library reads ours.
    await store.put('cap_new/wacz', bytes);
    assert.deepEqual(Buffer.from((await old.getBlob('cap_new/wacz'))!), Buffer.from(bytes));
  });

  it('ignores a write cut short (chunks, no meta), and names a damaged object as corrupt', async () => {
    const js = jetstream(nc);
    await js.publish('$O.artifacts.C.cut-short', bytesOf(1000));
    assert.equal(await store.get('cap_cut/wacz'), null);
    // A meta that names two chunks of which one is stored: what a lost chunk looks like.
    const meta = {
      name: 'cap_damaged/wacz',
      bucket: 'artifacts',
      nuid: 'damaged',
      size: 256 * 1024,
      chunks: 2,
      digest: 'SHA-256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      mtime: new Date().toISOString(),
      deleted: false,
    };
    await js.publish('$O.artifacts.C.damaged', bytesOf(128 * 1024));
    await js.publish(
      `$O.artifacts.M.${Buffer.from(meta.name).toString('base64')}`.replace(/\+/g, '-').replace(/\//g, '_'),
      JSON.stringify(meta),
    );
    const check = await store.check('cap_damaged/wacz');
    assert.equal(check.status, 'corrupt');
    assert.match((check as { detail: string }).detail, /chunk 2 of 2 is missing/);
    await assert.rejects(store.get('cap_damaged/wacz'), { name: 'ArtifactCorruptError' });
  });

  it('answers a download of a recorded object that storage lost or damaged with 500 naming it, never a 404', async () => {
    const what = { captureId: 'cap_damaged', artifact: 'wacz' };
    await assert.rejects(readRecordedArtifact(store, 'cap_damaged/wacz', what), (err: DomainError) => {
      assert.equal(err.status, 500);
      assert.match(err.detail, /wacz of capture cap_damaged is damaged in storage .*chunk 2 of 2 is missing/);
      assert.match(err.detail, /storage verify/);
      return true;
    });
    await assert.rejects(
      readRecordedArtifact(store, 'cap_lost/wacz', { ...what, captureId: 'cap_lost' }),
      (err: DomainError) => {
        assert.equal(err.status, 500);
        assert.match(err.detail, /wacz of capture cap_lost is recorded but missing from storage/);
        return true;
      },
    );
    assert.equal((await readRecordedArtifact(store, 'cap_old/wacz', what)).byteLength, oldBytes.byteLength);
  });

  it('lists the names under a prefix from the meta entries, across fetched batches (storage migrate)', async () => {
    const js = jetstream(nc);
    assert.deepEqual(await storedNamesIn(js, 'diffs/'), []);
    const names = Array.from({ length: 520 }, (_, k) => `diffs/cap_n/cap_b/${String(k).padStart(4, '0')}.json`);
    for (const name of names) await store.put(name, new Uint8Array(0));
    await store.put('diffs/cap_m/cap_b/one.pdf', bytesOf(10));
    assert.deepEqual(await storedNamesIn(js, 'diffs/cap_n/'), names);
    assert.equal((await storedNamesIn(js, 'diffs/')).length, 521);
    assert.deepEqual(await storedNamesIn(js, 'cap_old/'), ['cap_old/wacz'], 'objects the library wrote too');
  });

  it('never asked the server to purge or delete a message', async () => {
    await nc.flush();
    assert.deepEqual(forbidden, []);
  });

  it("refuses the nats.js object store's put now (a rollup, then a purge): a regression to it fails loudly", async () => {
    await assert.rejects(old.putBlob({ name: 'cap_old/again' }, bytesOf(5)), /roll-ups|purge/i);
    assert.equal(await store.get('cap_old/again'), null);
    assert.deepEqual(Buffer.from((await store.get('cap_old/wacz'))!), Buffer.from(oldBytes), 'nothing was purged');
  });
});
