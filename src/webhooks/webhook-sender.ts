// One signed POST of a webhook event (live delivery attempts and pings alike). The body is sent byte for
// byte as given; the signature is made at send time, so X-SVC-Timestamp is the dispatch time (spec 6.5).
import { performance } from 'node:perf_hooks';
import type { Clock } from '../domain/clock.js';
import {
  type AddressPolicy,
  EgressBlockedError,
  NetworkRequestError,
  RequestTimeoutError,
  safeRequest,
} from '../net/index.js';
import { type AttemptResult, describeResult, isSuccess } from './delivery-policy.js';
import { SIGNATURE_HEADER, signWebhookPayload, TIMESTAMP_HEADER } from './signature.js';

/** Spec 6.6 item 4 leaves the delivery time-out open; ours is 10 s for the whole exchange (docs/webhooks.md). */
export const DELIVERY_TIMEOUT_MS = 10_000;
export const EVENT_ID_HEADER = 'X-SVC-Event-Id';
export const USER_AGENT = 'CaptureLedger-Webhooks/1';

export interface SenderDeps {
  policy: AddressPolicy;
  clock: Clock;
  /** Extra trusted CAs (WEBHOOK_CA_CERTS), PEM. */
  ca?: string[];
  timeoutMs?: number;
}

export interface SendOutcome {
  result: AttemptResult;
  /** The HTTP status, or null when no response arrived. */
  httpStatus: number | null;
  latencyMs: number;
  /** Present when the attempt failed. */
  detail?: string;
}

export async function sendWebhook(
  deps: SenderDeps,
  target: { url: string; secret: string; eventId: string; body: string },
): Promise<SendOutcome> {
  const timestamp = Math.floor(deps.clock.now().getTime() / 1000);
  const signed = signWebhookPayload(target.secret, timestamp, target.body);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await safeRequest(target.url, {
      method: 'POST',
      body: target.body,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        [SIGNATURE_HEADER]: signed.header,
        [TIMESTAMP_HEADER]: String(timestamp),
        [EVENT_ID_HEADER]: target.eventId,
      },
      timeoutMs: deps.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      policy: deps.policy,
      ...(deps.ca && deps.ca.length > 0 ? { ca: deps.ca } : {}),
    });
    const result: AttemptResult = { kind: 'response', status: res.status };
    if (isSuccess(res.status)) return { result, httpStatus: res.status, latencyMs: res.latencyMs };
    const snippet = res.bodyText.replace(/\s+/g, ' ').trim().slice(0, 200);
    return {
      result,
      httpStatus: res.status,
      latencyMs: res.latencyMs,
      detail: `the receiver answered HTTP ${res.status}${snippet ? `: ${snippet}` : ''}`,
    };
  } catch (err) {
    const result: AttemptResult =
      err instanceof EgressBlockedError
        ? { kind: 'blocked', detail: err.message }
        : err instanceof RequestTimeoutError
          ? { kind: 'timeout' }
          : err instanceof NetworkRequestError
            ? { kind: 'network', detail: err.message }
            : { kind: 'network', detail: (err as Error).message ?? String(err) };
    const detail =
      result.kind === 'timeout'
        ? `no response within ${deps.timeoutMs ?? DELIVERY_TIMEOUT_MS} ms`
        : describeResult(result);
    return { result, httpStatus: null, latencyMs: elapsed(), detail };
  }
}
