import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { ArtifactConflictError, type ArtifactStore, digestOf } from '../../src/storage/artifact-store.js';

/**
 * What every ArtifactStore promises (docs/storage.md), run against each adapter on a real server: the JetStream
 * object store (test/int/capture/artifact-store.int.spec.ts) and S3 on radosgw
 * (test/int/storage/s3-artifact-store.int.spec.ts). A new object kind relies on exactly this.
 *
 * `makeStore` is called before each test; each test writes under names of its own.
 */
export function artifactStoreContract(makeStore: () => ArtifactStore | Promise<ArtifactStore>): void {
  describe('ArtifactStore contract', () => {
    let store: ArtifactStore;
    let prefix: string;
    beforeEach(async () => {
      store = await makeStore();
      prefix = `cap_contract${randomBytes(6).toString('hex')}`;
    });
    const bytesOf = (n: number, seed: number) => new Uint8Array(n).map((_, k) => (k * 31 + seed) & 0xff);
    async function* pieces(bytes: Uint8Array, size: number) {
      for (let offset = 0; offset < bytes.byteLength; offset += size) yield bytes.subarray(offset, offset + size);
    }
    const collect = async (body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) => {
      const parts: Buffer[] = [];
      for await (const part of body) parts.push(Buffer.from(part));
      return Buffer.concat(parts);
    };

    it('reads back what it stored, whole or streamed in, with its digest and size', async () => {
      for (const size of [0, 1, 128 * 1024 + 1, 1_000_000]) {
        const bytes = bytesOf(size, size);
        await store.put(`${prefix}/bytes/${size}`, bytes);
        await store.put(`${prefix}/stream/${size}`, pieces(bytes, 7777));
        for (const how of ['bytes', 'stream']) {
          const name = `${prefix}/${how}/${size}`;
          assert.ok(Buffer.from((await store.get(name))!).equals(Buffer.from(bytes)), `${name}`);
          assert.equal(await store.digest(name), digestOf(bytes));
          assert.deepEqual(await store.stat(name), { size, digest: digestOf(bytes) });
          assert.deepEqual(await store.check(name), { status: 'ok', size, digest: digestOf(bytes) });
        }
      }
    });

    it('serves byte ranges and the whole object as a stream', async () => {
      const bytes = bytesOf(300_000, 9);
      await store.put(`${prefix}/r`, bytes);
      const part = await store.read(`${prefix}/r`, { start: 131_000, end: 131_999 });
      assert.equal(part?.size, 300_000);
      assert.ok((await collect(part!.body)).equals(Buffer.from(bytes.subarray(131_000, 132_000))));
      assert.ok((await collect((await store.read(`${prefix}/r`))!.body)).equals(Buffer.from(bytes)));
    });

    it('writes a name once: the same bytes again are fine, other bytes are refused', async () => {
      await store.put(`${prefix}/w`, bytesOf(1000, 1));
      await store.put(`${prefix}/w`, bytesOf(1000, 1));
      await store.put(`${prefix}/w`, pieces(bytesOf(1000, 1), 300));
      await assert.rejects(store.put(`${prefix}/w`, bytesOf(1000, 2)), ArtifactConflictError);
      await assert.rejects(store.put(`${prefix}/w`, pieces(bytesOf(1001, 1), 300)), ArtifactConflictError);
      assert.ok(Buffer.from((await store.get(`${prefix}/w`))!).equals(Buffer.from(bytesOf(1000, 1))));
    });

    it('answers null or missing for a name it never stored', async () => {
      assert.equal(await store.get(`${prefix}/none`), null);
      assert.equal(await store.read(`${prefix}/none`), null);
      assert.equal(await store.stat(`${prefix}/none`), null);
      assert.equal(await store.digest(`${prefix}/none`), null);
      assert.deepEqual(await store.check(`${prefix}/none`), { status: 'missing' });
    });
  });
}
