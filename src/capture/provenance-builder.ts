import { sha256Prefixed } from '../archive/digests.js';
import type {
  ProvenanceArtifact,
  ProvenanceRecord,
  ProvenanceRetention,
  ProvenanceDnsEntry,
  ProvenanceVantage,
  RedirectHop,
} from '../archive/provenance-record.js';
import type { ObservedConnection } from '../net/connection-log.js';
import { type DnsAnswer, isLocalhostName, literalAddress, normaliseHost } from '../net/resolve.js';
import type { PageCaptureResult } from './page-capture.js';

/** Assembles a capture's provenance record (archive/provenance-record.ts) from what the worker saw. */
export function buildProvenanceRecord(input: {
  captureId: string;
  requestedUrl: string;
  submittedAt: string;
  startedAt: string;
  completedAt: string;
  result: PageCaptureResult;
  captureSettings: Record<string, unknown>;
  connections: ObservedConnection[];
  /** The downloadable artifacts, as stored. */
  artifacts: Array<{ name: string; mediaType: string; bytes: Uint8Array }>;
  /** The retention the objects are stored with, when there is one. */
  retention?: ProvenanceRetention;
  /** The resolver's answers for the page's hosts since the capture began (absent: not recorded). */
  dnsAnswers?: DnsAnswer[];
  vantage?: ProvenanceVantage;
  worker?: string;
}): ProvenanceRecord {
  const { result } = input;
  return {
    provenanceVersion: 1,
    captureId: input.captureId,
    requestedUrl: input.requestedUrl,
    finalUrl: result.finalUrl,
    redirectChain: redirectChain(result),
    mainDocumentStatus: result.mainStatus,
    renderQuality: result.renderQuality,
    submittedAt: input.submittedAt,
    startedAt: input.startedAt,
    completedAt: input.completedAt,
    browser: { name: 'Chromium', version: result.browser.version, userAgent: result.browser.userAgent },
    viewport: { ...result.settings.viewport, deviceScaleFactor: result.settings.deviceScaleFactor },
    captureSettings: input.captureSettings,
    connections: input.connections,
    artifacts: input.artifacts.map(
      (a): ProvenanceArtifact => ({
        name: a.name,
        mediaType: a.mediaType,
        hash: sha256Prefixed(a.bytes),
        bytes: a.bytes.byteLength,
      }),
    ),
    ...(input.retention ? { retention: input.retention } : {}),
    ...(input.dnsAnswers ? { dns: dnsEntries(hostsOf(result), input.dnsAnswers) } : {}),
    ...(input.vantage ? { vantage: input.vantage } : {}),
    ...(input.worker ? { worker: input.worker } : {}),
    notes: result.notes,
  };
}

/** Per host of the page, in order: the resolver's answers, or why there are none (a literal IP, localhost). */
function dnsEntries(hosts: Set<string>, answers: DnsAnswer[]): ProvenanceDnsEntry[] {
  const entries: ProvenanceDnsEntry[] = [];
  for (const host of [...hosts].sort()) {
    const literal = literalAddress(host);
    if (literal !== undefined) {
      entries.push({ source: 'ip-literal', name: host, addresses: [{ address: literal, ttl: null }] });
    } else if (isLocalhostName(host)) {
      entries.push({ source: 'localhost', name: host, addresses: [] });
    } else {
      for (const answer of answers) if (answer.name === host) entries.push({ source: 'resolver', ...answer });
    }
  }
  return entries;
}

/** Each main-document URL with the status it answered and where it sent the browser next. */
function redirectChain(result: PageCaptureResult): RedirectHop[] {
  const urls = result.mainDocumentUrls.length > 0 ? result.mainDocumentUrls : [result.finalUrl];
  return urls.map((url, i) => {
    const exchange = result.exchanges.find((e) => e.url === url);
    const location = exchange?.responseHeaders.find(([name]) => name.toLowerCase() === 'location')?.[1];
    const last = i === urls.length - 1;
    const status = exchange?.status ?? (last ? result.mainStatus || null : null);
    return { url, status, ...(location && !last ? { location } : {}) };
  });
}

/** Hosts whose connections belong in the record: every host the page requested, redirects included. */
export function hostsOf(result: Pick<PageCaptureResult, 'exchanges' | 'mainDocumentUrls' | 'finalUrl'>): Set<string> {
  const hosts = new Set<string>();
  for (const url of [...result.mainDocumentUrls, result.finalUrl, ...result.exchanges.map((e) => e.url)]) {
    try {
      hosts.add(normaliseHost(new URL(url).hostname));
    } catch {
      // data: or malformed URLs open no connection
    }
  }
  return hosts;
}
