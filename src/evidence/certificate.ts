import { unzipSync } from 'fflate';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type pg from 'pg';
import type { Notary } from '../archive/notary.js';
import type { ArtifactStore } from '../storage/artifact-store.js';
import { readRecordedArtifact } from '../capture/recorded-artifact.js';
import { openKvBucket } from '../infra/nats-buckets.js';
import { parseProvenance } from '../archive/provenance-view.js';
import type { ProvenanceRecord } from '../archive/provenance-record.js';
import { iso } from '../domain/clock.js';
import type { CorroborationAnswer } from '../vantages/corroboration-service.js';
import { findCapture, type CaptureRow } from '../../projections/read-models/captures.js';
import {
  attachCertificateEnvelope,
  CERTIFICATE_FORMAT,
  embedPdfSignature,
  preparePdfSignature,
  sha256,
  signedPdfBytes,
  toBase64,
  DATAPACKAGE_PATH,
  DIGEST_PATH,
  fromBase64Strict,
  parseTimestampToken,
  sha256Prefixed,
  verifyBundle,
  transparencyDigest,
  type CertificateEnvelope,
  type CertificateTransparency,
} from '../../packages/verifier/src/index.js';
import { captureLeaf, encodeLeaf } from '../transparency/leaf.js';
import { type CertificateCorroboration, renderCertificatePdf, type CertificateFacts } from './certificate-pdf.js';
import type { DeploymentTrust } from './trust-anchors.js';
import { BUCKETS } from '../infra/topology.js';

/**
 * The certificate of a complete capture with a signed bundle (GET /v1/captures/{id}/certificate, and the MCP
 * tool that gets it): `certificate(captureId)` → the PDF bytes, or null when the capture has none to have.
 *
 * Made once: the PDF is rendered from the stored record, provenance and bundle (certificate-pdf.ts), its hash
 * is signed and time-stamped by the signer role (notary.certify), the signature is attached
 * (packages/verifier/src/certificate.ts), the whole is signed with a standard PDF signature by the signer role
 * (notary.signPdf, packages/verifier/src/pdf-signature.ts), and the result is created in the `certificates` KV
 * bucket.
 * KV `create` fails when the key exists, so of two API processes racing on a first request one wins and
 * both answer its bytes; every later request reads them back — the same bytes, never signed again.
 *
 * Where the deployment runs a transparency log, the certificate is not issued until the bundle's leaf is in a
 * published checkpoint (one is asked for on demand): it then embeds the leaf, the first checkpoint holding it and
 * the inclusion proof (docs/transparency.md). Until then `certificate` throws CertificateNotReady (503 with
 * Retry-After) rather than issue a certificate without the proof, which — stored once — would stay without it.
 * Likewise a member of a corroborated set: its certificate names the set's verdict, so while the set
 * is pending `certificate` throws CertificateNotReady saying so, and once every member is done the certificate is
 * issued with the signed record's verdict, differing fields, vantages and hash.
 */
export const CERTIFICATE_BUCKET = BUCKETS.certificates.name;
const PAGES_PATH = 'pages/pages.jsonl';

export interface Certificates {
  /** null: unknown capture, not complete, or no signed bundle (404 at the route). Throws when the signer cannot be reached. */
  certificate(captureId: string): Promise<Uint8Array | null>;
}

export interface CertificateDeps {
  pool: pg.Pool;
  artifacts: ArtifactStore;
  store: Pick<KV, 'get' | 'create'>;
  /** The signer role (remote over NATS, or this process's own); null: this deployment signs nothing. */
  notary: Notary | null;
  trust: DeploymentTrust;
  publicBaseUrl: string;
  /** ALLOW_PRIVATE_TARGETS, stated in the egress policy. */
  allowPrivateTargets: readonly string[];
  /** The transparency log (TransparencyService); absent where the process follows none. */
  transparency?: CertificateLog | undefined;
  /** The clock the issue time is read from. */
  now?: () => Date;
  /**
   * The corroborated set a capture is a member of: its signed record once every member is done (made
   * on this request if need be), else where the members stand. Absent: the deployment makes no such sets.
   */
  corroborations?: { forCapture(captureId: string): Promise<CorroborationAnswer | null> } | undefined;
}

export interface CertificateLog {
  certificateEvidence(captureId: string): Promise<CertificateTransparency | { unavailable: string; noLog?: true }>;
}

/** The capture's leaf is not in a published checkpoint yet: ask again shortly (503 with Retry-After). */
export class CertificateNotReady extends Error {
  override name = 'CertificateNotReady';
  readonly retryAfterSec = 5;
}

/** The log holds something else than this bundle for the capture: no certificate can state its inclusion. */
export class CertificateRefused extends Error {
  override name = 'CertificateRefused';
}

export async function openCertificateStore(nc: NatsConnection, replicas = 1): Promise<KV> {
  return openKvBucket(nc, CERTIFICATE_BUCKET, { history: 1 }, replicas);
}

export function createCertificates(deps: CertificateDeps): Certificates {
  const making = new Map<string, Promise<Uint8Array | null>>();

  async function stored(captureId: string): Promise<Uint8Array | null> {
    const entry = await deps.store.get(captureId);
    return entry && entry.operation === 'PUT' && entry.value.length > 0 ? entry.value : null;
  }

  async function make(captureId: string): Promise<Uint8Array | null> {
    const row = await findCapture(deps.pool, captureId);
    if (row?.status !== 'complete' || !row.bundle || !row.artifacts?.wacz || !deps.notary) return null;
    const existing = await stored(captureId);
    if (existing) return existing;
    const wacz = await readRecordedArtifact(deps.artifacts, row.artifacts.wacz, { captureId, artifact: 'wacz' });
    const facts = await certificateFacts(row, wacz, deps);
    if (!facts) return null;
    facts.transparency = await loggedFacts(captureId, facts, deps.transparency, deps.publicBaseUrl);
    const issued = new Date(Math.floor((deps.now ?? (() => new Date()))().getTime() / 1000) * 1000);
    facts.issuedAt = issued.toISOString();
    facts.pdfSigningKey = (await deps.notary.describe())?.pdfSigning?.fingerprint ?? null;
    const document = await renderCertificatePdf(facts);
    const certificateHash = await sha256Prefixed(document);
    const attested = await deps.notary.certify({ captureId, bundleHash: facts.bundle.hash, certificateHash });
    const envelope: CertificateEnvelope = {
      format: CERTIFICATE_FORMAT,
      captureId,
      bundleHash: facts.bundle.hash,
      url: facts.requestedUrl,
      certificateHash,
      bytes: document.length,
      signature: attested.signature,
      timestamp: attested.timestamp,
      ...(facts.transparency ? { transparency: facts.transparency.block } : {}),
    };
    const attached = attachCertificateEnvelope(document, new TextEncoder().encode(JSON.stringify(envelope)));
    const pdf = facts.pdfSigningKey ? await pdfSigned(attached, captureId, issued, deps.notary) : attached;
    try {
      await deps.store.create(captureId, pdf);
      return pdf;
    } catch (err) {
      // Another process made it first: its bytes are the certificate.
      const winner = await stored(captureId);
      if (winner) return winner;
      throw err;
    }
  }

  return {
    async certificate(captureId) {
      const existing = await stored(captureId);
      if (existing) return existing;
      let pending = making.get(captureId);
      if (!pending) {
        pending = make(captureId).finally(() => making.delete(captureId));
        making.set(captureId, pending);
      }
      return pending;
    },
  };
}

/**
 * A certificate (of a capture, or of a change: capture-diff-service.ts) with its standard PDF signature (PAdES) as the last
 * update, made by the signer role.
 */
export async function pdfSigned(
  pdf: Uint8Array,
  captureId: string,
  signedAt: Date,
  notary: Notary,
): Promise<Uint8Array> {
  const prepared = preparePdfSignature(pdf, signedAt);
  const digest = await sha256(signedPdfBytes(prepared.prepared, prepared.byteRange));
  const { cms } = await notary.signPdf({ captureId, digest: toBase64(digest) });
  const der = fromBase64Strict(cms);
  if (!der) throw new Error('the signer answered a PDF signature that is not base64');
  return embedPdfSignature(prepared, der);
}

/**
 * Where the page was seen from and how its hosts resolved, as the signed provenance record states
 * them: the vantage point and its observed exit (or that it was not observed), and the resolver's answers.
 */
function networkStatements(provenance: ProvenanceRecord): string[] {
  const lines: string[] = [];
  const v = provenance.vantage;
  if (v) {
    const exit = v.exit.observedAddress
      ? `exit address ${v.exit.observedAddress} as observed by ${v.exit.probeUrl} at ${v.exit.observedAt}`
      : 'exit address not observed (no exit probe)';
    lines.push(`vantage point: ${v.id}, ${v.label} (${v.region}); ${exit}`);
  }
  for (const d of provenance.dns ?? []) {
    if (d.source !== 'resolver') {
      lines.push(`DNS ${d.name}: ${d.source === 'ip-literal' ? 'an IP address' : 'localhost'}, no resolver asked`);
      continue;
    }
    const answer = d.addresses.length
      ? d.addresses.map((a) => `${a.address} (TTL ${a.ttl} s)`).join(', ')
      : `no records${d.error ? ` (${d.error})` : ''}`;
    lines.push(`DNS ${d.name} ${d.type}: ${answer} from ${d.resolver.join(', ')}`);
  }
  return lines;
}

/** A capture setting as a reader would say it: yes/no, numbers and text as they are, lists and objects spelled out. */
function readableSetting(value: unknown): string {
  if (value === true) return 'yes';
  if (value === false) return 'no';
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(readableSetting).join(', ');
  if (typeof value === 'object')
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k} ${readableSetting(v)}`)
      .join(', ');
  return JSON.stringify(value);
}

/**
 * The transparency section of a capture's certificate: null where there is no log; the block once the leaf is in
 * a published checkpoint — after checking that the logged leaf is the one this bundle makes.
 */
async function loggedFacts(
  captureId: string,
  facts: CertificateFacts,
  log: CertificateLog | undefined,
  publicBaseUrl: string,
): Promise<CertificateFacts['transparency']> {
  if (!log) return null;
  const evidence = await log.certificateEvidence(captureId);
  if ('unavailable' in evidence) {
    if (evidence.noLog) return null;
    throw new CertificateNotReady(
      `The certificate is issued once the capture is in a published transparency-log checkpoint: ${evidence.unavailable}. Retry shortly.`,
    );
  }
  const expected = new TextDecoder().decode(
    encodeLeaf(captureLeaf(captureId, facts.bundle.hash, facts.signing.keyId, facts.timestamp?.genTime ?? null)),
  );
  if (evidence.leaf !== expected) {
    throw new CertificateRefused(
      `the transparency log's leaf ${evidence.leafIndex} for capture ${captureId} is not the leaf of its bundle (log: ${evidence.leaf}; bundle: ${expected})`,
    );
  }
  return { block: evidence, digest: await transparencyDigest(evidence), logKeyUrl: `${publicBaseUrl}/v1/log/key` };
}

/** Everything the certificate states, from the stored record, its provenance record and the bundle. */
async function certificateFacts(
  row: CaptureRow,
  wacz: Uint8Array,
  deps: CertificateDeps,
): Promise<CertificateFacts | null> {
  const result = await verifyBundle(wacz, await deps.trust.anchors());
  if (!result.signing) return null;
  const { serial, title, resources } = bundleFacts(wacz);
  const screenshot = row.artifacts?.screenshot
    ? await readRecordedArtifact(deps.artifacts, row.artifacts.screenshot, {
        captureId: row.capture_id,
        artifact: 'screenshot',
      })
    : null;
  const provenanceBytes = row.artifacts?.provenance
    ? await readRecordedArtifact(deps.artifacts, row.artifacts.provenance, {
        captureId: row.capture_id,
        artifact: 'provenance',
      })
    : null;
  const provenance = provenanceBytes ? parseProvenance(provenanceBytes) : null;
  const render = (row.render ?? {}) as { mainDocumentStatus?: number };
  const base = deps.publicBaseUrl;

  const settings = settingStatements(row, provenance);
  const corroboration = await corroborationFacts(row.capture_id, deps);

  const artifacts = artifactStatements(provenance, resources);
  const signing = result.signing;
  return {
    captureId: row.capture_id,
    requestedUrl: provenance?.requestedUrl ?? row.url,
    finalUrl: provenance?.finalUrl ?? row.url,
    redirectChain: provenance?.redirectChain ?? [],
    mainDocumentStatus: provenance?.mainDocumentStatus ?? render.mainDocumentStatus ?? null,
    renderQuality: row.render_quality ?? 'full',
    submittedAt: provenance?.submittedAt ?? iso(row.created_at)!,
    startedAt: provenance?.startedAt ?? null,
    completedAt: provenance?.completedAt ?? iso(row.completed_at)!,
    browser: provenance ? { version: provenance.browser.version, userAgent: provenance.browser.userAgent } : null,
    viewport: provenance?.viewport ?? null,
    settings,
    egressPolicy:
      'Only public unicast internet addresses: every address the browser connected to was resolved and checked by the egress proxy at connect time ' +
      '(private, loopback, link-local and reserved ranges refused)' +
      (deps.allowPrivateTargets.length > 0
        ? `; this deployment also allows ${deps.allowPrivateTargets.join(', ')}.`
        : '.'),
    artifacts,
    bundle: { hash: signing.bundleHash, fileSha256: await sha256Prefixed(wacz), bytes: wacz.length },
    signing: {
      keyId: signing.keyId,
      publicKey: signing.publicKey,
      signature: signing.signature,
      signedAt: signing.signedAt,
    },
    timestamp: signing.timestamp
      ? {
          tsa: signing.timestamp.tsa,
          genTime: signing.timestamp.genTime,
          serial: serial ?? 'unknown',
          builtIn: signing.timestamp.selfIssued === true,
        }
      : null,
    checks: result.checks,
    verifyUrl: `${base}/v1/verify/${row.capture_id}`,
    keysUrl: `${base}/.well-known/signing-keys`,
    tsaCertificatesUrl: `${base}/.well-known/tsa-certificates`,
    issuer: `Capture Ledger at ${new URL(base).host}`,
    transparency: null,
    issuedAt: iso(row.completed_at)!,
    title: title ?? null,
    screenshot,
    pdfSigningKey: null,
    retention: provenance?.retention ?? null,
    corroboration,
  };
}

/** What the bundle itself says: its timestamp token's serial, the page's title and the files it holds. */
function bundleFacts(wacz: Uint8Array) {
  const members = unzipSync(wacz, {
    filter: (file) => file.name === DIGEST_PATH || file.name === DATAPACKAGE_PATH || file.name === PAGES_PATH,
  });
  const digest = JSON.parse(new TextDecoder().decode(members[DIGEST_PATH])) as {
    signedData?: { timestamp?: { token?: string } };
  };
  const datapackage = JSON.parse(new TextDecoder().decode(members[DATAPACKAGE_PATH])) as {
    resources?: Array<{ path: string; hash: string; bytes: number }>;
  };
  const tokenDer = digest.signedData?.timestamp?.token ? fromBase64Strict(digest.signedData.timestamp.token) : null;
  const serial = tokenDer ? parseTimestampToken(tokenDer).serialNumber : null;

  const pageLines = new TextDecoder()
    .decode(members[PAGES_PATH] ?? new Uint8Array())
    .split('\n')
    .slice(1);
  const title = pageLines
    .map((line) => (line ? (JSON.parse(line) as { title?: unknown }).title : undefined))
    .find((t): t is string => typeof t === 'string' && t.length > 0);
  return { serial, title, resources: datapackage.resources ?? [] };
}

/** The capture's settings as sentences, sorted by name, and what its network did (from the provenance record). */
function settingStatements(row: CaptureRow, provenance: ProvenanceRecord | null): string[] {
  const settings = Object.entries((row.capture_settings ?? {}) as Record<string, unknown>)
    .filter(([name]) => name !== 'version')
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => {
      if (name === 'consent' && value && typeof value === 'object') {
        const c = value as { result?: string; cmp?: string | null };
        return `consent banner: ${c.result ?? 'unknown'}${c.cmp ? ` (${c.cmp})` : ''}`;
      }
      if (name === 'signedIn' && value && typeof value === 'object') {
        const p = value as { profile?: { id?: string; name?: string; version?: number }; sites?: string[] };
        return `captured signed in: browser profile ${p.profile?.name ?? '?'} (${p.profile?.id ?? '?'}, version ${p.profile?.version ?? '?'}) holding state for ${(p.sites ?? []).join(', ') || 'no site'}`;
      }
      return `${name}: ${readableSetting(value)}`;
    });
  if (provenance) settings.push(...networkStatements(provenance));
  return settings;
}

/** Every artifact with its hash: the capture's (from its provenance record), then the files of the bundle. */
function artifactStatements(
  provenance: ProvenanceRecord | null,
  resources: Array<{ path: string; hash: string; bytes: number }>,
) {
  return [
    ...(provenance?.artifacts ?? []).map((a) => ({
      name: `artifact ${a.name}`,
      mediaType: a.mediaType,
      bytes: a.bytes,
      hash: a.hash,
    })),
    ...resources.map((r) => ({
      name: `bundle file ${r.path}`,
      mediaType: 'in the WACZ',
      bytes: r.bytes,
      hash: r.hash,
    })),
  ];
}

/**
 * The set's signed record as the certificate states it; null when the capture is in no set. While the set is
 * pending no certificate is issued (stored once, it would never name the verdict): CertificateNotReady says why.
 */
async function corroborationFacts(captureId: string, deps: CertificateDeps): Promise<CertificateCorroboration | null> {
  const answer = deps.corroborations ? await deps.corroborations.forCapture(captureId) : null;
  if (!answer) return null;
  if (answer.status === 'pending')
    throw new CertificateNotReady(
      `Capture ${captureId} is one of the corroborated set ${answer.id}, which is pending (${answer.members
        .map((m) => `${m.captureId} from ${m.vantage}: ${m.status}`)
        .join(
          '; ',
        )}). Its certificate names the set's verdict, so it is issued once every member is complete or failed. Retry shortly.`,
    );
  const { record } = answer;
  return {
    id: record.id,
    verdict: record.verdict,
    differing: record.differing,
    window: record.window,
    members: record.members.map((m) => ({
      captureId: m.captureId,
      vantage: m.vantage,
      exitAddress: m.exitAddress,
      status: m.status,
      worker: m.worker,
    })),
    recordHash: answer.recordHash,
    keyId: answer.signature.keyId,
    genTime: answer.timestamp?.genTime ?? null,
    recordUrl: `${deps.publicBaseUrl}/v1/captures/${captureId}/corroboration`,
  };
}
