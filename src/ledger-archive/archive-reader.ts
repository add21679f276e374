import { createHash } from 'node:crypto';
import {
  type ArchiveManifest,
  type ArchiveRecord,
  checkArchiveSegment,
  type SegmentCheck,
} from '../../packages/verifier/src/archive-segment.js';
import type { NoteKey } from '../../packages/verifier/src/transparency.js';
import type { ArchiveBucket } from './archive-bucket.js';
import type { ArchiveHead } from './segment-builder.js';

/** The archive refused: the first segment that fails a check, and why. */
export class ArchiveDamagedError extends Error {
  override name = 'ArchiveDamagedError';
  constructor(
    public readonly segment: number,
    public readonly problem: string,
  ) {
    super(`segment ${segment} of the archive fails its check: ${problem}`);
  }
}

/**
 * Reads the archive segment by segment, each checked against the one before it and the log key
 * (packages/verifier/src/archive-segment.ts). `verifyArchive` walks it all and keeps only the manifests;
 * `readSegment` reads one again (restore's second pass) and checks it against the manifest verified before.
 */
export interface VerifiedArchive {
  manifests: ArchiveManifest[];
  /** What the first pass found and checked per segment: its records' count. */
  records: number;
}

export async function verifyArchive(
  bucket: ArchiveBucket,
  logKey: NoteKey,
  streams: readonly string[],
  onSegment: (segment: number, last: number) => void = () => undefined,
): Promise<VerifiedArchive> {
  const last = await bucket.lastSegment();
  const manifests: ArchiveManifest[] = [];
  let previous: ArchiveHead = {
    segment: 0,
    manifestBytes: null,
    cursor: Object.fromEntries(streams.map((s) => [s, 0])),
    sealedAt: null,
  };
  let records = 0;
  for (let n = 1; n <= last; n++) {
    const { check, manifestBytes } = await readChecked(bucket, previous, logKey);
    if (!check.ok) throw new ArchiveDamagedError(check.segment, check.problem);
    manifests.push(check.manifest);
    records += check.records.length;
    previous = {
      segment: n,
      manifestBytes,
      cursor: { ...previous.cursor, ...check.manifest.cursor },
      sealedAt: check.manifest.sealedAt,
    };
    onSegment(n, last);
  }
  // Segments are numbered without gaps: one found after the last means one in between is missing.
  const later = await bucket.manifestAfter(last);
  if (later !== null)
    throw new ArchiveDamagedError(last + 1, `it is missing, but segment ${later} exists: the archive is incomplete`);
  return { manifests, records };
}

async function readChecked(
  bucket: ArchiveBucket,
  previous: ArchiveHead,
  logKey: NoteKey,
): Promise<{ check: SegmentCheck; manifestBytes: Uint8Array }> {
  const segment = previous.segment + 1;
  const manifestBytes = (await bucket.readManifest(segment)) ?? new Uint8Array(0);
  const bad = (problem: string) => ({ check: { ok: false as const, segment, problem }, manifestBytes });
  if (manifestBytes.byteLength === 0) return bad('its manifest is missing');
  let bodyKey: unknown;
  try {
    bodyKey = (JSON.parse(Buffer.from(manifestBytes).toString('utf8')) as ArchiveManifest).body?.key;
  } catch {
    return bad('its manifest is not JSON');
  }
  if (typeof bodyKey !== 'string' || !/^segments\/\d{12}\.ndjson$/.test(bodyKey))
    return bad('its manifest names no body');
  const body = await bucket.read(bodyKey);
  return { check: await checkArchiveSegment({ manifestBytes, body }, previous, logKey), manifestBytes };
}

/** One verified segment's records, read again: its body must still be the bytes its manifest states. */
export async function readSegmentRecords(bucket: ArchiveBucket, manifest: ArchiveManifest): Promise<ArchiveRecord[]> {
  const body = await bucket.read(manifest.body.key);
  if (!body || `sha256:${createHash('sha256').update(body).digest('hex')}` !== manifest.body.digest)
    throw new ArchiveDamagedError(manifest.segment, `its body ${manifest.body.key} changed since it was checked`);
  return recordsOfBody(body);
}

/** A body's records: one JSON record per line. */
export const recordsOfBody = (body: Uint8Array): ArchiveRecord[] =>
  Buffer.from(body)
    .toString('utf8')
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as ArchiveRecord);
