import type { NatsConnection } from '@nats-io/transport-node';
import type { CommandMeta } from '../actors/actor-runtime.js';
import type { TenantActors } from '../actors/tenant-actors.js';
import type { TenantCommand } from '../domain/tenant/index.js';
import { SUBJECTS } from '../infra/topology.js';

/**
 * How a browser worker reports a capture's outcome (DESIGN decision 11): it sends the CompleteCapture or
 * FailCapture command — and nothing else — to the role that owns the tenant actors, which decides and
 * appends. A worker's NATS user may publish this subject but not `ledger.tenant.>`, so a worker taken over by
 * a hostile page cannot write tenant facts (a key, a quota override); at most it can report an outcome for a
 * capture that is pending, which is what a worker is for.
 *
 * Before rendering, the worker asks the same owner whether the capture is still pending (`capture.pending`):
 * the tenant's state folded from the log answers, not a projection that may lag it.
 */
export const CAPTURE_OUTCOME_SUBJECT = SUBJECTS.captureOutcome.subject;
export const CAPTURE_PENDING_SUBJECT = SUBJECTS.capturePending.subject;
/** A reply waits for an actor's turn and a replicated append: generous, since a timeout only means a redelivery. */
const REQUEST_TIMEOUT_MS = 60_000;

export type OutcomeCommand = Extract<TenantCommand, { type: 'CompleteCapture' | 'FailCapture' }>;

export interface CaptureOutcomes {
  /** Same arguments as `tenants.execute`; the answer says whether the outcome was the capture's first. */
  report(tenantId: string, command: OutcomeCommand, meta: CommandMeta): Promise<{ reply: { applied: boolean } }>;
  /**
   * Whether the tenant's state still holds the capture as pending. A job whose capture already has its outcome
   * (appended, but the job's ack was lost to a crash) is not rendered again: that would overwrite the stored
   * artifacts and WACZ the logged bundleHash names.
   */
  isPending(tenantId: string, captureId: string): Promise<boolean>;
}

/** One process holds the actors (`make run`, a process with the api role): execute and read in place. */
export function localCaptureOutcomes(tenants: TenantActors): CaptureOutcomes {
  return {
    report: (tenantId, command, meta) => tenants.execute(tenantId, command, meta),
    isPending: async (tenantId, captureId) => (await tenants.read(tenantId)).pending.has(captureId),
  };
}

/** The owning side's answers (src/capture/capture-outcome-answers.ts). */
export type Refusal = { ok: false; status: number; detail: string };
type Answer = { ok: true; applied: boolean } | Refusal;
type PendingAnswer = { ok: true; pending: boolean } | Refusal;

/** A worker without the actors: ask over NATS (request/reply, answered by one api process of the queue group). */
export function natsCaptureOutcomes(nc: NatsConnection): CaptureOutcomes {
  return {
    async report(tenantId, command, meta) {
      const body = JSON.stringify({ tenantId, command, correlationId: meta.correlationId });
      const msg = await nc.request(CAPTURE_OUTCOME_SUBJECT, body, { timeout: REQUEST_TIMEOUT_MS });
      const answer = msg.json<Answer>();
      if (!answer.ok) throw new Error(`capture outcome refused (${answer.status}): ${answer.detail}`);
      return { reply: { applied: answer.applied } };
    },
    async isPending(tenantId, captureId) {
      const msg = await nc.request(CAPTURE_PENDING_SUBJECT, JSON.stringify({ tenantId, captureId }), {
        timeout: REQUEST_TIMEOUT_MS,
      });
      const answer = msg.json<PendingAnswer>();
      if (!answer.ok) throw new Error(`capture pending question refused (${answer.status}): ${answer.detail}`);
      return answer.pending;
    },
  };
}
