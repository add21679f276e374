import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { z } from 'zod';
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
const QUEUE = 'capture-outcomes';
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

const tenantId = z.string().min(1).max(64);
const captureId = z.string().regex(/^cap_[A-Za-z0-9_-]{1,64}$/);
const request = z.object({
  tenantId,
  command: z.object({
    type: z.enum(['CompleteCapture', 'FailCapture']),
    data: z.looseObject({ captureId }),
  }),
  correlationId: z.string().max(128),
});
const pendingRequest = z.object({ tenantId, captureId });
type Refusal = { ok: false; status: number; detail: string };
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

/**
 * The owning side (every api process; one of them answers each report). It accepts only the two outcome
 * commands, and only for a capture the tenant's state holds as pending — the decider's rule, which also makes
 * a repeated or late report a no-op (`applied: false`). Who caused the event is set here, not by the worker.
 * It also answers whether a capture is pending, from the same state.
 */
export function serveCaptureOutcomes(
  nc: NatsConnection,
  tenants: TenantActors,
  log: Logger,
): { stop(): Promise<void> } {
  const outcomes = answerRequests(
    nc,
    log,
    CAPTURE_OUTCOME_SUBJECT,
    request,
    'a capture outcome',
    async ({ tenantId, command, correlationId }) => {
      const result = await tenants.execute(tenantId, command as OutcomeCommand, {
        correlationId,
        causedBy: { kind: 'system', component: 'capture-worker' },
      });
      // A repeat of an applied outcome (a reply lost, a redelivery) lands here too; anything else is a worker
      // reporting on a capture it was not given — another tenant's id, a made-up one.
      if (!result.reply.applied) {
        log.warn(
          { tenantId, captureId: command.data.captureId, command: command.type, correlationId },
          'capture outcome not applied: the tenant has no such pending capture (a repeat, or a capture the worker was not given)',
        );
      }
      return { applied: result.reply.applied };
    },
  );
  const pending = answerRequests(
    nc,
    log,
    CAPTURE_PENDING_SUBJECT,
    pendingRequest,
    'a capture pending question',
    async ({ tenantId, captureId }) => ({
      pending: (await tenants.read(tenantId)).pending.has(captureId),
    }),
  );
  return {
    stop: async () => {
      outcomes.unsubscribe();
      pending.unsubscribe();
    },
  };
}

/**
 * One subject of the owning side: each request parsed by `schema` (400 when it is not one), answered by
 * `answer` as `{ ok: true, … }`, or `{ ok: false, status, detail }` when that throws (a refusal keeps its status).
 */
function answerRequests<T, A extends object>(
  nc: NatsConnection,
  log: Logger,
  subject: string,
  schema: z.ZodType<T>,
  what: string,
  answer: (request: T) => Promise<A>,
) {
  return nc.subscribe(subject, {
    queue: QUEUE,
    callback: (err, msg) => {
      if (err) return log.warn({ err, subject }, 'subscription error');
      void (async () => {
        let reply: ({ ok: true } & A) | Refusal;
        try {
          const parsed = schema.safeParse(msg.json());
          reply = parsed.success
            ? { ok: true, ...(await answer(parsed.data)) }
            : { ok: false, status: 400, detail: `not ${what}: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
        } catch (e) {
          log.warn({ err: e, subject }, `${what} not answered`);
          reply = { ok: false, status: (e as { status?: number }).status ?? 500, detail: (e as Error).message };
        }
        msg.respond(JSON.stringify(reply));
      })();
    },
  });
}
