import type { JetStreamClient } from '@nats-io/jetstream';
import { ArtifactCorruptError, ArtifactLockedError, type ArtifactStore, digestOf } from './artifact-store.js';
import { storedNamesIn } from './jetstream-artifact-store.js';
import { certificateObjectName } from '../evidence/certificate-storage.js';
import { corroborationObjectName } from '../vantages/corroboration-storage.js';
import type { StoredEvent } from '../ledger/event-store.js';
import { type LedgerWalkOptions, namedObjects, walkCompletedCaptures } from './stored-evidence-check.js';
import { whileNatsUnavailable } from '../infra/nats-unavailable.js';

/**
 * `capture-ledger storage migrate`: copies every object the ledger names from one artifact store to another
 * (JetStream → S3), capture by capture in ledger order, with each capture's issued certificate and corroboration
 * records (from the source's KV bucket) and the change certificates and diff evidence made of it (found by name
 * in the source). Idempotent: an object the target holds
 * already with the same digest is left alone, so a stopped run is resumed from its last sequence (or simply run
 * again). Each object is read whole from the source — which checks it against its digest — and written with
 * that digest; an object missing or damaged in the source is reported, never copied. With `retainUntil` (the
 * tenant's retention, as the worker applies it to new captures) each object is locked in the target until the
 * capture's completion plus that retention; one copied before without it is retained now (storage only ever
 * extends a retention).
 */
export interface MigrationTally {
  captures: number;
  objects: number;
  copied: number;
  /** Already in the target with the same digest. */
  present: number;
  missing: number;
  corrupt: number;
  bytes: number;
  lastSeq: number;
}

export interface MigrationProblem {
  seq: number;
  tenantId: string;
  captureId: string;
  artifact: string;
  object: string;
  status: 'missing' | 'corrupt' | 'conflict';
  detail?: string;
}

export interface MigrationOptions extends LedgerWalkOptions {
  source: ArtifactStore;
  target: ArtifactStore;
  onProblem(problem: MigrationProblem): Promise<void> | void;
  /** The date a tenant's capture completed at `completedAt` is retained until, or null (retention.ts). */
  retainUntil?(tenantId: string, completedAt: Date): Promise<Date | null>;
  /**
   * The source deployment's issued certificate of a capture (its KV bucket), or null: copied to the capture's
   * certificate object in the target and locked like the capture's artifacts.
   */
  certificateOf?(captureId: string): Promise<Uint8Array | null>;
  /**
   * The source deployment's signed corroboration record (its KV bucket), or null: copied under each member capture
   * (`corroborationObjectName`) and locked until the latest of the members' dates in the target.
   */
  corroborationRecordOf?(corroborationId: string): Promise<Uint8Array | null>;
  /**
   * The source's objects made of diffs of the capture (`diffs/<captureId>/…`: change certificates and diff
   * evidence): copied like its artifacts and locked until the capture's date, as the service locks them.
   */
  diffObjectsOf?(captureId: string): Promise<string[]>;
  /** After each object: running totals (progress). */
  onObject?(tally: MigrationTally): void;
}

export async function migrateStoredEvidence(opts: MigrationOptions): Promise<MigrationTally> {
  const tally: MigrationTally = {
    captures: 0,
    objects: 0,
    copied: 0,
    present: 0,
    missing: 0,
    corrupt: 0,
    bytes: 0,
    lastSeq: opts.fromSeq - 1,
  };
  const budgetMs = opts.unavailableBudgetMs ?? 120_000;
  const fromSource = <T>(work: () => Promise<T>) => whileNatsUnavailable(work, { budgetMs });
  tally.lastSeq = await walkCompletedCaptures(
    opts,
    async (e, data) => {
      tally.captures++;
      const until = opts.retainUntil ? await opts.retainUntil(e.event.tenantId, new Date(data.completedAt)) : null;
      // The ledger names the artifacts; the diffs made of the capture since (change certificates, diff evidence)
      // are found by their names in the source, which carry a hash of the diff options the ledger does not record.
      const made = opts.diffObjectsOf ? await fromSource(() => opts.diffObjectsOf!(data.captureId)) : [];
      for (const [artifact, object] of [...namedObjects(data), ...made.map((o): [string, string] => ['diff', o])]) {
        tally.objects++;
        const at = { seq: e.seq, tenantId: e.event.tenantId, captureId: data.captureId, artifact, object };
        const problem = await copyOne(object, until);
        if (problem) {
          tally[problem.status === 'conflict' ? 'corrupt' : problem.status]++;
          await opts.onProblem({ ...at, ...problem });
        }
        opts.onObject?.(tally);
      }
      const certificate = opts.certificateOf ? await fromSource(() => opts.certificateOf!(data.captureId)) : null;
      if (certificate) {
        tally.objects++;
        const object = certificateObjectName(data.captureId);
        const problem = await copyBytes(object, certificate, until);
        if (problem) {
          tally.corrupt++;
          await opts.onProblem({
            seq: e.seq,
            tenantId: e.event.tenantId,
            captureId: data.captureId,
            artifact: 'certificate',
            object,
            ...problem,
          });
        }
        opts.onObject?.(tally);
      }
    },
    migrateCorroboration,
  );
  return tally;

  /** A corroboration record issued: its members' objects are in the target already (the ledger's order). */
  async function migrateCorroboration(e: StoredEvent) {
    if (e.event.type !== 'capture.corroboration_attested' || !opts.corroborationRecordOf) return;
    const { corroborationId, captureIds } = e.event.data as { corroborationId: string; captureIds: string[] };
    const record = await fromSource(() => opts.corroborationRecordOf!(corroborationId));
    if (!record) return;
    const until = await latestRetention(captureIds);
    for (const captureId of captureIds) {
      tally.objects++;
      const object = corroborationObjectName(captureId, corroborationId);
      const problem = await copyBytes(object, record, until);
      if (problem) {
        tally.corrupt++;
        await opts.onProblem({
          seq: e.seq,
          tenantId: e.event.tenantId,
          captureId,
          artifact: 'corroboration',
          object,
          ...problem,
        });
      }
      opts.onObject?.(tally);
    }
  }

  /** The latest date the target holds any member's objects to (listed under its id; null where it cannot lock). */
  async function latestRetention(captureIds: string[]): Promise<Date | null> {
    const { lock, list } = opts.target;
    let latest: Date | null = null;
    for (const captureId of captureIds) {
      const [first] = await list(`${captureId}/`);
      const held = first ? (await lock.state(first))?.retainUntil : null;
      if (held && (!latest || held > latest)) latest = held;
    }
    return latest;
  }

  /** Retains an object the target holds already: storage only ever extends, so a longer date stands. */
  async function retainPresent(object: string, until: Date | null) {
    if (until)
      await opts.target.lock.retain(object, until).catch((err: unknown) => {
        if (!(err instanceof ArtifactLockedError)) throw err;
      });
  }

  /** Bytes read from elsewhere than the artifacts store (an issued certificate): copied, or found there already. */
  async function copyBytes(object: string, bytes: Uint8Array, until: Date | null) {
    const have = await opts.target.stat(object);
    if (have && have.digest.replace(/=+$/, '') === digestOf(bytes).replace(/=+$/, '')) {
      tally.present++;
      await retainPresent(object, until);
      return null;
    }
    if (have)
      return { status: 'conflict' as const, detail: `the target holds other bytes (${have.digest}) under this name` };
    await opts.target.put(object, bytes, until ? { retainUntil: until } : {});
    tally.copied++;
    tally.bytes += bytes.byteLength;
    return null;
  }

  async function copyOne(
    object: string,
    until: Date | null,
  ): Promise<Pick<MigrationProblem, 'status' | 'detail'> | null> {
    const [have, stat] = await Promise.all([opts.target.stat(object), fromSource(() => opts.source.stat(object))]);
    if (have && stat && have.digest.replace(/=+$/, '') === stat.digest.replace(/=+$/, '')) {
      tally.present++;
      await retainPresent(object, until);
      return null;
    }
    if (!stat) return { status: 'missing', detail: 'not in the source store' };
    let bytes: Uint8Array | null;
    try {
      bytes = await fromSource(() => opts.source.get(object));
    } catch (err) {
      if (!(err instanceof ArtifactCorruptError)) throw err;
      return { status: 'corrupt', detail: err.message };
    }
    if (!bytes) return { status: 'missing', detail: 'not in the source store' };
    if (have) return { status: 'conflict', detail: `the target holds other bytes (${have.digest}) under this name` };
    await opts.target.put(object, bytes, until ? { retainUntil: until } : {});
    tally.copied++;
    tally.bytes += bytes.byteLength;
    return null;
  }
}

/**
 * The diff objects (`diffs/<captureId>/<baseId>/<options hash>.<ext>`) of a JetStream artifacts bucket by capture:
 * nothing but their names finds them, so the bucket is listed once. One made after the listing is copied by
 * the next run.
 */
export async function diffObjectsByCapture(js: JetStreamClient): Promise<(captureId: string) => string[]> {
  const byCapture = new Map<string, string[]>();
  const names = await whileNatsUnavailable(() => storedNamesIn(js, 'diffs/'), { budgetMs: 120_000 });
  for (const name of names) {
    const captureId = name.split('/')[1]!;
    byCapture.set(captureId, [...(byCapture.get(captureId) ?? []), name]);
  }
  return (captureId) => byCapture.get(captureId) ?? [];
}
