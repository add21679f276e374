import { createHash } from 'node:crypto';
import { canonicalJson } from '../domain/canonical-json.js';
import type { StoredEvent } from '../ledger/event-store.js';

/**
 * The stored form of an actor snapshot (DESIGN decision 12): a cache of the folded state, tied to the log
 * position it was folded up to, trusted only after that position is checked against the log, and ignored
 * when anything is in doubt — the actor then folds the log, which is always the truth.
 *
 * - `stateVersion`: the actor definition's version of its state shape and fold; any other version is stale.
 * - `lastSeq` / `lastHash`: the stream sequence of the subject's last commit folded in, and the hash of that
 *   commit's last event. Before use, the commit at `lastSeq` must exist on the actor's subject and end with an
 *   event of hash `lastHash` (checkSnapshotAgainstLog).
 * - `digest`: SHA-256 of the canonical JSON (RFC 8785) of every other field, so a damaged value is caught.
 */
export const SNAPSHOT_FORMAT = 1;

export interface ActorSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  key: string;
  stateVersion: number;
  lastSeq: number;
  lastHash: string;
  takenAt: string;
  state: unknown;
  digest: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const digestOf = (fields: Omit<ActorSnapshot, 'digest'>): string =>
  createHash('sha256').update(canonicalJson(fields)).digest('hex');

export function sealSnapshot(fields: Omit<ActorSnapshot, 'format' | 'digest'>): ActorSnapshot {
  const body = { format: SNAPSHOT_FORMAT, ...fields } as const;
  return { ...body, digest: digestOf(body) };
}

export const encodeSnapshot = (s: ActorSnapshot): Uint8Array => encoder.encode(JSON.stringify(s));

/** Why stored bytes are not a usable snapshot: `stale` (another state version) is normal after an upgrade; the rest is damage. */
export type SnapshotProblem = 'unreadable' | 'altered' | 'other-key' | 'stale';

export type SnapshotCheck =
  | { ok: true; snapshot: ActorSnapshot }
  | { ok: false; kind: SnapshotProblem; reason: string };

/** Parse stored bytes and check what can be checked without the log: format, digest, key and state version. */
export function parseSnapshot(bytes: Uint8Array, expect: { key: string; stateVersion: number }): SnapshotCheck {
  let s: ActorSnapshot;
  try {
    s = JSON.parse(decoder.decode(bytes)) as ActorSnapshot;
  } catch {
    return { ok: false, kind: 'unreadable', reason: 'not JSON' };
  }
  if (typeof s !== 'object' || s === null || s.format !== SNAPSHOT_FORMAT)
    return {
      ok: false,
      kind: 'unreadable',
      reason: `unknown snapshot format ${String((s as { format?: unknown })?.format)}`,
    };
  if (
    !Number.isSafeInteger(s.lastSeq) ||
    s.lastSeq < 1 ||
    typeof s.lastHash !== 'string' ||
    typeof s.digest !== 'string'
  ) {
    return { ok: false, kind: 'unreadable', reason: 'lastSeq, lastHash or digest missing' };
  }
  const { digest, ...body } = s;
  let actual: string;
  try {
    actual = digestOf(body);
  } catch {
    return { ok: false, kind: 'unreadable', reason: 'cannot be canonicalised' };
  }
  if (actual !== digest)
    return {
      ok: false,
      kind: 'altered',
      reason: `digest ${digest} does not match the recomputed ${actual} (the snapshot was altered)`,
    };
  if (s.key !== expect.key) return { ok: false, kind: 'other-key', reason: `snapshot of ${s.key}, not ${expect.key}` };
  if (s.stateVersion !== expect.stateVersion)
    return {
      ok: false,
      kind: 'stale',
      reason: `state version ${s.stateVersion} is not the current ${expect.stateVersion} (stale)`,
    };
  return { ok: true, snapshot: s };
}

/**
 * Is the snapshot's position in the log? `head` is the subject's last event now; `commit` is the commit stored
 * at `snapshot.lastSeq` (null when that sequence is absent or on another subject). Null when trusted, else why not.
 */
export function checkSnapshotAgainstLog(
  snapshot: ActorSnapshot,
  head: StoredEvent | null,
  commit: StoredEvent[] | null,
): string | null {
  if (!head) return `the subject has no events but the snapshot is at sequence ${snapshot.lastSeq}`;
  if (snapshot.lastSeq > head.seq)
    return `sequence ${snapshot.lastSeq} is past the subject's last sequence ${head.seq} (the log does not have it)`;
  if (!commit || commit.length === 0) return `sequence ${snapshot.lastSeq} is not a commit of this subject`;
  const last = commit.at(-1)!;
  if (last.seq !== snapshot.lastSeq) return `sequence ${snapshot.lastSeq} is not a commit of this subject`;
  if (last.event.hash !== snapshot.lastHash) {
    return `lastHash ${snapshot.lastHash} does not match the hash ${last.event.hash} of the event at sequence ${snapshot.lastSeq}`;
  }
  return null;
}
