import {
  type ArchiveManifest,
  type ArchivePrevious,
  checkArchiveSegment,
  type SegmentCheck,
} from './archive-segment.js';
import { parseNoteKey } from './transparency.js';

/**
 * One archive segment checked from files, as an archive copied out of S3 lays them out
 * (`<prefix>/manifests/<n>.json`, `<prefix>/segments/<n>.ndjson`): the body and the previous manifest default to
 * their places beside the manifest. Segment 1 has no previous manifest.
 */
export interface SegmentFiles {
  manifest: string;
  body?: string;
  previousManifest?: string;
  /** The log's verifier key (GET /v1/log/key), inline or read by the caller. */
  logKey: string;
}

export type SegmentFileCheck =
  | { verified: true; segment: number; sources: ArchiveManifest['sources']; sealedAt: string }
  | { verified: false; segment: number; problem: string };

export async function verifyArchiveSegmentFiles(
  files: SegmentFiles,
  readFile: (path: string) => Promise<Uint8Array | null>,
): Promise<SegmentFileCheck> {
  const manifestBytes = await readFile(files.manifest);
  const name = /^(.*)manifests\/(\d{12})\.json$/.exec(files.manifest);
  if (!manifestBytes) return { verified: false, segment: 0, problem: `${files.manifest} cannot be read` };
  const manifest = JSON.parse(new TextDecoder().decode(manifestBytes)) as ArchiveManifest;
  const n = Number(manifest.segment);
  const beside = (dir: string, segment: number, ext: string) =>
    name ? `${name[1]}${dir}/${String(segment).padStart(12, '0')}.${ext}` : undefined;
  const previousPath = files.previousManifest ?? (n > 1 ? beside('manifests', n - 1, 'json') : undefined);
  const previousBytes = previousPath ? await readFile(previousPath) : null;
  if (n > 1 && !previousBytes)
    return { verified: false, segment: n, problem: `the previous manifest (segment ${n - 1}) cannot be read` };
  const prior = previousBytes ? (JSON.parse(new TextDecoder().decode(previousBytes)) as ArchiveManifest) : null;
  const previous: ArchivePrevious = {
    segment: n - 1,
    manifestBytes: previousBytes,
    cursor: prior?.cursor ?? {},
  };
  const bodyPath = files.body ?? beside('segments', n, 'ndjson');
  const body = bodyPath ? await readFile(bodyPath) : null;
  const check: SegmentCheck = await checkArchiveSegment(
    { manifestBytes, body },
    previous,
    await parseNoteKey(files.logKey),
  );
  return check.ok
    ? { verified: true, segment: n, sources: check.manifest.sources, sealedAt: check.manifest.sealedAt }
    : { verified: false, segment: check.segment, problem: check.problem };
}
