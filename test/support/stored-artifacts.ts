import { Objm } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { ARTIFACTS, type ArtifactName } from '../../src/domain/artifacts.js';
import { ARTIFACT_BUCKET } from '../../src/ledger/streams.js';
import type { ServerHandle } from '../../src/server.js';
import { findCapture } from '../../projections/read-models/captures.js';

/** The object that holds one artifact of a complete capture, as its completion event names it (artifact names are per attempt). */
export async function storedArtifactName(server: ServerHandle, captureId: string, artifact: ArtifactName): Promise<string | null> {
  const row = await findCapture(server.ctx!.pool, captureId);
  return row?.artifacts?.[ARTIFACTS[artifact].refKey] ?? null;
}

/**
 * Replace what is stored under `name`, as someone with write access to the nats-server (or a failing disk) could:
 * the service itself never writes a name twice. Through the nats.js object store on a single-node test server.
 */
export async function tamperWithStoredObject(nc: NatsConnection, name: string, bytes: Uint8Array): Promise<void> {
  const store = await new Objm(nc).open(ARTIFACT_BUCKET);
  await store.putBlob({ name }, bytes);
}
