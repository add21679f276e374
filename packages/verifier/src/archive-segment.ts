import { bytesEqual, ed25519Verify, fromBase64Strict, hex, sha256Prefixed, utf8 } from './bytes.js';
import { canonicalJson, type NoteKey } from './transparency.js';

/**
 * A segment of a deployment's archive (docs/operators.md, The archive): a manifest, signed with the transparency
 * log's key and chained to the manifest before it, and a body of NDJSON records whose digest the manifest states.
 * Pure functions over bytes: the archiver signs with `manifestMessage`, and restore and the offline verifier
 * check with `checkArchiveSegment`, so the format has one definition.
 */
export const ARCHIVE_FORMAT = 'capture-ledger-archive/1';
/** The context line before the manifest in the signed message: no checkpoint or other signature of the key reads so. */
export const ARCHIVE_SIGNATURE_CONTEXT = `${ARCHIVE_FORMAT} manifest\n`;
/** `sealed` of a record whose value is sealed again under the archive's key-wrapping key. */
export const ARCHIVE_KEY_WRAP = 'archive-key-wrap/1';

export interface ArchiveSourceRange {
  stream: string;
  first: number;
  last: number;
  records: number;
}

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  segment: number;
  previousManifest: string | null;
  body: { key: string; digest: string; size: number; records: number };
  sources: ArchiveSourceRange[];
  /** The last sequence archived of every source through this segment (0: none yet). */
  cursor: Record<string, number>;
  firstTime: string;
  lastTime: string;
  sealedAt: string;
  key: { algorithm: 'Ed25519'; name: string; keyHash: string };
  signature: string;
}

export type UnsignedManifest = Omit<ArchiveManifest, 'signature'>;

export interface ArchiveRecord {
  stream: string;
  seq: number;
  subject: string;
  /** JetStream's time of the message, RFC 3339. */
  time: string;
  headers?: Record<string, string[]>;
  /** base64 of the stored bytes (or of the sealed value when `sealed` is set). */
  data: string;
  sealed?: typeof ARCHIVE_KEY_WRAP;
}

const pad = (n: number) => String(n).padStart(12, '0');
export const manifestKey = (segment: number) => `manifests/${pad(segment)}.json`;
export const segmentBodyKey = (segment: number) => `segments/${pad(segment)}.ndjson`;

/** The bytes the manifest's signature is over. */
export const manifestMessage = (manifest: UnsignedManifest): Uint8Array =>
  utf8(ARCHIVE_SIGNATURE_CONTEXT + canonicalJson(manifest));

/** The manifest file's bytes: its RFC 8785 JSON. */
export const manifestBytes = (manifest: ArchiveManifest): Uint8Array => utf8(canonicalJson(manifest));

/** The body's bytes: one canonical JSON record per line. */
export const bodyBytes = (records: readonly ArchiveRecord[]): Uint8Array =>
  utf8(records.map((r) => `${canonicalJson(r)}\n`).join(''));

/** What the segment before this one left: its manifest's bytes (null before segment 1) and its cursor. */
export interface ArchivePrevious {
  segment: number;
  manifestBytes: Uint8Array | null;
  cursor: Record<string, number>;
}

export type SegmentCheck =
  | { ok: true; manifest: ArchiveManifest; records: ArchiveRecord[] }
  | { ok: false; segment: number; problem: string };

/** Streams whose sequences have no gaps (never purged): a segment must continue them at cursor + 1. */
const GAPLESS = new Set(['LEDGER', 'TLOG']);

/**
 * Checks one segment against the one before it and the log key: the manifest's number, signature and chain, the
 * body's digest, size and records, and the source ranges and cursor. The first failing check is the problem.
 */
export async function checkArchiveSegment(
  input: { manifestBytes: Uint8Array; body: Uint8Array | null },
  previous: ArchivePrevious,
  logKey: NoteKey,
): Promise<SegmentCheck> {
  const segment = previous.segment + 1;
  const bad = (problem: string): SegmentCheck => ({ ok: false, segment, problem });
  let manifest: ArchiveManifest;
  try {
    manifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(input.manifestBytes)) as ArchiveManifest;
  } catch {
    return bad('its manifest is not JSON');
  }
  if (manifest?.format !== ARCHIVE_FORMAT) return bad(`its manifest's format is not ${ARCHIVE_FORMAT}`);
  if (manifest.segment !== segment) return bad(`its manifest says it is segment ${String(manifest.segment)}`);
  if (!bytesEqual(manifestBytes(manifest), input.manifestBytes))
    return bad('its manifest is not in canonical form (RFC 8785)');
  const signatureProblem = await checkManifestSignature(manifest, logKey);
  if (signatureProblem) return bad(signatureProblem);
  const expectedPrevious = previous.manifestBytes ? await sha256Prefixed(previous.manifestBytes) : null;
  if (manifest.previousManifest !== expectedPrevious)
    return bad(
      expectedPrevious
        ? `its previousManifest is not the SHA-256 of segment ${previous.segment}'s manifest`
        : 'segment 1 names a previous manifest',
    );
  if (!input.body) return bad(`its body ${manifest.body.key} is missing`);
  if (input.body.byteLength !== manifest.body.size || (await sha256Prefixed(input.body)) !== manifest.body.digest)
    return bad(`its body ${manifest.body.key} is not the bytes its manifest states (digest or size)`);
  const records = parseBody(input.body);
  if (typeof records === 'string') return bad(records);
  const rangeProblem = checkRanges(manifest, records, previous.cursor);
  return rangeProblem ? bad(rangeProblem) : { ok: true, manifest, records };
}

async function checkManifestSignature(manifest: ArchiveManifest, logKey: NoteKey): Promise<string | null> {
  const { key, signature, ...unsigned } = manifest;
  if (key?.algorithm !== 'Ed25519' || key.name !== logKey.name || key.keyHash !== hex(logKey.keyHash))
    return `it is signed by key ${key?.name}+${key?.keyHash}, not the given log key ${logKey.name}+${hex(logKey.keyHash)}`;
  const raw = typeof signature === 'string' ? fromBase64Strict(signature) : null;
  if (raw?.byteLength !== 64) return 'its signature is not base64 of a 64-byte Ed25519 signature';
  if (!(await ed25519Verify(logKey.publicKey, raw, manifestMessage({ ...unsigned, key }))))
    return 'its signature does not verify with the log key';
  return null;
}

function parseBody(body: Uint8Array): ArchiveRecord[] | string {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  if (text !== '' && !text.endsWith('\n')) return 'its body does not end with a newline';
  const records: ArchiveRecord[] = [];
  for (const [i, line] of text.split('\n').slice(0, -1).entries()) {
    try {
      records.push(JSON.parse(line) as ArchiveRecord);
    } catch {
      return `its body's record ${i + 1} is not JSON`;
    }
  }
  return records;
}

function checkRanges(
  manifest: ArchiveManifest,
  records: ArchiveRecord[],
  cursor: Record<string, number>,
): string | null {
  if (records.length !== manifest.body.records)
    return `its body holds ${records.length} records, not ${manifest.body.records}`;
  let at = 0;
  for (const range of manifest.sources) {
    const mine = records.slice(at, at + range.records);
    at += range.records;
    const before = cursor[range.stream] ?? 0;
    if (mine.length !== range.records || mine.some((r) => r.stream !== range.stream))
      return `its body's records are not grouped as its sources say (${range.stream})`;
    for (let i = 1; i < mine.length; i++)
      if (mine[i]!.seq <= mine[i - 1]!.seq) return `its ${range.stream} records are not in ascending sequence`;
    if (mine[0]?.seq !== range.first || mine.at(-1)?.seq !== range.last)
      return `its ${range.stream} records do not run from ${range.first} to ${range.last}`;
    if (range.first <= before) return `its ${range.stream} records repeat sequences archived before (≤ ${before})`;
    if (GAPLESS.has(range.stream) && range.first !== before + 1)
      return `its ${range.stream} records start at ${range.first}, not right after ${before}: a segment is missing`;
    if (manifest.cursor[range.stream] !== range.last) return `its cursor of ${range.stream} is not ${range.last}`;
  }
  if (at !== records.length) return 'its body holds records of no source it names';
  for (const [stream, seq] of Object.entries(cursor))
    if (!manifest.sources.some((r) => r.stream === stream) && manifest.cursor[stream] !== seq)
      return `its cursor of ${stream} moved without records`;
  return null;
}
