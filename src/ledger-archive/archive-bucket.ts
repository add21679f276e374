import { createHash } from 'node:crypto';
import {
  CreateBucketCommand,
  GetObjectCommand,
  GetObjectLockConfigurationCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { Config } from '../config/config.js';
import { type S3Settings, storageSettings } from '../config/storage-config.js';
import { s3Client } from '../storage/s3-artifact-store.js';
import { isNotFound, isStorageUnavailable, S3StartError, statusOf, unavailable } from '../storage/s3-errors.js';
import { manifestKey } from '../../packages/verifier/src/archive-segment.js';

/**
 * The archive's objects in S3 (docs/operators.md, The archive): `<prefix>/manifests/<n>.json` and
 * `<prefix>/segments/<n>.ndjson`, written once under compliance-mode Object Lock. Of two writers of one key only
 * the first counts: a create is conditional (`If-None-Match: *`), and where S3 keeps versions and lets a second
 * write through anyway (radosgw with Object Lock) the first version written is the object — it is what is read,
 * and a writer whose version is not the first learns that it lost. Segment numbers have no gap, so the last one
 * is found by doubling and halving (HEAD-like reads), however long the archive.
 */
export interface ArchiveLocation {
  settings: S3Settings;
  bucket: string;
  /** '' or ending in '/'. */
  prefix: string;
  url: string;
}

/** ARCHIVE_URL on the S3_* endpoint and credentials; null when no archive is configured. */
export function archiveLocation(config: Config, url = config.ARCHIVE_URL): ArchiveLocation | null {
  if (!url) return null;
  const parsed = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!parsed) throw new S3StartError(`${url} is not s3://<bucket>/<prefix>`);
  const [, bucket, rest] = parsed as unknown as [string, string, string];
  const prefix = rest === '' || rest.endsWith('/') ? rest : `${rest}/`;
  const settings = storageSettings({ ...config, ARTIFACT_STORE: 's3', S3_BUCKET: bucket });
  if (settings.kind !== 's3') throw new S3StartError(`${url}: no S3 settings`);
  return { settings, bucket, prefix, url };
}

export interface ArchiveBucket {
  where: string;
  /** The last segment's number (0: an empty archive). */
  lastSegment(): Promise<number>;
  /** A manifest's bytes, or null when that segment does not exist. */
  readManifest(segment: number): Promise<Uint8Array | null>;
  /** The number of some segment after `segment` (null: none): a gap in the numbering shows this way. */
  manifestAfter(segment: number): Promise<number | null>;
  /** An object's bytes by its key under the prefix (its first version), or null when absent. */
  read(key: string): Promise<Uint8Array | null>;
  /**
   * Creates the object (a body, then its manifest: a segment exists once its manifest does), locked until
   * `retainUntil`; false when an object of that key was there first (another writer's), which stays the object.
   */
  create(key: string, bytes: Uint8Array, retainUntil: Date): Promise<boolean>;
}

/**
 * Opens the archive's bucket: created with Object Lock when absent and `create` is set (the archiver); refused,
 * like the artifact store with retention configured, when it cannot lock objects unless S3_ALLOW_UNLOCKED is set.
 */
export async function openArchiveBucket(loc: ArchiveLocation, opts: { create: boolean }): Promise<ArchiveBucket> {
  const s3 = s3Client(loc.settings);
  const Bucket = loc.bucket;
  const where = `the archive ${loc.url} at ${loc.settings.endpoint ?? `AWS S3 (${loc.settings.region})`}`;
  const startError = (what: string, err: unknown) =>
    isStorageUnavailable(err)
      ? unavailable(err, what)
      : new S3StartError(`${what}: ${(err as Error).name} ${(err as Error).message} (HTTP ${statusOf(err) ?? '—'})`);
  try {
    await s3.send(new HeadBucketCommand({ Bucket }));
  } catch (err) {
    if (!isNotFound(err)) throw startError(`opening ${where}`, err);
    if (!opts.create) throw new S3StartError(`${where}: the bucket does not exist`);
    await s3.send(new CreateBucketCommand({ Bucket, ObjectLockEnabledForBucket: true })).catch((e: unknown) => {
      if (statusOf(e) !== 409) throw startError(`creating ${where}`, e);
    });
  }
  const lock = await s3.send(new GetObjectLockConfigurationCommand({ Bucket })).catch((err: unknown) => {
    if (isNotFound(err) || statusOf(err) === 400) return null;
    throw startError(`reading the Object Lock configuration of ${where}`, err);
  });
  const locked = lock?.ObjectLockConfiguration?.ObjectLockEnabled === 'Enabled';
  if (!locked && opts.create && !loc.settings.allowUnlocked)
    throw new S3StartError(
      `${where} has no Object Lock, so its segments could be altered or deleted. Use a bucket created with Object Lock ` +
        'enabled (a new bucket the archiver creates has it), or set S3_ALLOW_UNLOCKED=true for a bucket meant to hold an unlocked archive (docs/operators.md).',
    );
  return archiveBucketOver(s3, loc, where, locked);
}

function archiveBucketOver(s3: S3Client, loc: ArchiveLocation, where: string, locked: boolean): ArchiveBucket {
  const Bucket = loc.bucket;
  /** The versions of a key, newest first (S3's order); [] when it has none. */
  const versionsOf = async (key: string) => {
    const answer = await s3.send(new ListObjectVersionsCommand({ Bucket, Prefix: loc.prefix + key, MaxKeys: 1000 }));
    return (answer.Versions ?? []).filter((v) => v.Key === loc.prefix + key);
  };
  const read = async (key: string): Promise<Uint8Array | null> => {
    try {
      const versions = await versionsOf(key);
      const first = versions.at(-1);
      if (!first) return null;
      const VersionId = versions.length > 1 && first.VersionId !== 'null' ? first.VersionId : undefined;
      const answer = await s3.send(new GetObjectCommand({ Bucket, Key: loc.prefix + key, VersionId }));
      return await answer.Body!.transformToByteArray();
    } catch (err) {
      if (isNotFound(err)) return null;
      throw unavailable(err, `reading ${key} of ${where}`);
    }
  };
  const exists = async (segment: number) => {
    const answer = await s3.send(
      new ListObjectsV2Command({ Bucket, Prefix: loc.prefix + manifestKey(segment), MaxKeys: 1 }),
    );
    return (answer.KeyCount ?? 0) > 0;
  };
  const put = (Key: string, Body: Uint8Array, retainUntil: Date) =>
    s3.send(
      new PutObjectCommand({
        Bucket,
        Key: loc.prefix + Key,
        Body,
        ContentMD5: createHash('md5').update(Body).digest('base64'),
        IfNoneMatch: '*',
        ...(locked ? { ObjectLockMode: 'COMPLIANCE' as const, ObjectLockRetainUntilDate: retainUntil } : {}),
      }),
    );
  return {
    where,
    read,
    readManifest: (segment) => read(manifestKey(segment)),
    async manifestAfter(segment) {
      const answer = await s3
        .send(
          new ListObjectsV2Command({
            Bucket,
            Prefix: `${loc.prefix}manifests/`,
            StartAfter: loc.prefix + manifestKey(segment),
            MaxKeys: 1,
          }),
        )
        .catch((err: unknown) => {
          throw unavailable(err, `listing the segments of ${where}`);
        });
      const key = answer.Contents?.[0]?.Key;
      const found = key ? /(\d{12})\.json$/.exec(key) : null;
      return found ? Number(found[1]) : null;
    },
    async lastSegment() {
      try {
        // Segments 1..n exist and n+1 does not: double until one is missing, then halve between.
        let high = 1;
        while (await exists(high)) high *= 2;
        let low = high / 2; // exists (or 0.5 when segment 1 is missing)
        if (low < 1) return 0;
        while (high - low > 1) {
          const mid = Math.floor((low + high) / 2);
          if (await exists(mid)) low = mid;
          else high = mid;
        }
        return low;
      } catch (err) {
        throw unavailable(err, `finding the last segment of ${where}`);
      }
    },
    async create(key, bytes, retainUntil) {
      try {
        const written = await put(key, bytes, retainUntil);
        if (!written.VersionId || written.VersionId === 'null') return true;
        // A versioned bucket may have let this write through over an earlier one: only the first version counts.
        return (await versionsOf(key)).at(-1)?.VersionId === written.VersionId;
      } catch (err) {
        // 412: the key exists; 409: another conditional write of it is under way (AWS S3).
        if (statusOf(err) === 412 || statusOf(err) === 409) return false;
        throw unavailable(err, `writing ${key} of ${where}`);
      }
    },
  };
}
