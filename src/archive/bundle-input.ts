import type { NetworkExchange } from '../domain/network-exchange.js';
import type { ProvenanceRecord } from './provenance-record.js';

/** Everything a bundle is made from: what the capture engine recorded for one page. */
export interface BundleInput {
  captureId: string;
  /** The main page URL as submitted. */
  url: string;
  title?: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** ISO 8601 UTC. */
  completedAt: string;
  exchanges: NetworkExchange[];
  /** Full-page PNG, best available (post-dismissal when consent was dismissed). */
  screenshot: Buffer;
  /** Pre-dismissal PNG, only when a consent banner was dismissed. */
  screenshotBefore?: Buffer;
  /** Rendered HTML after script execution. */
  html: string;
  /** HTTP response headers object captured at fetch time (Set-Cookie already redacted), or null. */
  headers: object | null;
  /** How the page was captured (record's captureSettings); in datapackage.json, so signed. */
  captureSettings?: Record<string, unknown>;
  /** The page printed to PDF, when the capture asked for it: member attachments/page.pdf. */
  pdf?: Buffer;
  /** Written as provenance/provenance.json and .html; the builder fills `signing`. */
  provenance?: ProvenanceRecord;
}
