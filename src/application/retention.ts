import type { ServiceContext } from './service-context.js';
import { causedByAdmin } from './caller.js';
import { ArtifactLockedError, type ArtifactStore, type ObjectLock } from '../storage/artifact-store.js';
import { defaultRetentionDays } from '../config/storage-config.js';
import { refusal } from '../domain/errors.js';
import { isId } from '../domain/ids.js';
import { TENANT_ID_PATTERN } from '../domain/tenant-keys.js';
import type { TenantCommandOf } from '../domain/tenant/tenant-commands.js';
import { findCapture } from '../../projections/read-models/captures.js';
import {
  findActiveLegalHolds,
  findLegalHold,
  findTenantRetentionDays,
} from '../../projections/read-models/retention.js';

/**
 * Retention and legal hold of stored evidence (docs/storage.md). A tenant's captures are stored locked
 * (S3 Object Lock, compliance mode) for its retention — its own, set by an operator, or RETENTION_DEFAULT_DAYS;
 * an operator places and lifts a legal hold on one capture. Storage applies each change first; the ledger then
 * records it with who and why. Shortening a retention or deleting a retained object is refused by the storage
 * itself: the answer says so.
 */

export type Retention = ReturnType<typeof createRetention>;

const DAY_MS = 86_400_000;

/** Who and why, as the operator gives them: both required, so the ledger can say. */
export interface RetentionActor {
  by: string;
  reason: string;
}

/** The date a tenant's capture completed at `completedAt` is retained until, or null (no retention, no lock). */
export function retentionPolicy(ctx: Pick<ServiceContext, 'pool' | 'config'>, artifacts: ArtifactStore) {
  return async (tenantId: string, completedAt: Date): Promise<Date | null> => {
    if (!artifacts.locks) return null;
    const own = await findTenantRetentionDays(ctx.pool, tenantId);
    const days = own ?? defaultRetentionDays(ctx.config);
    return days > 0 ? new Date(completedAt.getTime() + days * DAY_MS) : null;
  };
}

/**
 * The date every object of a capture's evidence — its artifacts, and what is made of it later (certificates, change
 * certificates, corroboration records) — is retained until: the capture's own retention (completion plus the
 * tenant's), or the date storage holds its bundle to when that was extended since; null without retention.
 */
export function evidenceRetention(ctx: Pick<ServiceContext, 'pool' | 'config'>, artifacts: ArtifactStore) {
  const policy = retentionPolicy(ctx, artifacts);
  return async (captureId: string): Promise<Date | null> => {
    if (!artifacts.locks) return null;
    const row = await findCapture(ctx.pool, captureId);
    if (row?.status !== 'complete' || !row.completed_at) return null;
    const dates = [await policy(row.tenant_id, row.completed_at)];
    const bundle = row.artifacts?.wacz ?? row.artifacts?.provenance;
    if (bundle) dates.push((await artifacts.lock.state(bundle))?.retainUntil ?? null);
    const known = dates.filter((d): d is Date => d !== null);
    return known.length ? new Date(Math.max(...known.map((d) => d.getTime()))) : null;
  };
}

/** The parts of the service's context it needs (the CLI builds the same from its session). */
export type RetentionContext = Pick<ServiceContext, 'pool' | 'config' | 'tenants' | 'waiter'>;

/** Where what is made of a capture later is stored: under its id (certificate), and its diffs' folder. */
export const evidencePrefixes = (captureId: string) => [`${captureId}/`, `diffs/${captureId}/`];

export function createRetention(ctx: RetentionContext, artifacts: ArtifactStore) {
  const r: Retentions = { ctx, artifacts };
  return {
    tenant: (tenantId: string) => tenantView(r, tenantId),
    /**
     * Sets (null: clears) the tenant's retention in days for captures completed from now on; the answer says so
     * (`appliesTo`, `detail`): captures stored before keep the dates storage holds them to, lowered or not.
     */
    setTenant: (correlationId: string, tenantId: string, days: number | null, who: RetentionActor) =>
      setTenantRetention(r, correlationId, tenantId, days, who),
    capture: (captureId: string) => captureView(r, captureId),
    /** Places (`active`) or lifts a legal hold on every stored object of one capture, then records it. */
    setLegalHold: (correlationId: string, captureId: string, active: boolean, who: RetentionActor) =>
      setLegalHold(r, correlationId, captureId, active, who),
    /**
     * Moves the capture's retain-until date: storage extends it; shortening it is refused by storage itself
     * (compliance mode), answered 409 saying so. Recorded when applied.
     */
    retainUntil: (correlationId: string, captureId: string, until: Date, who: RetentionActor) =>
      retainCaptureUntil(r, correlationId, captureId, until, who),
  };
}

/** What retention works with: the service's pool, actors and configuration, and the artifacts store. */
interface Retentions {
  ctx: RetentionContext;
  artifacts: ArtifactStore;
}

/** The store's lock, when it enforces one; 409 saying why storage cannot (its adapter knows). */
function lockOf({ artifacts }: Retentions): ObjectLock {
  if (!artifacts.locks) throw refusal(409, artifacts.lock.unavailable ?? 'Storage cannot lock objects.');
  return artifacts.lock;
}

/** A complete capture and its stored objects; 404 for an unknown one, 409 while it is not complete. */
async function objectsOf({ ctx, artifacts }: Retentions, captureId: string) {
  const row = isId('cap', captureId) ? await findCapture(ctx.pool, captureId) : null;
  if (!row) throw refusal(404, `No capture ${captureId}.`);
  if (row.status !== 'complete' || !row.artifacts)
    throw refusal(409, `Capture ${captureId} is ${row.status}; only a complete capture's stored objects can be held.`);
  const named = Object.values(row.artifacts).filter((o): o is string => typeof o === 'string');
  // Besides the artifacts the ledger names: what was made of the capture since (its certificate, change
  // certificates, corroboration records), stored under its id. Listed only where storage locks objects: nothing
  // else reads them, and a JetStream listing reads every name in the bucket.
  const listed = artifacts.locks
    ? (await Promise.all(evidencePrefixes(captureId).map((p) => artifacts.list(p)))).flat()
    : [];
  const objects = [...new Set([...named, ...listed])];
  return { row, objects, bundle: row.artifacts.wacz ?? row.artifacts.provenance ?? objects[0] };
}

/** The stored objects of every other capture under a legal hold: lifting one hold must not lift theirs. */
async function objectsOfOtherHolds(r: Retentions, captureId: string): Promise<string[]> {
  const held = await findActiveLegalHolds(r.ctx.pool);
  const others = held.filter((id) => id !== captureId);
  return (await Promise.all(others.map(async (id) => (await objectsOf(r, id)).objects))).flat();
}

/** The capture's retention as storage holds it: the earliest date of all its objects (null: one is not retained). */
async function captureView(r: Retentions, captureId: string) {
  const { artifacts } = r;
  const { bundle, objects } = await objectsOf(r, captureId);
  // Storage that cannot lock holds no object to a date: nothing to ask it object by object.
  const states = artifacts.locks ? await Promise.all(objects.map((o) => artifacts.lock.state(o))) : [];
  const dates = states.filter((st) => st !== null).map((st) => st.retainUntil);
  const retainUntil =
    dates.length && dates.every((d) => d !== null) ? new Date(Math.min(...dates.map((d) => d!.getTime()))) : null;
  const state = bundle ? states[objects.indexOf(bundle)] : null;
  const hold = await findLegalHold(r.ctx.pool, captureId);
  return {
    captureId,
    storage: artifacts.kind,
    retainUntil: retainUntil?.toISOString() ?? null,
    legalHold: {
      active: state?.legalHold ?? false,
      ...(hold ? { by: hold.changed_by, reason: hold.reason, at: hold.changed_at.toISOString() } : {}),
    },
  };
}

async function tenantView({ ctx, artifacts }: Retentions, tenantId: string) {
  const own = await findTenantRetentionDays(ctx.pool, tenantId);
  const fallback = defaultRetentionDays(ctx.config);
  return {
    tenantId,
    days: own ?? fallback,
    source: own === undefined || own === null ? ('default' as const) : ('tenant' as const),
    defaultDays: fallback,
    locked: artifacts.locks,
  };
}

type RetentionCommand = TenantCommandOf<'SetRetention' | 'PlaceLegalHold' | 'LiftLegalHold' | 'ExtendRetention'>;

/** Record a retention command on the tenant's ledger and wait until the read models show it. */
async function record(r: Retentions, tenantId: string, command: RetentionCommand, correlationId: string) {
  const result = await r.ctx.tenants.execute(tenantId, command, causedByAdmin(correlationId));
  const seq = result.appended.at(-1)?.seq;
  if (seq) await r.ctx.waiter.waitFor(seq);
}

async function setTenantRetention(
  r: Retentions,
  correlationId: string,
  tenantId: string,
  days: number | null,
  who: RetentionActor,
) {
  if (!TENANT_ID_PATTERN.test(tenantId)) throw refusal(400, 'tenantId must match ^[a-z0-9_-]{1,64}$.');
  const before = await tenantView(r, tenantId);
  await record(r, tenantId, { type: 'SetRetention', data: { days, ...who } }, correlationId);
  const after = await tenantView(r, tenantId);
  const lowered = after.days < before.days;
  return {
    ...after,
    appliesTo: 'captures completed from now on' as const,
    detail: lowered
      ? `Retention lowered from ${before.days} to ${after.days} days for captures completed from now on; captures stored before stay retained until the dates storage holds them to (compliance mode: nobody can shorten them).`
      : `Captures completed from now on are retained ${after.days} days; captures stored before keep their retain-until dates.`,
  };
}

async function setLegalHold(
  r: Retentions,
  correlationId: string,
  captureId: string,
  active: boolean,
  who: RetentionActor,
) {
  const lock = lockOf(r);
  const { row, objects } = await objectsOf(r, captureId);
  await lock.legalHold(objects, active, active ? [] : await objectsOfOtherHolds(r, captureId));
  const type = active ? 'PlaceLegalHold' : 'LiftLegalHold';
  await record(r, row.tenant_id, { type, data: { captureId, ...who } }, correlationId);
  return captureView(r, captureId);
}

async function retainCaptureUntil(
  r: Retentions,
  correlationId: string,
  captureId: string,
  until: Date,
  who: RetentionActor,
) {
  const lock = lockOf(r);
  const { row, objects } = await objectsOf(r, captureId);
  try {
    for (const object of objects) await lock.retain(object, until);
  } catch (err) {
    if (!(err instanceof ArtifactLockedError)) throw err;
    const current = await captureView(r, captureId);
    throw refusal(
      409,
      `Storage refused: capture ${captureId} is retained until ${current.retainUntil ?? 'a later date'} under S3 Object Lock in compliance mode, which nobody can shorten or delete before then (${err.message})`,
    );
  }
  const data = { captureId, retainUntil: until.toISOString(), ...who };
  await record(r, row.tenant_id, { type: 'ExtendRetention', data }, correlationId);
  return captureView(r, captureId);
}
