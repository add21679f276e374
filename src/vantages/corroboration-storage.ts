import type { KV } from '@nats-io/kv';
import type { ArtifactStore } from '../storage/artifact-store.js';
import { corroborationKeys } from './corroboration-rules.js';

/** Where corroboration sets and records are kept (corroboration-service.ts). */
export type CorroborationStore = Pick<KV, 'get' | 'create' | 'put'>;

/** The object name of a corroboration record under one member capture: its evidence, like its certificate. */
export const corroborationObjectName = (captureId: string, corroborationId: string) =>
  `${captureId}/corroboration/${corroborationId}.json`;

const RECORD_KEY = /^corroboration\.(.+)\.record$/;

/**
 * Where the artifact store keeps what is made of a capture (`keepsMadeEvidence`: S3), a signed corroboration record lives in the artifact store under each member capture (identical bytes are
 * stored once), locked until the latest of the members' retention (`retainUntil`, retention.ts evidenceRetention),
 * so extending or holding one member's evidence covers it. Sets and member entries (working state, not evidence)
 * stay in the KV bucket, as do records made before a move to S3 (still read from there). Otherwise (JetStream)
 * everything stays in the KV bucket.
 */
export function corroborationStore(
  artifacts: ArtifactStore,
  kv: CorroborationStore,
  retainUntil: (captureId: string) => Promise<Date | null> = async () => null,
): CorroborationStore {
  if (!artifacts.keepsMadeEvidence) return kv;
  /** The set's members, from its set entry in the KV bucket. */
  async function membersOf(id: string): Promise<string[]> {
    const entry = await kv.get(corroborationKeys.set(id));
    if (entry?.operation !== 'PUT' || entry.value.length === 0) return [];
    const set = JSON.parse(new TextDecoder().decode(entry.value)) as { members: Array<{ captureId: string }> };
    return set.members.map((m) => m.captureId);
  }
  return {
    async get(key: string) {
      const id = RECORD_KEY.exec(key)?.[1];
      const first = id ? (await membersOf(id))[0] : undefined;
      if (id && first) {
        const value = await artifacts.get(corroborationObjectName(first, id));
        if (value) return { operation: 'PUT', value } as Awaited<ReturnType<KV['get']>>;
      }
      return kv.get(key);
    },
    async create(key: string, value: Uint8Array | string) {
      const id = RECORD_KEY.exec(key)?.[1];
      const members = id ? await membersOf(id) : [];
      if (!id || members.length === 0) return kv.create(key, value);
      const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : value;
      const dates = (await Promise.all(members.map(retainUntil))).filter((d): d is Date => d !== null);
      const until = dates.length ? new Date(Math.max(...dates.map((d) => d.getTime()))) : null;
      // The first member's name first: a second maker's other bytes are refused there (write-once), and it serves the first.
      for (const captureId of members)
        await artifacts.put(corroborationObjectName(captureId, id), bytes, until ? { retainUntil: until } : {});
      return 0;
    },
    put: (key: string, value: Uint8Array | string) => kv.put(key, value),
  } as CorroborationStore;
}
