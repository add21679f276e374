import { createHash, randomBytes } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { openKvBucket } from '../infra/nats-buckets.js';
import { BUCKETS } from '../infra/topology.js';
import { openSecret, sealSecret } from '../webhooks/webhook-secret-store.js';
import type { BrowserState } from './browser-state.js';
import type { ProfileKeyRing } from './profile-key.js';

/**
 * Where profile contents live, sealed (docs/profiles.md, Secrets at rest). Each tenant has one data key (32 random
 * bytes), kept in the `profile-keys` bucket wrapped by PROFILE_KEY with that key's id; a profile's latest contents
 * are sealed under it with AES-256-GCM, the additional data binding tenant, profile and version, and kept in the
 * `profile-contents` bucket under `<tenantId>.<profileId>`. Sealing and opening are the webhook secrets' helpers
 * (webhook-secret-store.ts). Both buckets keep one revision per key, so saving a version drops the one before
 * and deleting a profile drops its contents (a delete marker, never a purge: nats-server #4196).
 */

export interface ProfileFacts {
  name: string;
  version: number;
  sites: string[];
  cookieCount: number;
  originCount: number;
}

/** A profile's contents as the vault keeps them: the facts in the clear, the state sealed. */
export interface StoredProfile extends ProfileFacts {
  /** base64 of iv | tag | ciphertext. */
  sealed: string;
}

export interface OpenedProfile extends ProfileFacts {
  digest: string;
  state: BrowserState;
}

export interface ProfileVault {
  /** Seals `state` as `version` of the profile and keeps it, replacing the version before; the sealed bytes' digest. */
  put(tenantId: string, profileId: string, facts: ProfileFacts, state: BrowserState): Promise<{ digest: string }>;
  /** The latest contents; null when the profile has none (never made, or deleted). */
  open(tenantId: string, profileId: string): Promise<OpenedProfile | null>;
  /** Renames without opening: the name is not sealed. No-op when the profile has no contents. */
  rename(tenantId: string, profileId: string, name: string): Promise<void>;
  /** Drops the profile's contents for good (idempotent). */
  shred(tenantId: string, profileId: string): Promise<void>;
  /** Re-wraps every tenant data key not wrapped by the current PROFILE_KEY; how many it re-wrapped. */
  rewrapAll(): Promise<number>;
}

interface WrappedKey {
  keyId: string;
  wrapped: string;
}

/** `sha256:` + hex of the sealed bytes: what the ledger records of a version. */
export const sealedDigest = (sealed: string): string =>
  `sha256:${createHash('sha256').update(Buffer.from(sealed, 'base64')).digest('hex')}`;

const contentsKey = (tenantId: string, profileId: string) => `${tenantId}.${profileId}`;
const contentsAad = (tenantId: string, profileId: string, version: number) =>
  `profile|${tenantId}|${profileId}|${version}`;
const dataKeyAad = (tenantId: string) => `profile-data-key|${tenantId}`;

export function profileVaultOver(keys: KV, contents: KV, ring: ProfileKeyRing): ProfileVault {
  const cache = new Map<string, Uint8Array>();

  const wrap = (tenantId: string, dataKey: Uint8Array): string =>
    JSON.stringify({
      keyId: ring.current.id,
      wrapped: sealSecret(ring.current.key, Buffer.from(dataKey).toString('base64'), dataKeyAad(tenantId)),
    } satisfies WrappedKey);

  function unwrap(tenantId: string, entry: WrappedKey): Uint8Array {
    const wrapKey = ring.byId.get(entry.keyId);
    if (!wrapKey)
      throw new Error(`profile data key of ${tenantId} is wrapped by key ${entry.keyId}, not in PROFILE_KEY`);
    return Buffer.from(openSecret(wrapKey, entry.wrapped, dataKeyAad(tenantId)), 'base64');
  }

  /** The tenant's data key; re-wrapped by the current key when an older one wrapped it. */
  async function dataKeyOf(tenantId: string, create: boolean): Promise<Uint8Array | null> {
    const cached = cache.get(tenantId);
    if (cached) return cached;
    const entry = await keys.get(tenantId);
    if (entry?.operation === 'PUT') {
      const wrapped = entry.json<WrappedKey>();
      const key = unwrap(tenantId, wrapped);
      if (wrapped.keyId !== ring.current.id) {
        // Compare-and-set: another process re-wrapping at the same time wrote the same key.
        await keys.update(tenantId, wrap(tenantId, key), entry.revision).catch(() => undefined);
      }
      cache.set(tenantId, key);
      return key;
    }
    if (!create) return null;
    try {
      await keys.create(tenantId, wrap(tenantId, randomBytes(32)));
    } catch {
      // Another process created it first: use theirs.
    }
    return dataKeyOf(tenantId, false);
  }

  return {
    async put(tenantId, profileId, facts, state) {
      const key = (await dataKeyOf(tenantId, true))!;
      const sealed = sealSecret(key, JSON.stringify(state), contentsAad(tenantId, profileId, facts.version));
      await contents.put(
        contentsKey(tenantId, profileId),
        JSON.stringify({ ...facts, sealed } satisfies StoredProfile),
      );
      return { digest: sealedDigest(sealed) };
    },

    async open(tenantId, profileId) {
      const entry = await contents.get(contentsKey(tenantId, profileId));
      if (entry?.operation !== 'PUT') return null;
      const stored = entry.json<StoredProfile>();
      const key = await dataKeyOf(tenantId, false);
      if (!key) return null;
      const state = JSON.parse(
        openSecret(key, stored.sealed, contentsAad(tenantId, profileId, stored.version)),
      ) as BrowserState;
      const { sealed, ...facts } = stored;
      return { ...facts, digest: sealedDigest(sealed), state };
    },

    async rename(tenantId, profileId, name) {
      const entry = await contents.get(contentsKey(tenantId, profileId));
      if (entry?.operation !== 'PUT') return;
      const stored = entry.json<StoredProfile>();
      await contents.put(contentsKey(tenantId, profileId), JSON.stringify({ ...stored, name }));
    },

    async shred(tenantId, profileId) {
      await contents.delete(contentsKey(tenantId, profileId));
    },

    async rewrapAll() {
      let rewrapped = 0;
      for await (const tenantId of await keys.keys()) {
        const entry = await keys.get(tenantId);
        if (entry?.operation !== 'PUT') continue;
        const wrapped = entry.json<WrappedKey>();
        if (wrapped.keyId === ring.current.id) continue;
        await keys.update(tenantId, wrap(tenantId, unwrap(tenantId, wrapped)), entry.revision);
        rewrapped++;
      }
      return rewrapped;
    },
  };
}

export async function openProfileVault(nc: NatsConnection, ring: ProfileKeyRing, replicas = 1): Promise<ProfileVault> {
  const [keys, contents] = await Promise.all([
    openKvBucket(nc, BUCKETS.profileKeys.name, { history: 1 }, replicas),
    openKvBucket(nc, BUCKETS.profileContents.name, { history: 1 }, replicas),
  ]);
  return profileVaultOver(keys, contents, ring);
}
