import type { Logger } from 'pino';
import type { BundleRef } from '../domain/events.js';
import type { PageCaptureResult } from '../capture/page-capture.js';
import { buildSignedBundle } from './bundle-builder.js';
import type { Notary } from './notary.js';
import type { ProvenanceRecord } from './provenance-record.js';

export interface BundleRequest {
  captureId: string;
  url: string;
  createdAt: string;
  completedAt: string;
  result: PageCaptureResult;
  captureSettings?: Record<string, unknown>;
  provenance?: ProvenanceRecord;
}

export type MadeBundle = BundleRef & { bytes: Uint8Array; provenanceJson?: Uint8Array };

/** What the browser worker asks for a finished capture: its WACZ, or null when the deployment makes none. */
export type BundleMaker = (request: BundleRequest) => Promise<MadeBundle | null>;

/**
 * The worker builds the WACZ itself (the bytes never leave it) and asks `notary` — the signer role — to
 * time-stamp and sign its hash. A TSA that stays down downgrades the bundle to v0.1.0 (signed, not
 * time-stamped): the capture is never lost for want of a timestamp.
 */
export function createBundleMaker(notary: Notary, log: Logger): BundleMaker {
  return async ({ captureId, url, createdAt, completedAt, result, captureSettings, provenance }) => {
    const bundle = await buildSignedBundle(
      {
        captureId,
        url,
        title: result.title,
        createdAt,
        completedAt,
        exchanges: result.exchanges,
        screenshot: result.screenshot,
        ...(result.screenshotBefore ? { screenshotBefore: result.screenshotBefore } : {}),
        html: result.html,
        headers: result.headers,
        ...(result.pdf ? { pdf: result.pdf } : {}),
        ...(captureSettings ? { captureSettings } : {}),
        ...(provenance ? { provenance } : {}),
      },
      { notary, onTimestampFailure: 'downgrade' },
    );
    if (!bundle) return null;
    if (bundle.timestampError) {
      log.warn({ captureId, err: bundle.timestampError }, 'TSA unavailable after retries; bundle issued as v0.1.0 without a timestamp');
    }
    return {
      bytes: bundle.bytes,
      ...(bundle.provenanceJson ? { provenanceJson: bundle.provenanceJson } : {}),
      bundleHash: bundle.bundleHash,
      size: bundle.size,
      version: bundle.version,
      keyId: bundle.keyId,
      ...(bundle.timestamp ? { genTime: bundle.timestamp.genTime } : {}),
    };
  };
}
