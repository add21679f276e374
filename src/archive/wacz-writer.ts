import type { FinishedCapture } from './finished-capture.js';
import {
  CDXJ_PATH,
  DATAPACKAGE_PATH,
  DIGEST_PATH,
  PAGES_PATH,
  PDF_PATH,
  SESSION_VIDEO_PATH,
  SOFTWARE,
  WACZ_VERSION,
  WARC_PATH,
  type BundleVersion,
  type Datapackage,
} from './bundle-format.js';
import { canonicalJsonBytes } from '../domain/canonical-json.js';
import { indexWrittenWarc } from './cdxj-indexer.js';
import { provenancePage } from './provenance-page.js';
import { PROVENANCE_HTML_PATH, PROVENANCE_JSON_PATH, provenanceJsonBytes } from './provenance-record.js';
import { sha256Hex, sha256Prefixed } from './digests.js';
import { storedZip } from './stored-zip.js';
import { writeWarc } from './warc-writer.js';

/**
 * WACZ 1.1.1 writer (DESIGN decision 7). Layout and field meanings: bundle-format.ts.
 * Split in steps so makeBundle (bundle.ts) can re-issue datapackage.json (e.g. downgrade to v0.1.0)
 * without rewriting the WARC.
 */

/** archive/, indexes/ and pages/ members, keyed by their path in the zip. */
export type WaczMembers = Map<string, Uint8Array>;

export interface WaczManifest {
  datapackage: Datapackage;
  /** The exact RFC 8785 bytes written as datapackage.json. */
  datapackageBytes: Uint8Array;
  /** 'sha256:' + hex SHA-256 of `datapackageBytes`. */
  bundleHash: string;
}

export interface ManifestOptions {
  bundleVersion: BundleVersion;
  keyId: string;
}

export async function buildWaczMembers(input: FinishedCapture): Promise<WaczMembers> {
  const warc = await writeWarc(input);
  const cdxj = await indexWrittenWarc(warc);
  const members: WaczMembers = new Map([
    [WARC_PATH, warc.bytes],
    [CDXJ_PATH, cdxj],
    [PAGES_PATH, pagesJsonl(input)],
  ]);
  // Extra members (docs/capturing.md, Capture options) are listed in datapackage.json like the others, so the signature covers them.
  if (input.page.pdf) members.set(PDF_PATH, input.page.pdf);
  if (input.page.sessionRecording) members.set(SESSION_VIDEO_PATH, input.page.sessionRecording.video);
  if (input.provenance) {
    members.set(PROVENANCE_JSON_PATH, provenanceJsonBytes(input.provenance));
    members.set(PROVENANCE_HTML_PATH, new TextEncoder().encode(provenancePage(input.provenance)));
  }
  return members;
}

export function buildManifest(input: FinishedCapture, members: WaczMembers, options: ManifestOptions): WaczManifest {
  const mainPageUrl = new URL(input.url).href;
  const resources = [...members.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, bytes]) => ({
      name: path.slice(path.lastIndexOf('/') + 1),
      path,
      hash: sha256Prefixed(bytes),
      bytes: bytes.byteLength,
    }));
  const datapackage: Datapackage = {
    profile: 'data-package',
    wacz_version: WACZ_VERSION,
    title: input.page.title || mainPageUrl,
    created: input.completedAt,
    software: SOFTWARE,
    mainPageUrl,
    mainPageDate: mainPageDate(input),
    resources,
    captureLedger: {
      bundleVersion: options.bundleVersion,
      captureId: input.captureId,
      url: input.url,
      createdAt: input.createdAt,
      completedAt: input.completedAt,
      keyId: options.keyId,
      ...(input.captureSettings ? { captureSettings: input.captureSettings } : {}),
    },
  };
  const datapackageBytes = canonicalJsonBytes(datapackage);
  return { datapackage, datapackageBytes, bundleHash: sha256Prefixed(datapackageBytes) };
}

/** Convenience: members + manifest in one call. */
export async function buildWacz(
  input: FinishedCapture,
  options: ManifestOptions,
): Promise<WaczManifest & { files: WaczMembers }> {
  const files = await buildWaczMembers(input);
  return { files, ...buildManifest(input, files, options) };
}

/**
 * The final .wacz bytes. Every member is STORED (the WARC is already gzip; WACZ readers need
 * random access), with a fixed mtime so the same members give the same zip.
 */
export function zipWacz(
  members: WaczMembers,
  datapackageBytes: Uint8Array,
  digestBytes: Uint8Array,
  mtime: Date,
): Buffer {
  return storedZip([...members, [DATAPACKAGE_PATH, datapackageBytes], [DIGEST_PATH, digestBytes]], mtime);
}

function pagesJsonl(input: FinishedCapture): Uint8Array {
  const url = new URL(input.url).href;
  const header = { format: 'json-pages-1.0', id: 'pages', title: 'All Pages' };
  const page: Record<string, string> = {
    id: sha256Hex(new TextEncoder().encode(`${input.captureId} ${url}`)).slice(0, 32),
    url,
    ts: mainPageDate(input),
  };
  if (input.page.title) page['title'] = input.page.title;
  return new TextEncoder().encode(`${JSON.stringify(header)}\n${JSON.stringify(page)}\n`);
}

/** When the main document was requested (its WARC-Date), falling back to the capture start. */
function mainPageDate(input: FinishedCapture): string {
  const url = new URL(input.url).href;
  const main = input.page.exchanges.find((exchange) => sameUrl(exchange.url, url));
  return main?.startedAt ?? input.createdAt;
}

function sameUrl(candidate: string, href: string): boolean {
  try {
    return new URL(candidate).href === href;
  } catch {
    return false;
  }
}
