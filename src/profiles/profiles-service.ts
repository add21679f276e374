import type { Caller } from '../application/caller.js';
import { causedBy } from '../application/caller.js';
import type { ServiceContext } from '../application/service-context.js';
import { iso } from '../domain/clock.js';
import { notFound } from '../domain/errors.js';
import type { Causer } from '../domain/events.js';
import { newId } from '../domain/ids.js';
import {
  findActiveProfileOfTenant,
  listActiveProfiles,
  type ShownProfileRow,
} from '../../projections/read-models/profiles.js';
import type { BrowserState, ProfileStates, ProfileSummary } from './browser-state.js';
import { checkedBrowserState, importBrowserState } from './profile-import.js';
import { sitesOf } from './profile-sites.js';
import type { ProfileFacts, ProfileVault } from './profile-vault.js';

/**
 * A tenant's browser profiles (docs/profiles.md): create from an upload, list, show, rename, replace the contents
 * (a new version), delete. The contents are sealed into the vault before the ledger records the version (only its
 * digest); deleting records the deletion, then drops the sealed contents. Answers never hold a cookie or storage value.
 */

export type Profiles = ReturnType<typeof createProfiles>;

/** A profile as the API answers it. */
export interface ProfileView extends ProfileSummary {
  cookieCount: number;
  originCount: number;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  lastUsedAt: string | null;
}

const unknownProfile = (id: string) => notFound(`No profile ${id}.`);

const viewOf = (row: ShownProfileRow): ProfileView => ({
  id: row.profile_id,
  name: row.name,
  version: row.version,
  sites: row.sites,
  cookieCount: row.cookie_count,
  originCount: row.origin_count,
  createdAt: iso(row.created_at)!,
  updatedAt: iso(row.updated_at)!,
  createdBy: row.created_by,
  lastUsedAt: iso(row.last_used_at) ?? null,
});

const factsOf = (name: string, version: number, state: BrowserState): ProfileFacts => ({
  name,
  version,
  sites: sitesOf(state),
  cookieCount: state.cookies.length,
  originCount: state.origins.length,
});

/** Who saved through the remote browser, as the ledger records it: `key:<keyHash>`, `oidc:<provider>:<sub>`, else a component. */
export function causerOfActor(actor: string): Causer {
  const key = /^key:([0-9a-f]{64})$/.exec(actor);
  if (key) return { kind: 'key', keyHash: key[1]! };
  const oidc = /^oidc:([^:]+):(.+)$/.exec(actor);
  if (oidc) return { kind: 'oidc', provider: oidc[1]!, subject: oidc[2]! };
  return { kind: 'system', component: actor };
}

/** What the profile operations below work with. */
interface ProfileDeps {
  ctx: ServiceContext;
  vault: ProfileVault;
}

type Meta = { correlationId: string; causedBy: Causer };

async function showProfile({ ctx }: ProfileDeps, tenantId: string, profileId: string): Promise<ProfileView> {
  const row = await findActiveProfileOfTenant(ctx.pool, tenantId, profileId);
  if (!row) throw unknownProfile(profileId);
  return viewOf(row);
}

async function createProfile(
  d: ProfileDeps,
  tenantId: string,
  meta: Meta,
  name: string,
  state: BrowserState,
): Promise<ProfileView> {
  const profileId = newId('prf');
  const facts = factsOf(name, 1, state);
  const { digest } = await d.vault.put(tenantId, profileId, facts, state);
  try {
    const { name: _n, ...version } = facts;
    const result = await d.ctx.tenants.execute(
      tenantId,
      { type: 'CreateProfile', data: { profileId, name, ...version, digest } },
      meta,
    );
    await d.ctx.waiter.waitFor(result.appended.at(-1)!.seq);
  } catch (error) {
    await d.vault.shred(tenantId, profileId).catch(() => undefined);
    throw error;
  }
  return showProfile(d, tenantId, profileId);
}

async function replaceProfileContents(
  d: ProfileDeps,
  tenantId: string,
  meta: Meta,
  profileId: string,
  state: BrowserState,
): Promise<ProfileView> {
  const current = (await d.ctx.tenants.read(tenantId)).profiles.get(profileId);
  if (!current) throw unknownProfile(profileId);
  const facts = factsOf(current.name, current.version + 1, state);
  const { digest } = await d.vault.put(tenantId, profileId, facts, state);
  const { name: _n, ...version } = facts;
  const result = await d.ctx.tenants.execute(
    tenantId,
    { type: 'UpdateProfile', data: { profileId, ...version, digest } },
    meta,
  );
  await d.ctx.waiter.waitFor(result.appended.at(-1)!.seq);
  return showProfile(d, tenantId, profileId);
}

async function renameProfile(d: ProfileDeps, caller: Caller, profileId: string, name: string): Promise<ProfileView> {
  const tenantId = caller.principal.tenantId;
  const result = await d.ctx.tenants.execute(
    tenantId,
    { type: 'RenameProfile', data: { profileId, name } },
    causedBy(caller),
  );
  await d.vault.rename(tenantId, profileId, name);
  await d.ctx.waiter.waitFor(result.appended.at(-1)!.seq);
  return showProfile(d, tenantId, profileId);
}

async function deleteProfile(
  d: ProfileDeps,
  caller: Caller,
  profileId: string,
): Promise<{ id: string; deleted: true }> {
  const tenantId = caller.principal.tenantId;
  const result = await d.ctx.tenants.execute(
    tenantId,
    { type: 'DeleteProfile', data: { profileId } },
    causedBy(caller),
  );
  // Recorded first: a capture admitted after this finds no profile; the contents are then dropped for good.
  await d.vault.shred(tenantId, profileId);
  await d.ctx.waiter.waitFor(result.appended.at(-1)!.seq);
  return { id: profileId, deleted: true };
}

/** The port the remote browser reads and saves through (browser-state.ts). */
function profileStatesOf(d: ProfileDeps): ProfileStates {
  return {
    async load(tenantId, profileId) {
      if (!(await d.ctx.tenants.read(tenantId)).profiles.has(profileId)) return null;
      return (await d.vault.open(tenantId, profileId))?.state ?? null;
    },
    async save({ tenantId, actor, profileId, name, state }) {
      const meta = { correlationId: newId('evt'), causedBy: causerOfActor(actor) };
      const checked = checkedBrowserState(state);
      const view = profileId
        ? await replaceProfileContents(d, tenantId, meta, profileId, checked)
        : await createProfile(d, tenantId, meta, name ?? 'Remote browser profile', checked);
      return { id: view.id, name: view.name, version: view.version, sites: view.sites };
    },
  };
}

export function createProfiles(ctx: ServiceContext, vault: ProfileVault) {
  const d: ProfileDeps = { ctx, vault };
  return {
    async create(caller: Caller, body: { name: string; contents: unknown }): Promise<ProfileView> {
      return createProfile(
        d,
        caller.principal.tenantId,
        causedBy(caller),
        body.name,
        importBrowserState(body.contents),
      );
    },

    async list(caller: Caller): Promise<{ data: ProfileView[] }> {
      return { data: (await listActiveProfiles(ctx.pool, caller.principal.tenantId)).map(viewOf) };
    },

    show: (caller: Caller, profileId: string) => showProfile(d, caller.principal.tenantId, profileId),

    rename: (caller: Caller, profileId: string, name: string): Promise<ProfileView> =>
      renameProfile(d, caller, profileId, name),

    async replaceContents(caller: Caller, profileId: string, contents: unknown): Promise<ProfileView> {
      const state = importBrowserState(contents);
      return replaceProfileContents(d, caller.principal.tenantId, causedBy(caller), profileId, state);
    },

    delete: (caller: Caller, profileId: string): Promise<{ id: string; deleted: true }> =>
      deleteProfile(d, caller, profileId),

    states: (): ProfileStates => profileStatesOf(d),
  };
}
