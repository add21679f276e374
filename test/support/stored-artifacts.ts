import { jetstream } from '@nats-io/jetstream';
import { type NatsConnection, nuid } from '@nats-io/transport-node';
import { digestOf } from '../../src/storage/artifact-store.js';
import { CHUNK_BYTES, chunkSubject, metaSubject } from '../../src/storage/jetstream-artifact-store.js';
import { ARTIFACTS, type ArtifactName } from '../../src/domain/artifacts.js';
import { ARTIFACT_BUCKET } from '../../src/ledger/streams.js';
import type { ServerHandle } from '../../src/server.js';
import { findCapture } from '../../projections/read-models/captures.js';

/** The object that holds one artifact of a complete capture, as its completion event names it (artifact names are per attempt). */
export async function storedArtifactName(
  server: ServerHandle,
  captureId: string,
  artifact: ArtifactName,
): Promise<string | null> {
  const row = await findCapture(server.ctx!.pool, captureId);
  return row?.artifacts?.[ARTIFACTS[artifact].refKey] ?? null;
}

/**
 * Replace what is stored under `name`, as someone with write access to the nats-server could: new chunks and a
 * newer meta entry for the name (the service itself never writes a name twice; readers take the newest entry).
 */
export async function tamperWithStoredObject(nc: NatsConnection, name: string, bytes: Uint8Array): Promise<void> {
  const js = jetstream(nc);
  const id = nuid.next();
  let chunks = 0;
  for (let at = 0; at < bytes.byteLength; at += CHUNK_BYTES) {
    await js.publish(chunkSubject(id), bytes.subarray(at, at + CHUNK_BYTES));
    chunks++;
  }
  const meta = {
    name,
    bucket: ARTIFACT_BUCKET,
    nuid: id,
    size: bytes.byteLength,
    chunks,
    digest: digestOf(bytes),
    mtime: new Date().toISOString(),
    deleted: false,
  };
  await js.publish(metaSubject(name), JSON.stringify(meta));
}
