/**
 * The provenance record of a capture (docs/capturing.md, Provenance; modelled on the provenance summary of Harvard LIL's Scoop):
 * what an examiner needs to trust a capture, in one document. It is written into the WACZ as
 * `provenance/provenance.json` (and a readable `provenance/provenance.html`), both listed with their hashes
 * in datapackage.json, so the signature covers them. The signature itself and the RFC 3161 timestamp cannot
 * be inside what they sign: the record names the key (`signing.keyId`); GET /v1/captures/{id}/provenance
 * adds `signature` (bundleHash, signedAt, timestamp) read from datapackage-digest.json.
 */
import type { ObservedConnection } from '../net/connection-log.js';
import type { DnsAnswer } from '../net/resolve.js';
import type { VantageExit } from '../vantages/vantage-egress.js';

export const PROVENANCE_JSON_PATH = 'provenance/provenance.json';
export const PROVENANCE_HTML_PATH = 'provenance/provenance.html';

export interface RedirectHop {
  url: string;
  /** HTTP status of the answer at this URL (3xx for a hop; the last one is the main document's). */
  status: number | null;
  location?: string;
}

export interface ProvenanceArtifact {
  name: string;
  mediaType: string;
  /** 'sha256:<hex>' of the bytes served at GET /v1/captures/{id}/artifacts/{name}. */
  hash: string;
  bytes: number;
}

export interface ProvenanceRecord {
  provenanceVersion: 1;
  captureId: string;
  requestedUrl: string;
  finalUrl: string;
  redirectChain: RedirectHop[];
  mainDocumentStatus: number;
  renderQuality: 'full' | 'partial';
  /** Submission, browser start of this attempt, and completion (ISO 8601). */
  submittedAt: string;
  startedAt: string;
  completedAt: string;
  browser: { name: 'Chromium'; version: string; userAgent: string };
  viewport: { width: number; height: number; deviceScaleFactor: number };
  captureSettings: Record<string, unknown>;
  /** Every connection the worker's egress proxy made for hosts this page used, with TLS as seen at connect time. */
  connections: ObservedConnection[];
  artifacts: ProvenanceArtifact[];
  /**
   * How each host of the page was resolved — the resolver's answers (type, addresses, TTL, servers),
   * or that the host was an IP literal or localhost, which no resolver was asked about. Absent on older records.
   */
  dns?: ProvenanceDnsEntry[];
  /** The vantage point the capture was made from; absent: the worker's own network. */
  vantage?: ProvenanceVantage;
  /** The capture worker that rendered it: a random id per worker process (which members of a corroborated set shared one). */
  worker?: string;
  /** Filled by makeBundle (bundle.ts); absent when the capture has no signed bundle. */
  signing?: { algorithm: 'Ed25519'; keyId: string; signatureIn: 'datapackage-digest.json' };
  /**
   * How long storage keeps this capture's objects, bundle included, beyond anyone's reach: S3 Object
   * Lock in compliance mode until `retainUntil`. Absent: no retention (the JetStream store, or none configured).
   */
  retention?: ProvenanceRetention;
  notes: string[];
}

export interface ProvenanceRetention {
  mode: 'compliance';
  retainUntil: string;
  storage: 'S3 Object Lock';
}

export type ProvenanceDnsEntry =
  | ({ source: 'resolver' } & DnsAnswer)
  | { source: 'ip-literal' | 'localhost'; name: string; addresses: Array<{ address: string; ttl: null }> };

export interface ProvenanceVantage {
  id: string;
  label: string;
  region: string;
  exit: VantageExit;
}

/** What GET /v1/captures/{id}/provenance adds from the bundle's digest document. */
export interface ProvenanceSignature {
  bundleHash: string;
  keyId: string;
  signedAt: string;
  timestamp: { genTime: string; tsa: string } | null;
}

export const provenanceJsonBytes = (record: ProvenanceRecord): Uint8Array =>
  new TextEncoder().encode(`${JSON.stringify(record, null, 2)}\n`);
