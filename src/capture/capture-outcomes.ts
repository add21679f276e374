import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { CommandMeta } from '../actors/actor-runtime.js';
import type { TenantActors } from '../actors/tenant-actors.js';
import type { TenantCommand } from '../domain/tenant/index.js';

/**
 * How a browser worker reports a capture's outcome (DESIGN decision 11): it sends the CompleteCapture or
 * FailCapture command — and nothing else — to the role that owns the tenant actors, which decides and
 * appends. A worker's NATS user may publish this subject but not `ledger.tenant.>`, so a worker taken over by
 * a hostile page cannot write tenant facts (a key, a quota override); at most it can report an outcome for a
 * capture that is pending, which is what a worker is for.
 */
export const CAPTURE_OUTCOME_SUBJECT = 'capture.outcome';
const QUEUE = 'capture-outcomes';
/** A reply waits for an actor's turn and a replicated append: generous, since a timeout only means a redelivery. */
const REQUEST_TIMEOUT_MS = 60_000;

export type OutcomeCommand = Extract<TenantCommand, { type: 'CompleteCapture' | 'FailCapture' }>;

export interface CaptureOutcomes {
  /** Same arguments as `tenants.execute`; the answer says whether the outcome was the capture's first. */
  report(tenantId: string, command: OutcomeCommand, meta: CommandMeta): Promise<{ reply: { applied: boolean } }>;
}

/** One process holds the actors (`make run`, a process with the api role): execute in place. */
export function localCaptureOutcomes(tenants: TenantActors): CaptureOutcomes {
  return { report: (tenantId, command, meta) => tenants.execute(tenantId, command, meta) };
}

const request = z.object({
  tenantId: z.string().min(1).max(64),
  command: z.object({
    type: z.enum(['CompleteCapture', 'FailCapture']),
    data: z.looseObject({ captureId: z.string().regex(/^cap_[A-Za-z0-9_-]{1,64}$/) }),
  }),
  correlationId: z.string().max(128),
});
type Answer = { ok: true; applied: boolean } | { ok: false; status: number; detail: string };

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
  };
}

/**
 * The owning side (every api process; one of them answers each report). It accepts only the two outcome
 * commands, and only for a capture the tenant's state holds as pending — the decider's rule, which also makes
 * a repeated or late report a no-op (`applied: false`). Who caused the event is set here, not by the worker.
 */
export function serveCaptureOutcomes(nc: NatsConnection, tenants: TenantActors, log: Logger): { stop(): Promise<void> } {
  const sub = nc.subscribe(CAPTURE_OUTCOME_SUBJECT, {
    queue: QUEUE,
    callback: (err, msg) => {
      if (err) return log.warn({ err }, 'capture outcome subscription error');
      void (async () => {
        let answer: Answer;
        try {
          const parsed = request.safeParse(msg.json());
          if (!parsed.success) {
            answer = { ok: false, status: 400, detail: `not a capture outcome: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
          } else {
            const { tenantId, command, correlationId } = parsed.data;
            const result = await tenants.execute(tenantId, command as OutcomeCommand, { correlationId, causedBy: { kind: 'system', component: 'capture-worker' } });
            answer = { ok: true, applied: result.reply.applied };
            // A repeat of an applied outcome (a reply lost, a redelivery) lands here too; anything else is a
            // worker reporting on a capture it was not given — another tenant's id, a made-up one.
            if (!result.reply.applied) {
              log.warn({ tenantId, captureId: command.data.captureId, command: command.type, correlationId }, 'capture outcome not applied: the tenant has no such pending capture (a repeat, or a capture the worker was not given)');
            }
          }
        } catch (e) {
          const status = (e as { status?: number }).status ?? 500;
          log.warn({ err: e }, 'capture outcome not applied');
          answer = { ok: false, status, detail: (e as Error).message };
        }
        msg.respond(JSON.stringify(answer));
      })();
    },
  });
  return { stop: async () => sub.unsubscribe() };
}
