import type { JetStreamClient } from '@nats-io/jetstream';
import { ArtifactCorruptError, ArtifactLockedError, type ArtifactStore, digestOf } from './artifact-store.js';
import { storedNamesIn } from './jetstream-artifact-store.js';
import { certificateObjectName } from '../evidence/certificate-storage.js';
import { corroborationObjectName } from '../vantages/corroboration-storage.js';
import type { StoredEvent } from '../ledger/event-store.js';
import {
  type Completed,
  type LedgerWalkOptions,
  namedObjects,
  walkCompletedCaptures,
} from './stored-evidence-check.js';
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

/** A migration under way: its options, running totals, and how the source is read (waiting through outages). */
interface Migration {
  opts: MigrationOptions;
  tally: MigrationTally;
  fromSource<T>(work: () => Promise<T>): Promise<T>;
}

type ObjectProblem = Pick<MigrationProblem, 'status' | 'detail'>;

export async function migrateStoredEvidence(opts: MigrationOptions): Promise<MigrationTally> {
  const budgetMs = opts.unavailableBudgetMs ?? 120_000;
  const m: Migration = {
    opts,
    tally: {
      captures: 0,
      objects: 0,
      copied: 0,
      present: 0,
      missing: 0,
      corrupt: 0,
      bytes: 0,
      lastSeq: opts.fromSeq - 1,
    },
    fromSource: (work) => whileNatsUnavailable(work, { budgetMs }),
  };
  m.tally.lastSeq = await walkCompletedCaptures(
    opts,
    (e, data) => migrateCapture(m, e, data),
    (e) => migrateCorroboration(m, e),
  );
  return m.tally;
}

/** A completed capture: the objects the ledger names, the diffs made of it, and its issued certificate. */
async function migrateCapture(m: Migration, e: StoredEvent, data: Completed): Promise<void> {
  const { opts, tally } = m;
  tally.captures++;
  const until = opts.retainUntil ? await opts.retainUntil(e.event.tenantId, new Date(data.completedAt)) : null;
  const at = { seq: e.seq, tenantId: e.event.tenantId, captureId: data.captureId };
  // The ledger names the artifacts; the diffs made of the capture since (change certificates, diff evidence)
  // are found by their names in the source, which carry a hash of the diff options the ledger does not record.
  const made = opts.diffObjectsOf ? await m.fromSource(() => opts.diffObjectsOf!(data.captureId)) : [];
  for (const [artifact, object] of [...namedObjects(data), ...made.map((o): [string, string] => ['diff', o])])
    await migrated(m, { ...at, artifact, object }, await copyOne(m, object, until));
  const certificate = opts.certificateOf ? await m.fromSource(() => opts.certificateOf!(data.captureId)) : null;
  if (certificate) {
    const object = certificateObjectName(data.captureId);
    await migrated(m, { ...at, artifact: 'certificate', object }, await copyBytes(m, object, certificate, until));
  }
}

/** A corroboration record issued: its members' objects are in the target already (the ledger's order). */
async function migrateCorroboration(m: Migration, e: StoredEvent): Promise<void> {
  const { opts } = m;
  if (e.event.type !== 'capture.corroboration_attested' || !opts.corroborationRecordOf) return;
  const { corroborationId, captureIds } = e.event.data as { corroborationId: string; captureIds: string[] };
  const record = await m.fromSource(() => opts.corroborationRecordOf!(corroborationId));
  if (!record) return;
  const until = await latestRetention(m, captureIds);
  for (const captureId of captureIds) {
    const object = corroborationObjectName(captureId, corroborationId);
    const at = { seq: e.seq, tenantId: e.event.tenantId, captureId, artifact: 'corroboration', object };
    await migrated(m, at, await copyBytes(m, object, record, until));
  }
}

/** One object done: counted, its problem (a conflict counts as corrupt) reported, progress told. */
async function migrated(
  m: Migration,
  at: Omit<MigrationProblem, 'status' | 'detail'>,
  problem: ObjectProblem | null,
): Promise<void> {
  m.tally.objects++;
  if (problem) {
    m.tally[problem.status === 'conflict' ? 'corrupt' : problem.status]++;
    await m.opts.onProblem({ ...at, ...problem });
  }
  m.opts.onObject?.(m.tally);
}

/** The latest date the target holds any member's objects to (listed under its id; null where it cannot lock). */
async function latestRetention(m: Migration, captureIds: string[]): Promise<Date | null> {
  const { lock, list } = m.opts.target;
  let latest: Date | null = null;
  for (const captureId of captureIds) {
    const [first] = await list(`${captureId}/`);
    const held = first ? (await lock.state(first))?.retainUntil : null;
    if (held && (!latest || held > latest)) latest = held;
  }
  return latest;
}

/** Retains an object the target holds already: storage only ever extends, so a longer date stands. */
async function retainPresent(m: Migration, object: string, until: Date | null) {
  if (until)
    await m.opts.target.lock.retain(object, until).catch((err: unknown) => {
      if (!(err instanceof ArtifactLockedError)) throw err;
    });
}

/** Bytes read from elsewhere than the artifacts store (an issued certificate): copied, or found there already. */
async function copyBytes(
  m: Migration,
  object: string,
  bytes: Uint8Array,
  until: Date | null,
): Promise<ObjectProblem | null> {
  const have = await m.opts.target.stat(object);
  if (have && have.digest.replace(/=+$/, '') === digestOf(bytes).replace(/=+$/, '')) {
    m.tally.present++;
    await retainPresent(m, object, until);
    return null;
  }
  if (have) return { status: 'conflict', detail: `the target holds other bytes (${have.digest}) under this name` };
  await m.opts.target.put(object, bytes, until ? { retainUntil: until } : {});
  m.tally.copied++;
  m.tally.bytes += bytes.byteLength;
  return null;
}

/** An object of the source store: copied after its digest is checked, or found in the target already. */
async function copyOne(m: Migration, object: string, until: Date | null): Promise<ObjectProblem | null> {
  const { source, target } = m.opts;
  const [have, stat] = await Promise.all([target.stat(object), m.fromSource(() => source.stat(object))]);
  if (have && stat && have.digest.replace(/=+$/, '') === stat.digest.replace(/=+$/, '')) {
    m.tally.present++;
    await retainPresent(m, object, until);
    return null;
  }
  if (!stat) return { status: 'missing', detail: 'not in the source store' };
  let bytes: Uint8Array | null;
  try {
    bytes = await m.fromSource(() => source.get(object));
  } catch (err) {
    if (!(err instanceof ArtifactCorruptError)) throw err;
    return { status: 'corrupt', detail: err.message };
  }
  if (!bytes) return { status: 'missing', detail: 'not in the source store' };
  if (have) return { status: 'conflict', detail: `the target holds other bytes (${have.digest}) under this name` };
  await target.put(object, bytes, until ? { retainUntil: until } : {});
  m.tally.copied++;
  m.tally.bytes += bytes.byteLength;
  return null;
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
