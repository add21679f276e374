// Webhook request signing, spec 6.5: X-SVC-Signature-256: t=<unix seconds>,v1=<hex HMAC-SHA256>, the key
// being the hex-decoded part of the secret after `svcsec_`, the signed bytes `${t}.${raw body}`.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'svcsec_';
export const SIGNATURE_HEADER = 'X-SVC-Signature-256';
export const TIMESTAMP_HEADER = 'X-SVC-Timestamp';
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SECRET_PATTERN = /^svcsec_[0-9a-fA-F]{64}$/;

export interface WebhookSignature {
  /** Value of the X-SVC-Signature-256 header. */
  header: string;
  /** The lowercase hex HMAC alone. */
  signature: string;
}

export type SignatureVerdict =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed_header' | 'stale_timestamp' | 'mismatch' };

/** A new secret: `svcsec_` + 32 random bytes as lowercase hex (spec 2.9). */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('hex');
}

export function signWebhookPayload(
  secret: string,
  timestampSeconds: number,
  rawBody: string | Buffer,
): WebhookSignature {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`timestamp must be whole Unix seconds, got ${timestampSeconds}`);
  }
  const signature = hmacHex(secretKey(secret), timestampSeconds, rawBody);
  return { header: `t=${timestampSeconds},v1=${signature}`, signature };
}

/**
 * Receiver-side check (also used by our tests and tooling). Accepts any `v1=` entry of the header so a
 * receiver holding two secrets during a rotation (spec 6.6 item 6) can call it once per secret.
 */
export function verifyWebhookSignature(
  secret: string,
  headerValue: string,
  rawBody: string | Buffer,
  options: { nowSeconds: number; toleranceSeconds?: number },
): SignatureVerdict {
  const parsed = parseSignatureHeader(headerValue);
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(options.nowSeconds - parsed.timestamp) > tolerance) return { ok: false, reason: 'stale_timestamp' };
  const expected = Buffer.from(hmacHex(secretKey(secret), parsed.timestamp, rawBody), 'hex');
  for (const candidate of parsed.signatures) {
    const given = Buffer.from(candidate, 'hex');
    if (given.length === expected.length && timingSafeEqual(given, expected))
      return { ok: true, timestamp: parsed.timestamp };
  }
  return { ok: false, reason: 'mismatch' };
}

function parseSignatureHeader(value: string): { timestamp: number; signatures: string[] } | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1) return undefined;
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,15}$/.test(val) || timestamp !== undefined) return undefined;
      timestamp = Number(val);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(val)) return undefined;
      signatures.push(val.toLowerCase());
    }
    // Unknown keys (a future v2) are ignored.
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

function secretKey(secret: string): Buffer {
  if (!SECRET_PATTERN.test(secret)) {
    throw new TypeError('webhook secret must be "svcsec_" followed by 64 hex characters');
  }
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'hex');
}

function hmacHex(key: Buffer, timestampSeconds: number, rawBody: string | Buffer): string {
  return createHmac('sha256', key)
    .update(`${timestampSeconds}.`, 'utf8')
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
}
