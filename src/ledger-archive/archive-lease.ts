import type { KV } from '@nats-io/kv';

/**
 * Exactly one archiver in a deployment: it holds the `lease` entry of the `ledger-archive` bucket, written by
 * compare-and-set on the entry's revision and renewed well before it ends. Another process takes the lease only
 * once it has ended (its holder stopped renewing: killed, cut off); a holder that fails to renew stops
 * archiving at once. The archive itself stays the truth of where archiving stands, so a takeover resumes
 * from the last manifest whoever wrote it.
 */
export const LEASE_KEY = 'lease';
export const LEASE_MS = 15_000;
export const RENEW_MS = 5_000;

interface LeaseValue {
  holder: string;
  until: number;
}

export interface ArchiveLease {
  /** Takes or renews the lease; false: another process holds it. */
  hold(): Promise<boolean>;
  /** Ends the lease now (a clean stop), so another process need not wait for it to run out. */
  release(): Promise<void>;
}

export function archiveLease(kv: KV, holder: string, now: () => number = Date.now): ArchiveLease {
  let revision: number | null = null;
  const encode = (v: LeaseValue) => new TextEncoder().encode(JSON.stringify(v));
  return {
    async hold() {
      const value = encode({ holder, until: now() + LEASE_MS });
      const entry = await kv.get(LEASE_KEY);
      const current = entry?.operation === 'PUT' ? (entry.json<LeaseValue>() as LeaseValue) : null;
      if (current && current.holder !== holder && current.until > now()) {
        revision = null;
        return false;
      }
      try {
        revision = entry ? await kv.update(LEASE_KEY, value, entry.revision) : await kv.create(LEASE_KEY, value);
        return true;
      } catch {
        // Another process wrote it between our read and our write: it holds the lease.
        revision = null;
        return false;
      }
    },
    async release() {
      if (revision === null) return;
      await kv.update(LEASE_KEY, encode({ holder, until: 0 }), revision).catch(() => undefined);
      revision = null;
    },
  };
}
