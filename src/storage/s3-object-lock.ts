import {
  DeleteObjectCommand,
  HeadObjectCommand,
  PutObjectLegalHoldCommand,
  PutObjectRetentionCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { ArtifactLockedError, type ObjectLock } from './artifact-store.js';
import { isLockRefusal, unavailable } from './s3-errors.js';
import { type NameRecord, nameKey, versionOf } from './s3-layout.js';

/**
 * S3 Object Lock over the S3 store's objects (docs/storage.md): the retention and legal hold of the blob a name's
 * record points at and of the record itself, always together. Compliance mode: S3 refuses a delete or a
 * shorter date for everyone, and this says so as ArtifactLockedError.
 */
export interface S3LockDeps {
  s3: S3Client;
  Bucket: string;
  recordOf(name: string): Promise<NameRecord | null>;
  /** A read: an outage fails at once. */
  once<T>(what: string, op: () => Promise<T>): Promise<T>;
  /** A write: waits through an outage. */
  patiently<T>(what: string, op: () => Promise<T>): Promise<T>;
}

export function s3ObjectLock({ s3, Bucket, recordOf, once, patiently }: S3LockDeps): ObjectLock {
  return {
    unavailable: null,
    async state(name) {
      const record = await once(`reading ${name}`, () => recordOf(name));
      if (!record) return null;
      const head = await once(`reading ${name}`, () =>
        s3.send(new HeadObjectCommand({ Bucket, Key: record.blob, ...versionOf(record) })),
      );
      // The hold is the name's (its record carries it): the blob may stay held for another capture's hold.
      const named = await once(`reading ${name}`, () =>
        s3.send(new HeadObjectCommand({ Bucket, Key: nameKey(name) })).catch(() => null),
      );
      // The object is retained as long as both its bytes and the record naming them are: the earlier date.
      const dates = [head.ObjectLockRetainUntilDate, named?.ObjectLockRetainUntilDate];
      const retainUntil = dates.some((d) => !d) ? null : new Date(Math.min(...dates.map((d) => d!.getTime())));
      return {
        retainUntil,
        legalHold: (named ?? head).ObjectLockLegalHoldStatus === 'ON',
      };
    },
    async legalHold(names, on, stillHeld = []) {
      const keptBlobs = new Set<string>();
      if (!on)
        for (const name of stillHeld) {
          const record = await patiently(`reading ${name}`, () => recordOf(name));
          if (record) keptBlobs.add(blobIdentity(record));
        }
      for (const name of names) {
        const record = await patiently(`reading ${name}`, () => recordOf(name));
        if (!record) continue;
        const LegalHold = { Status: on ? ('ON' as const) : ('OFF' as const) };
        const blobToo = on || !keptBlobs.has(blobIdentity(record));
        await patiently(`holding ${name}`, async () => {
          if (blobToo)
            await s3.send(new PutObjectLegalHoldCommand({ Bucket, Key: record.blob, ...versionOf(record), LegalHold }));
          await s3.send(new PutObjectLegalHoldCommand({ Bucket, Key: nameKey(name), LegalHold }));
        });
      }
    },
    async remove(name) {
      const record = await once(`reading ${name}`, () => recordOf(name));
      if (!record) return;
      try {
        await s3.send(new DeleteObjectCommand({ Bucket, Key: record.blob, ...versionOf(record) }));
      } catch (err) {
        if (isLockRefusal(err))
          throw new ArtifactLockedError(
            `Object storage refused deleting ${name}: it is under S3 Object Lock (compliance retention or legal hold).`,
          );
        throw unavailable(err, `deleting ${name}`);
      }
    },
    async retain(name, until) {
      const record = await once(`reading ${name}`, () => recordOf(name));
      if (!record) return;
      const Retention = { Mode: 'COMPLIANCE' as const, RetainUntilDate: until };
      const extend = (Key: string, version: { VersionId?: string }) =>
        s3.send(new PutObjectRetentionCommand({ Bucket, Key, ...version, Retention }));
      try {
        // The record naming the bytes is this name's alone: storage refusing it is a shorter date, said as such.
        await extend(nameKey(name), {});
        // The bytes move with it; bytes another capture shares may be held longer already, and that date stands.
        await extend(record.blob, versionOf(record)).catch(async (err: unknown) => {
          if (!isLockRefusal(err)) throw err;
          const held = (await s3.send(new HeadObjectCommand({ Bucket, Key: record.blob, ...versionOf(record) })))
            .ObjectLockRetainUntilDate;
          if (!held || held < until) throw err;
        });
      } catch (err) {
        if (isLockRefusal(err))
          throw new ArtifactLockedError(
            `Object storage refused retaining ${name} only until ${until.toISOString()}: compliance-mode retention can be extended, never shortened.`,
          );
        throw unavailable(err, `retaining ${name}`);
      }
    },
  };
}

/** The stored bytes a record points at: one blob version, however many names share it. */
const blobIdentity = (r: NameRecord) => `${r.blob}@${r.version ?? ''}`;
