import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { S3Settings } from '../config/storage-config.js';
import { s3Client } from '../storage/s3-artifact-store.js';
import { nameKey } from '../storage/s3-layout.js';

/**
 * The captures whose artifacts are in the S3 artifact store (`names/<captureId>/…`, src/storage/s3-layout.ts):
 * what storage tells of captures the archive may not hold.
 */
export async function storedCaptureIds(settings: S3Settings): Promise<Set<string>> {
  const s3 = s3Client(settings);
  const prefix = nameKey('');
  const ids = new Set<string>();
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: settings.bucket, Prefix: `${prefix}cap_`, Delimiter: '/', ContinuationToken }),
    );
    for (const p of page.CommonPrefixes ?? []) if (p.Prefix) ids.add(p.Prefix.slice(prefix.length, -1));
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return ids;
}

/** Captures storage knows of that the restored ledger does not name, sorted. */
export const lostCaptures = (stored: Set<string>, restored: Set<string>): string[] =>
  [...stored].filter((id) => !restored.has(id)).sort();
