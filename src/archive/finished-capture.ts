import type { NetworkExchange } from '../domain/network-exchange.js';
import type { ProvenanceRecord } from './provenance-record.js';

/**
 * What the browser recorded of one page: the part of the capture engine's result a bundle is made from. The
 * worker passes its PageCaptureResult (src/capture/page-capture.ts) as it is; nothing is copied field by field.
 */
export interface RecordedPage {
  title?: string;
  exchanges: NetworkExchange[];
  /** Full-page PNG, best available (post-dismissal when consent was dismissed). */
  screenshot: Buffer;
  /** Pre-dismissal PNG, only when a consent banner was dismissed. */
  screenshotBefore?: Buffer;
  /** Rendered HTML after script execution. */
  html: string;
  /** The `headers` artifact: HTTP response headers captured at fetch time (credentials already redacted), or null. */
  headers: object | null;
  /** The page printed to PDF, when the capture asked for it: member attachments/page.pdf. */
  pdf?: Buffer;
  /** The session recording, when the capture asked for it: member attachments/session.webm. */
  sessionRecording?: { video: Buffer };
}

/** Everything a bundle is made from (makeBundle, bundle.ts): the capture's identity, times and settings, and its page. */
export interface FinishedCapture {
  captureId: string;
  /** The main page URL as submitted. */
  url: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** ISO 8601 UTC. */
  completedAt: string;
  page: RecordedPage;
  /** How the page was captured (record's captureSettings); in datapackage.json, so signed. */
  captureSettings?: Record<string, unknown>;
  /** Written as provenance/provenance.json and .html; makeBundle fills `signing`. */
  provenance?: ProvenanceRecord;
}
