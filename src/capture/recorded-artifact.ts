import { ArtifactCorruptError, type ArtifactStore, type ByteSpan } from '../storage/artifact-store.js';
import { refusal } from '../domain/errors.js';

/**
 * The bytes of an object the ledger names (a completed capture's artifact). Its absence or damage is the
 * service's loss, never the client's mistake: 500 naming what is missing or damaged and what the operator runs
 * to find every such object (docs/operators.md, storage verify), not a 404 that reads as "there never was one".
 */
export async function readRecordedArtifact(
  artifacts: ArtifactStore,
  object: string,
  what: { captureId: string; artifact: string },
): Promise<Uint8Array> {
  const bytes = await artifacts.get(object).catch((err: unknown) => {
    if (!(err instanceof ArtifactCorruptError)) throw err;
    throw refusal(
      500,
      `The ${what.artifact} of capture ${what.captureId} is damaged in storage (${err.message}); the operator's \`capture-ledger storage verify\` lists every such object. The signed bundle's verification says the same.`,
    );
  });
  if (!bytes)
    throw refusal(
      500,
      `The ${what.artifact} of capture ${what.captureId} is recorded but missing from storage; the operator's \`capture-ledger storage verify\` lists every such object.`,
    );
  return bytes;
}

/** As readRecordedArtifact, streamed: the object's bytes in `range` (all without), for downloads. */
export async function openRecordedArtifact(
  artifacts: ArtifactStore,
  object: string,
  what: { captureId: string; artifact: string },
  range?: ByteSpan,
): Promise<AsyncIterable<Uint8Array> | Iterable<Uint8Array>> {
  const read = await artifacts.read(object, range).catch((err: unknown) => {
    if (!(err instanceof ArtifactCorruptError)) throw err;
    throw refusal(
      500,
      `The ${what.artifact} of capture ${what.captureId} is damaged in storage (${err.message}); the operator's \`capture-ledger storage verify\` lists every such object.`,
    );
  });
  if (!read) throw missing(what);
  return read.body;
}

/** The size of an object the ledger names; 500 when storage lost it. */
export async function recordedArtifactSize(
  artifacts: ArtifactStore,
  object: string,
  what: { captureId: string; artifact: string },
): Promise<number> {
  const stat = await artifacts.stat(object);
  if (!stat) throw missing(what);
  return stat.size;
}

const missing = (what: { captureId: string; artifact: string }) =>
  refusal(
    500,
    `The ${what.artifact} of capture ${what.captureId} is recorded but missing from storage; the operator's \`capture-ledger storage verify\` lists every such object.`,
  );
