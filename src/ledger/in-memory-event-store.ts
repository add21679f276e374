import { type EventEnvelope, sealChain } from './envelope.js';
import {
  commitSlotId,
  ConcurrencyConflictError,
  encodeCommit,
  type EventStore,
  type StoredEvent,
  storedOf,
} from './event-store.js';

/**
 * The EventStore in memory, behind the same interface and contract as the JetStream one
 * (test/support/event-store-contract.ts runs against both): one stream sequence across subjects, one commit
 * per append, optimistic concurrency on the subject's last sequence (ConcurrencyConflictError), and a slot
 * (subject, expected sequence) taken by a commit answers a retry of that very commit with the stored one, as
 * the JetStream msgID does (here for as long as the store lives, not a duplicate window). Commits are kept as
 * the bytes JetStream would carry and decoded on every read, so no caller shares an object with the store.
 *
 * For tests of what sits on the ledger (the actor runtime) without a nats-server; nothing here is durable.
 */
export function createInMemoryEventStore(): EventStore {
  /** Commit at stream sequence n is commits[n - 1]. */
  const commits: Array<{ subject: string; data: Uint8Array }> = [];
  const bySubject = new Map<string, number[]>();
  const slots = new Map<string, number>();

  const commitOf = (seq: number): StoredEvent[] => storedOf(seq, commits[seq - 1]!.subject, commits[seq - 1]!.data);
  const seqsOf = (subject: string): number[] => bySubject.get(subject) ?? [];

  function readSubjectRange(subject: string, fromSeq: number, untilSeq: number): StoredEvent[] {
    return seqsOf(subject)
      .filter((seq) => seq >= fromSeq && seq <= untilSeq)
      .flatMap(commitOf);
  }

  return {
    async append(subject, events, opts) {
      if (events.length === 0) return [];
      // biome-ignore lint/suspicious/noExplicitAny: a commit holds events of every type
      const sealed: EventEnvelope<any>[] = sealChain(events, opts.prevHash);
      const slot = commitSlotId(subject, opts.expectedLastSeq);
      const taken = slots.get(slot);
      if (taken !== undefined) {
        // A retry of a commit that landed gets it back; a rival for the slot is a conflict.
        const stored = commitOf(taken);
        if (stored[0]?.event.id !== sealed[0]!.id) throw new ConcurrencyConflictError(subject, opts.expectedLastSeq);
        // biome-ignore lint/suspicious/noExplicitAny: a commit holds events of every type
        return stored as StoredEvent<any>[];
      }
      const seqs = seqsOf(subject);
      if ((seqs.at(-1) ?? 0) !== opts.expectedLastSeq)
        throw new ConcurrencyConflictError(subject, opts.expectedLastSeq);
      commits.push({ subject, data: encodeCommit(sealed) });
      const seq = commits.length;
      bySubject.set(subject, [...seqs, seq]);
      slots.set(slot, seq);
      return sealed.map((event, index) => ({ seq, index, subject, event }));
    },

    async readSubject(subject, fromSeq = 1) {
      return readSubjectRange(subject, fromSeq, commits.length);
    },

    async last(subject) {
      const seq = seqsOf(subject).at(-1);
      return seq === undefined ? null : (commitOf(seq).at(-1) ?? null);
    },

    async commitAt(subject, seq) {
      if (!Number.isSafeInteger(seq) || seq < 1 || seq > commits.length || commits[seq - 1]!.subject !== subject)
        return null;
      return commitOf(seq);
    },

    async readSubjectRange(subject, fromSeq, untilSeq) {
      return readSubjectRange(subject, fromSeq, untilSeq);
    },

    async lastSeq() {
      return commits.length;
    },

    async replay(fromSeq, onEvent, untilSeq) {
      const until = Math.min(untilSeq ?? commits.length, commits.length);
      let count = 0;
      for (let seq = Math.max(1, fromSeq); seq <= until; seq++) {
        for (const e of commitOf(seq)) {
          await onEvent(e);
          count++;
        }
      }
      return count;
    },
  };
}
