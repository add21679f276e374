import type { Causer } from '../../src/domain/events.js';
import type { StoredEvent } from '../../src/ledger/event-store.js';
import {
  type ReadRow,
  auditedReadModel,
  type Sql,
  type TableComparison,
  type TenantEnvelope,
  type TenantEventType,
} from './read-model.js';
import {
  compareFoldedRows,
  type InsertChange,
  rareEventWriter,
  rowFold,
  tableSpec,
  type UpdateChange,
} from './row-changes.js';

/**
 * `profiles`: every browser profile (docs/profiles.md), deleted ones kept with their time: its name, latest
 * version, the sites it covers, counts and the digest of its sealed contents, who made it and when it was last
 * used. Never a cookie or storage value: those never reach the ledger.
 */

const PROFILES_HANDLES: readonly TenantEventType[] = [
  'profile.created',
  'profile.updated',
  'profile.renamed',
  'profile.deleted',
  'profile.used',
];

export type ProfileValues = {
  profile_id: string;
  tenant_id: string;
  name: string;
  version: number;
  sites: string[];
  cookie_count: number;
  origin_count: number;
  digest: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
  deleted_at: string | null;
};

export type ProfileRow = ReadRow<ProfileValues, 'created_at' | 'updated_at' | 'last_used_at' | 'deleted_at'>;

export const PROFILES = tableSpec<ProfileValues>({
  name: 'profiles',
  key: ['profile_id'],
  columns: {
    profile_id: 'text',
    tenant_id: 'text',
    name: 'text',
    version: 'int',
    sites: 'text[]',
    cookie_count: 'int',
    origin_count: 'int',
    digest: 'text',
    created_by: 'text',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
    last_used_at: 'timestamptz',
    deleted_at: 'timestamptz',
  },
});

/** Who made a profile, as its answers show it: the key's hash, the console user, or the admin. */
export function actorOf(causer: Causer): string {
  switch (causer.kind) {
    case 'key':
      return `key:${causer.keyHash}`;
    case 'oidc':
      return `oidc:${causer.provider}:${causer.subject}`;
    case 'schedule':
      return `schedule:${causer.scheduleId}`;
    case 'system':
      return `system:${causer.component}`;
    default:
      return causer.kind;
  }
}

// ---- what an event does to the rows (the one definition the writer and the fold carry out) -------------

/** Created once; changed only while not deleted. */
export function profileChange(stored: StoredEvent): InsertChange<ProfileValues> | UpdateChange<ProfileValues> | null {
  const e = stored.event as TenantEnvelope;
  const live = { deleted_at: null };
  switch (e.type) {
    case 'profile.created': {
      const d = e.data;
      return {
        op: 'insert',
        row: {
          profile_id: d.profileId,
          tenant_id: e.tenantId,
          name: d.name,
          version: d.version,
          sites: [...d.sites],
          cookie_count: d.cookieCount,
          origin_count: d.originCount,
          digest: d.digest,
          created_by: actorOf(e.causedBy),
          created_at: d.createdAt,
          updated_at: d.createdAt,
        },
      };
    }
    case 'profile.updated': {
      const d = e.data;
      return {
        op: 'update',
        key: { profile_id: d.profileId },
        set: {
          version: d.version,
          sites: [...d.sites],
          cookie_count: d.cookieCount,
          origin_count: d.originCount,
          digest: d.digest,
          updated_at: d.updatedAt,
        },
        when: live,
      };
    }
    case 'profile.renamed':
      return {
        op: 'update',
        key: { profile_id: e.data.profileId },
        set: { name: e.data.name, updated_at: e.data.renamedAt },
        when: live,
      };
    case 'profile.used':
      return { op: 'update', key: { profile_id: e.data.profileId }, set: { last_used_at: e.occurredAt }, when: live };
    case 'profile.deleted':
      return { op: 'update', key: { profile_id: e.data.profileId }, set: { deleted_at: e.data.deletedAt }, when: live };
    default:
      return null;
  }
}

// ---- writer and fold: rare events, one statement each, in order ------------------------------------------

const createProfilesWriter = rareEventWriter(PROFILES, profileChange);
const createProfilesFold = rowFold(PROFILES, profileChange);
export type ProfilesFold = ReturnType<typeof createProfilesFold>;

// ---- queries --------------------------------------------------------------------------------------------

const SHOWN = `profile_id, tenant_id, name, version, sites, cookie_count, origin_count, digest, created_by,
  created_at, updated_at, last_used_at`;

export type ShownProfileRow = Omit<ProfileRow, 'deleted_at'>;

/** A tenant's profiles not deleted, oldest first. */
export async function listActiveProfiles(q: Sql, tenantId: string): Promise<ShownProfileRow[]> {
  const r = await q.query<ShownProfileRow>(
    `SELECT ${SHOWN} FROM profiles WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY created_at, profile_id`,
    [tenantId],
  );
  return r.rows;
}

/** The tenant's profile; null when unknown, another tenant's or deleted. */
export async function findActiveProfileOfTenant(
  q: Sql,
  tenantId: string,
  profileId: string,
): Promise<ShownProfileRow | null> {
  const r = await q.query<ShownProfileRow>(
    `SELECT ${SHOWN} FROM profiles WHERE profile_id = $1 AND tenant_id = $2 AND deleted_at IS NULL`,
    [profileId, tenantId],
  );
  return r.rows[0] ?? null;
}

export type AuditProfileRow = Pick<ProfileRow, 'profile_id' | 'name' | 'version' | 'sites' | 'digest'> & {
  deleted_at: Date | string | null;
};

export async function readProfilesForAudit(q: Sql, tenantId: string): Promise<AuditProfileRow[]> {
  return (
    await q.query<AuditProfileRow>(
      'SELECT profile_id, name, version, sites, digest, deleted_at FROM profiles WHERE tenant_id = $1',
      [tenantId],
    )
  ).rows;
}

const comparableProfile = (r: Pick<AuditProfileRow, 'name' | 'version' | 'sites' | 'digest' | 'deleted_at'>) => ({
  name: r.name,
  version: r.version,
  sites: r.sites,
  digest: r.digest,
  deleted: r.deleted_at !== null,
});

export function compareProfiles(fold: ProfilesFold, rows: AuditProfileRow[]): TableComparison {
  return compareFoldedRows('profiles', fold.rows, rows, (r) => r.profile_id, comparableProfile);
}

// ---- the read model ---------------------------------------------------------------------------------------

export const profilesReadModel = auditedReadModel({
  name: 'profiles',
  tables: [PROFILES.name],
  handles: PROFILES_HANDLES,
  changes: { event: profileChange },
  writer: createProfilesWriter,
  fold: createProfilesFold,
  audit: { read: readProfilesForAudit, compare: (fold, rows) => [compareProfiles(fold, rows)] },
});
