import { createHash } from 'node:crypto';
import {
  ARCHIVE_FORMAT,
  type ArchiveManifest,
  type ArchiveRecord,
  type ArchiveSourceRange,
  bodyBytes,
  manifestBytes,
  manifestKey,
  segmentBodyKey,
  type UnsignedManifest,
} from '../../packages/verifier/src/archive-segment.js';

/** Where the archive stands: its last segment (0: none), that manifest's bytes and the cursor of every source. */
export interface ArchiveHead {
  segment: number;
  manifestBytes: Uint8Array | null;
  cursor: Record<string, number>;
  sealedAt: string | null;
}

export const EMPTY_HEAD = (streams: readonly string[]): ArchiveHead => ({
  segment: 0,
  manifestBytes: null,
  cursor: Object.fromEntries(streams.map((s) => [s, 0])),
  sealedAt: null,
});

/** The head a manifest leaves (a manifest read back from the archive, or one just written). */
export function headOf(manifest: ArchiveManifest, bytes: Uint8Array, streams: readonly string[]): ArchiveHead {
  return {
    segment: manifest.segment,
    manifestBytes: bytes,
    cursor: { ...EMPTY_HEAD(streams).cursor, ...manifest.cursor },
    sealedAt: manifest.sealedAt,
  };
}

const sha256Prefixed = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/**
 * The next segment after `head` of `records` (grouped by source, each in ascending sequence): its body and its
 * manifest before signing. Pure, so the format is tested without S3.
 */
export function buildSegment(
  head: ArchiveHead,
  records: readonly ArchiveRecord[],
  sealedAt: Date,
  key: ArchiveManifest['key'],
): { body: Uint8Array; manifest: UnsignedManifest } {
  const segment = head.segment + 1;
  const body = bodyBytes(records);
  const sources: ArchiveSourceRange[] = [];
  for (const r of records) {
    const range = sources.at(-1);
    if (range?.stream === r.stream) {
      range.last = r.seq;
      range.records++;
    } else sources.push({ stream: r.stream, first: r.seq, last: r.seq, records: 1 });
  }
  const cursor = { ...head.cursor };
  for (const range of sources) cursor[range.stream] = range.last;
  const times = records.map((r) => r.time).sort();
  return {
    body,
    manifest: {
      format: ARCHIVE_FORMAT,
      segment,
      previousManifest: head.manifestBytes ? sha256Prefixed(head.manifestBytes) : null,
      body: {
        key: segmentBodyKey(segment),
        digest: sha256Prefixed(body),
        size: body.byteLength,
        records: records.length,
      },
      sources,
      cursor,
      firstTime: times[0] ?? sealedAt.toISOString(),
      lastTime: times.at(-1) ?? sealedAt.toISOString(),
      sealedAt: sealedAt.toISOString(),
      key,
    },
  };
}

/** The objects of a signed segment, as the bucket writes them. */
export function segmentObjects(body: Uint8Array, manifest: ArchiveManifest) {
  return {
    bodyKey: manifest.body.key,
    body,
    manifestKey: manifestKey(manifest.segment),
    manifest: manifestBytes(manifest),
  };
}
