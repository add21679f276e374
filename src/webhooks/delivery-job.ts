import type { WebhookEnvelopeType } from './webhook-events.js';

/**
 * One delivery on the DELIVERIES work queue: one event to one webhook (msgID `<eventId>:<webhookId>`).
 * It carries the exact body to send, so every attempt sends the same bytes; never the secret, which the
 * dispatcher looks up at send time (a deleted webhook's secret is gone, spec 3.3).
 */
export interface DeliveryJob {
  deliveryId: string;
  tenantId: string;
  webhookId: string;
  url: string;
  eventId: string;
  eventType: WebhookEnvelopeType;
  /** The raw JSON body, byte for byte. */
  body: string;
  correlationId: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const encodeDeliveryJob = (job: DeliveryJob): Uint8Array => encoder.encode(JSON.stringify(job));
export const decodeDeliveryJob = (data: Uint8Array): DeliveryJob => JSON.parse(decoder.decode(data)) as DeliveryJob;
export const deliveryMsgId = (eventId: string, webhookId: string): string => `${eventId}:${webhookId}`;
