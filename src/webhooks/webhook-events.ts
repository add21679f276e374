// The events a webhook receives (spec 6.1–6.4), built once per ledger event so every attempt of every
// delivery sends the same bytes. Pure: no I/O, no clock (the caller passes the times).
import { createHash } from 'node:crypto';
import { type CaptureRow, captureViews } from '../../projections/read-models/capture-view.js';
import type { CaptureComparison, TenantEvent, WebhookEventType } from '../domain/events.js';
import { iso } from '../domain/clock.js';

export type WebhookEnvelopeType = WebhookEventType | 'ping';

/** spec 6.1 */
export interface WebhookEnvelope<D = Record<string, unknown>> {
  id: string;
  type: WebhookEnvelopeType;
  createdAt: string;
  data: D;
}

type Completed = Extract<TenantEvent, { type: 'capture.completed' }>['data'];
type Failed = Extract<TenantEvent, { type: 'capture.failed' }>['data'];

const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The webhook event id of a ledger event: derived, not random, so a redelivered ledger event (feeder crash,
 * replay) yields the same `evt_` id and receivers can dedupe on it (spec 6.6).
 */
export const webhookEventId = (ledgerEventId: string, type: WebhookEventType): string =>
  `evt_${sha256Hex(`${ledgerEventId}:${type}`).slice(0, 32)}`;

/** One delivery = one event to one webhook; its id is derived too, so re-enqueueing finds the same one. */
export const deliveryIdOf = (eventId: string, webhookId: string): string =>
  `dlv_${sha256Hex(`${eventId}:${webhookId}`).slice(0, 32)}`;

/** The webhook event type a ledger event fires, if any (spec 3.1: complete → capture.complete, failed → capture.failed). */
export function webhookTypeOf(ledgerType: string): WebhookEventType | null {
  if (ledgerType === 'capture.completed') return 'capture.complete';
  if (ledgerType === 'capture.failed') return 'capture.failed';
  return null;
}

/** What the projection knows of the capture before its outcome: where and when it was submitted. */
export type SubmittedCaptureRow = Pick<CaptureRow, 'capture_id' | 'url' | 'created_at'> & Partial<CaptureRow>;

/**
 * spec 6.2. The outcome fields come from the ledger event itself (not from whatever the projection holds
 * now); URIs are built exactly like the capture record's (spec 2.3, 2.4): `headers` only when stored,
 * `verifyUrl` only when a signed bundle exists (the verify endpoint answers 404 otherwise).
 */
export function captureCompleteData(baseUrl: string, row: SubmittedCaptureRow, outcome: Completed) {
  const record = captureViews(baseUrl).record({
    capture_id: row.capture_id,
    url: row.url,
    created_at: row.created_at,
    completed_at: new Date(outcome.completedAt),
    render_quality: outcome.renderQuality,
    artifacts: outcome.artifacts,
    bundle: outcome.bundle ?? null,
  });
  return {
    id: record.id,
    status: 'complete' as const,
    url: record.url,
    createdAt: record.createdAt,
    completedAt: record.completedAt,
    renderQuality: record.renderQuality,
    artifacts: {
      screenshot: record.artifacts.screenshot,
      html: record.artifacts.html,
      ...(record.artifacts.headers ? { headers: record.artifacts.headers } : {}),
    },
    ...(record.verifyUrl ? { verifyUrl: record.verifyUrl } : {}),
  };
}

/** spec 6.3 */
export function captureFailedData(row: SubmittedCaptureRow, outcome: Failed) {
  return {
    id: row.capture_id,
    status: 'failed' as const,
    url: row.url,
    createdAt: iso(row.created_at)!,
    failedAt: iso(outcome.failedAt)!,
    error: outcome.error,
    retryable: outcome.retryable,
    // docs/api.md, Failure reasons: the class of `error`; absent on failures recorded before reasons were.
    ...(outcome.failureReason ? { failureReason: outcome.failureReason } : {}),
  };
}

/**
 * The envelope of a capture outcome event, or null when the ledger event fires no webhook event.
 * `createdAt` is the ledger event's time, so it too is the same on every redelivery.
 */
export function captureOutcomeEnvelope(
  baseUrl: string,
  ledgerEvent: { id: string; occurredAt: string } & (
    | { type: 'capture.completed'; data: Completed }
    | { type: 'capture.failed'; data: Failed }
  ),
  row: SubmittedCaptureRow,
): WebhookEnvelope {
  const type = webhookTypeOf(ledgerEvent.type)!;
  const data =
    ledgerEvent.type === 'capture.completed'
      ? captureCompleteData(baseUrl, row, ledgerEvent.data)
      : captureFailedData(row, ledgerEvent.data);
  return { id: webhookEventId(ledgerEvent.id, type), type, createdAt: iso(ledgerEvent.occurredAt)!, data };
}

/**
 * Extension (docs/watch.md): a watched schedule's run changed beyond its thresholds. Its id derives from
 * the capture, so a comparison recorded twice still gives receivers one event.
 */
export function captureChangedEnvelope(
  baseUrl: string,
  ledgerEvent: { occurredAt: string; data: CaptureComparison },
  url: string,
): WebhookEnvelope {
  const c = ledgerEvent.data;
  const diff = `${baseUrl}/v1/captures/${c.captureId}/diff?base=${c.baseCaptureId}`;
  return {
    id: webhookEventId(`compared:${c.captureId}`, 'capture.changed'),
    type: 'capture.changed',
    createdAt: iso(ledgerEvent.occurredAt)!,
    data: {
      captureId: c.captureId,
      baseCaptureId: c.baseCaptureId,
      scheduleId: c.scheduleId,
      url,
      comparedAt: c.comparedAt,
      summary: c.summary,
      diffUrl: diff,
      diffImageUrl: diff.replace('/diff?', '/diff.png?'),
    },
  };
}

/** spec 6.4: a synthetic event; its payload names the webhook it tests. */
export function pingEnvelope(eventId: string, now: Date, webhookId: string): WebhookEnvelope {
  return {
    id: eventId,
    type: 'ping',
    createdAt: now.toISOString(),
    data: { webhookId, message: 'Ping from Capture Ledger.' },
  };
}

/** The exact bytes sent (and signed). Serialised once; never re-serialised after (spec 6.5). */
export const envelopeBody = (envelope: WebhookEnvelope): string => JSON.stringify(envelope);
