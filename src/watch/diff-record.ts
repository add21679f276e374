import { createHash } from 'node:crypto';
import { canonicalJson, canonicalJsonBytes } from '../domain/canonical-json.js';
import type { CaptureDiff } from './capture-diff.js';

/**
 * The record a diff is attested by (docs/watch.md, packages/verifier/src/diff.ts): both captures with their bundle
 * hashes, the options, the summary, which ignoreSelectors and ignoreText were masked in pixels and the SHA-256 of each part's RFC 8785 JSON — so anyone holding the full diff
 * can check each part against the record. Deterministic: the same two captures and options give the same bytes,
 * so the stored evidence is written once.
 */
export interface DiffRecord {
  record: string;
  recordHash: string;
}

const sha256Of = (value: unknown) =>
  value === null ? null : `sha256:${createHash('sha256').update(canonicalJsonBytes(value)).digest('hex')}`;

export function diffRecord(diff: CaptureDiff): DiffRecord {
  const record = canonicalJson({
    v: 1,
    kind: 'capture-diff',
    base: diff.base,
    capture: diff.capture,
    sameUrl: diff.sameUrl,
    options: diff.options,
    changed: diff.changed,
    summary: diff.summary,
    // Which ignoreSelectors and ignoreText the pixel comparison left out (their recorded boxes) and which it could not.
    pixelsIgnored: diff.screenshot?.ignored ?? null,
    parts: {
      text: sha256Of(diff.text),
      headers: sha256Of(diff.headers),
      resources: sha256Of(diff.resources),
      screenshot: sha256Of(diff.screenshot),
    },
  });
  return { record, recordHash: `sha256:${createHash('sha256').update(record, 'utf8').digest('hex')}` };
}
