/**
 * Which worker took which member of a corroborated set, so the members render on distinct workers:
 * a worker's claim on a set is one KV entry `<setId>.<workerId>` naming the member it took, written once with
 * `create` (of two members fetched together, one claim wins and the other member is given back). Operational state
 * like the attempt counts, not a tenant fact: the record states the workers from each provenance record.
 */
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { openKvBucket } from '../infra/nats-buckets.js';
import { BUCKETS } from '../infra/topology.js';

export const MEMBER_CLAIMS_BUCKET = BUCKETS.corroborationClaims.name;

export interface MemberClaims {
  /**
   * Claims the set for this worker with this member; answers the member the worker's claim names: this one (claimed
   * now, or before — a redelivery), or another member it took earlier.
   */
  claim(setId: string, workerId: string, captureId: string): Promise<string>;
}

export const memberClaimKey = (setId: string, workerId: string) => `${setId}.${workerId}`;

export async function openMemberClaims(nc: NatsConnection, replicas: number): Promise<MemberClaims> {
  const kv: KV = await openKvBucket(nc, MEMBER_CLAIMS_BUCKET, BUCKETS.corroborationClaims.options, replicas);
  return memberClaimsIn(kv);
}

export function memberClaimsIn(kv: Pick<KV, 'create' | 'get'>): MemberClaims {
  return {
    async claim(setId, workerId, captureId) {
      const key = memberClaimKey(setId, workerId);
      try {
        await kv.create(key, captureId);
        return captureId;
      } catch (err) {
        const entry = await kv.get(key);
        if (entry?.operation === 'PUT' && entry.value.length > 0) return entry.string();
        throw err;
      }
    },
  };
}
