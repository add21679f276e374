import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { TenantActors } from '../actors/tenant-actors.js';
import {
  CAPTURE_OUTCOME_SUBJECT,
  CAPTURE_PENDING_SUBJECT,
  type OutcomeCommand,
  type Refusal,
} from './capture-outcomes.js';

// The api processes' side of src/capture/capture-outcomes.ts: the requests a worker sends are checked here, so a
// worker process, which only sends them, loads no schema library.

/** One api process of this queue group answers each request. */
const QUEUE = 'capture-outcomes';

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
