import type { ServiceContext } from './service-context.js';
import type { ArtifactStore } from '../storage/artifact-store.js';
import { ARTIFACTS, DOWNLOADABLE_ARTIFACTS, isArtifactName } from '../domain/artifacts.js';
import { parseProvenance, provenanceSignature } from '../archive/provenance-view.js';
import type { ProvenanceRecord, ProvenanceSignature } from '../archive/provenance-record.js';
import { refusal } from '../domain/errors.js';
import { isId } from '../domain/ids.js';
import type { TransparencyService } from '../transparency/log-service.js';
import type { Caller } from './caller.js';
import { type CaptureRow, captureViews } from '../../projections/read-models/capture-view.js';
import {
  type CaptureListFilter,
  findCapture,
  findCaptureStatusFields,
  listCaptures,
} from '../../projections/read-models/captures.js';
import { openRecordedArtifact, readRecordedArtifact, recordedArtifactSize } from '../capture/recorded-artifact.js';
import type { ByteSpan } from '../storage/artifact-store.js';

/**
 * Reads of captures (spec 4.2, 4.6–4.8): the list of a tenant, a capture's status, its record, its artifacts and
 * its provenance record, with the refusals their routes answer. REST routes and MCP tools call these (DESIGN
 * decision 15); the routes add only HTTP (headers, byte ranges, content negotiation).
 */

export type CaptureReads = ReturnType<typeof createCaptureReads>;

/** An artifact as downloaded (spec 4.8): its bytes, media type and file name. */
export interface ArtifactDownload {
  bytes: Uint8Array;
  type: string;
  fileName: string;
}

/**
 * An artifact to stream (spec 4.8, byte ranges): its size, media type and file name, its bytes on demand, and
 * — with S3_PRESIGNED_DOWNLOADS — a short-lived link to fetch them from storage directly.
 */
export interface StreamedDownload {
  size: number;
  type: string;
  fileName: string;
  open(range?: ByteSpan): Promise<AsyncIterable<Uint8Array> | Iterable<Uint8Array>>;
  presigned(): Promise<string | null>;
}

/**
 * `artifacts`: where the bytes are. `transparency`: the public log, when this process follows it: a record names
 * its bundle's leaf (docs/transparency.md).
 */
/** What the reads work with: the service, the artifacts store, the log (when there is one) and the views. */
interface Reads {
  ctx: ServiceContext;
  artifacts: ArtifactStore;
  transparency: TransparencyService | undefined;
  views: ReturnType<typeof captureViews>;
}

export function createCaptureReads(ctx: ServiceContext, artifacts: ArtifactStore, transparency?: TransparencyService) {
  const r: Reads = { ctx, artifacts, transparency, views: captureViews(ctx.config.PUBLIC_BASE_URL) };
  return {
    /** spec 2.2; 404 for an unknown capture. */
    async status(id: string) {
      const row = isId('cap', id) ? await findCaptureStatusFields(ctx.pool, id) : null;
      if (!row) throw unknownCapture(id);
      return r.views.status(row);
    },
    /** spec 2.3; 404 unless the capture is complete (spec 3.1). */
    record: (id: string) => captureRecord(r, id),
    /** spec 4.2: one page of the tenant's captures; 500 when the database read fails (spec 7.2). */
    list: (caller: Caller, q: CaptureListFilter) => captureList(r, caller, q),
    /**
     * spec 4.8: a downloadable artifact; 404 for an unknown name, an unknown capture, or an artifact it has not
     * (yet). `beside`: one of the extensions served at their own path (ARTIFACTS_BESIDE), never under /artifacts/.
     */
    artifact: (id: string, name: string, where: 'artifacts' | 'beside' = 'artifacts'): Promise<ArtifactDownload> =>
      artifactBytes(r, id, name, where),
    /** As `artifact`, streamed from storage (or redirected to it): what the download routes send. */
    download: (id: string, name: string, where: 'artifacts' | 'beside' = 'artifacts'): Promise<StreamedDownload> =>
      streamedDownload(r, id, name, where),
    /**
     * docs/capturing.md, Provenance: the stored record — byte for byte provenance/provenance.json of the signed WACZ — and,
     * when there is a bundle, its signature from datapackage-digest.json (which cannot be inside what it signs).
     */
    provenance: (id: string): Promise<{ record: ProvenanceRecord; signature: ProvenanceSignature | null }> =>
      provenanceOf(r, id),
  };
}

const unknownCapture = (id: string) => refusal(404, `No capture ${id}.`);

async function loadKnown(r: Reads, id: string): Promise<CaptureRow> {
  const row = isId('cap', id) ? await findCapture(r.ctx.pool, id) : null;
  if (!row) throw unknownCapture(id);
  return row;
}

/** The stored bytes of one of a complete capture's artifacts; null when it has none (500 when storage lost it). */
async function artifactOf(r: Reads, row: CaptureRow, name: keyof typeof ARTIFACTS): Promise<Uint8Array | null> {
  const ref = row.status === 'complete' ? row.artifacts?.[ARTIFACTS[name].refKey] : undefined;
  return ref ? readRecordedArtifact(r.artifacts, ref, { captureId: row.capture_id, artifact: name }) : null;
}

/** What `name` downloads as; 404 for an unknown name (`beside`: the extensions at their own path). */
function downloadKind(name: string, where: 'artifacts' | 'beside') {
  const kind = isArtifactName(name) ? ARTIFACTS[name].download : null;
  const download = kind && Boolean((kind as { beside?: true }).beside) === (where === 'beside') ? kind : null;
  if (!download)
    throw refusal(
      404,
      `Unknown artifact '${name}'; use ${DOWNLOADABLE_ARTIFACTS.slice(0, -1).join(', ')} or ${DOWNLOADABLE_ARTIFACTS.at(-1)}.`,
    );
  return download;
}

async function captureRecord(r: Reads, id: string) {
  const row = await loadKnown(r, id);
  if (row.status !== 'complete') {
    throw refusal(404, `Capture ${id} is ${row.status}; the record exists only once it is complete (poll its status).`);
  }
  const leafIndex = r.transparency?.view.leafIndexOfCapture(id);
  if (leafIndex === undefined) return r.views.record(row);
  const cp = await r.transparency!.checkpoint();
  return {
    ...r.views.record(row),
    transparency: { leafIndex, checkpoint: cp && cp.size > leafIndex ? cp.note : null },
  };
}

async function captureList(r: Reads, caller: Caller, q: CaptureListFilter) {
  const { rows, total } = await listCaptures(r.ctx.pool, caller.principal.tenantId, q).catch((err) => {
    caller.log.error({ err }, 'listing captures failed');
    throw refusal(500, 'Database read failed while listing captures; retry shortly.');
  });
  return {
    data: rows.map((row) => r.views.summary(row)),
    pagination: { total, offset: q.offset, hasMore: q.offset + rows.length < total, limit: q.limit },
  };
}

async function artifactBytes(
  r: Reads,
  id: string,
  name: string,
  where: 'artifacts' | 'beside',
): Promise<ArtifactDownload> {
  const download = downloadKind(name, where);
  const bytes = await artifactOf(r, await loadKnown(r, id), name as keyof typeof ARTIFACTS);
  if (!bytes) throw refusal(404, `Capture ${id} has no ${name} artifact.`);
  return { bytes, type: download.type, fileName: `${id}-${download.name}` };
}

async function streamedDownload(
  r: Reads,
  id: string,
  name: string,
  where: 'artifacts' | 'beside',
): Promise<StreamedDownload> {
  const { artifacts } = r;
  const download = downloadKind(name, where);
  const row = await loadKnown(r, id);
  const ref = row.status === 'complete' ? row.artifacts?.[ARTIFACTS[name as keyof typeof ARTIFACTS].refKey] : undefined;
  if (!ref) throw refusal(404, `Capture ${id} has no ${name} artifact.`);
  const what = { captureId: row.capture_id, artifact: name };
  const fileName = `${id}-${download.name}`;
  const presigned = r.ctx.config.S3_PRESIGNED_DOWNLOADS === 'true';
  return {
    size: await recordedArtifactSize(artifacts, ref, what),
    type: download.type,
    fileName,
    open: (range) => openRecordedArtifact(artifacts, ref, what, range),
    presigned: async () => (presigned ? artifacts.presign(ref, { fileName, type: download.type }) : null),
  };
}

async function provenanceOf(
  r: Reads,
  id: string,
): Promise<{ record: ProvenanceRecord; signature: ProvenanceSignature | null }> {
  const row = await loadKnown(r, id);
  const bytes = await artifactOf(r, row, 'provenance');
  if (!bytes)
    throw refusal(404, `Capture ${id} has no provenance record (not complete, or completed before records were kept).`);
  const wacz = await artifactOf(r, row, 'wacz');
  return { record: parseProvenance(bytes), signature: wacz ? provenanceSignature(wacz) : null };
}
