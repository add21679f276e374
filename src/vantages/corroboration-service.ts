import { createHash, X509Certificate } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import { unzipSync } from 'fflate';
import type pg from 'pg';
import { PNG } from 'pngjs';
import { findCapture, type CaptureRow } from '../../projections/read-models/captures.js';
import { CORROBORATION_CONTEXT } from '../../packages/verifier/src/index.js';
import { CDXJ_PATH } from '../archive/bundle-format.js';
import type { Notary } from '../archive/notary.js';
import type { ProvenanceRecord } from '../archive/provenance-record.js';
import { parseProvenance } from '../archive/provenance-view.js';
import type { ArtifactStore } from '../storage/artifact-store.js';
import { readRecordedArtifact } from '../capture/recorded-artifact.js';
import type { Vantage } from '../config/vantages.js';
import { canonicalJsonBytes } from '../domain/canonical-json.js';
import type { CaptureOptions } from '../domain/capture-options.js';
import {
  corroborate,
  corroborationKeys,
  type CorroborationRecord,
  type MemberObservation,
  type RgbaImage,
  visibleTextBlocks,
} from './corroboration-rules.js';

/**
 * Corroborated captures (docs/evidence.md, Corroborated captures). Admission plans the members — one
 * capture per vantage, distinct vantages — and registers the set; once every member is complete or failed, the
 * first request for it compares what they saw (src/vantages/corroboration-rules.ts), has the record signed and
 * time-stamped by the signer role, and stores it once (KV `create`: of two API processes racing, one wins and
 * both answer its bytes).
 *
 * The signature is the signer's certificate attestation (notary.certify) over
 * certificateMessage(setId, CORROBORATION_CONTEXT, recordHash): the context in the bundle-hash position can never
 * be a bundle's hash, so it cannot pass for a capture certificate's; the RFC 3161 timestamp is over recordHash.
 */

export { CORROBORATION_CONTEXT };

export interface CorroborationSet {
  id: string;
  url: string;
  createdAt: string;
  tenantId: string;
  members: Array<{ captureId: string; vantage: { id: string; label: string; region: string } }>;
}

export interface SignedCorroboration {
  record: CorroborationRecord;
  /** `sha256:` of the RFC 8785 bytes of `record`. */
  recordHash: string;
  signature: { algorithm: 'Ed25519'; keyId: string; publicKey: string; signature: string; signedAt: string };
  timestamp: { token: string; genTime: string; tsa: string } | null;
}

export type CorroborationAnswer =
  | {
      status: 'pending';
      id: string;
      url: string;
      members: Array<{ captureId: string; vantage: string; status: string }>;
    }
  | ({ status: 'complete'; id: string } & SignedCorroboration);

/** The vantages the members are captured from: `vantage` first when given, then the configured order. */
export function planCorroboration(
  options: CaptureOptions,
  vantages: readonly Vantage[],
): { vantages: Vantage[] } | { detail: string } {
  const n = options.corroborate ?? 1;
  const first = options.vantage ? vantages.filter((v) => v.id === options.vantage) : [];
  const chosen = [...first, ...vantages.filter((v) => v.id !== options.vantage)].slice(0, n);
  if (chosen.length < n)
    return {
      detail: `options.corroborate ${n} needs ${n} vantage points; this service has ${vantages.length}${
        vantages.length ? ` (${vantages.map((v) => v.id).join(', ')})` : ''
      }.`,
    };
  return { vantages: chosen };
}

const { set: setKey, record: recordKey, member: memberKey } = corroborationKeys;

export interface CorroborationDeps {
  pool: pg.Pool;
  artifacts: ArtifactStore;
  /** Where sets and records are kept, written once (the `certificates` bucket, keys `corroboration.…`). */
  store: Pick<KV, 'get' | 'create' | 'put'>;
  notary: Notary | null;
  publicBaseUrl: string;
  /**
   * Records a record just issued on the set's tenant's ledger (`capture.corroboration_attested`), from which the
   * sequencer logs it as a `corroboration` leaf (src/transparency/leaf.ts), like a bundle.
   */
  recordAttestation(set: CorroborationSet, signed: SignedCorroboration): Promise<void>;
}

export type Corroborations = ReturnType<typeof createCorroborations>;

export function createCorroborations(deps: CorroborationDeps) {
  const state: CorroborationsState = { deps, making: new Map() };
  return {
    /** GET /v1/captures/{id}/corroboration of a member. */
    urlOf: (captureId: string) => `${deps.publicBaseUrl}/v1/captures/${captureId}/corroboration`,

    /** Stores a set before its members are admitted (a refused admission leaves an entry nobody names). */
    async register(set: CorroborationSet): Promise<void> {
      await deps.store.put(setKey(set.id), new TextEncoder().encode(JSON.stringify(set)));
      for (const m of set.members) await deps.store.put(memberKey(m.captureId), new TextEncoder().encode(set.id));
    },

    /** The set a capture belongs to, or null. */
    setOf: (captureId: string): Promise<CorroborationSet | null> => setOf(state, captureId),

    /** The set's record once every member is done (made on the first request), else where the members stand. */
    forCapture: (captureId: string): Promise<CorroborationAnswer | null> => forCapture(state, captureId),
  };
}

/** What the corroboration functions share: the dependencies and the records being made, by set id. */
interface CorroborationsState {
  deps: CorroborationDeps;
  making: Map<string, Promise<SignedCorroboration>>;
}

async function readJson<T>(state: CorroborationsState, key: string): Promise<T | null> {
  const entry = await state.deps.store.get(key);
  return entry && entry.operation === 'PUT' && entry.value.length > 0
    ? (JSON.parse(new TextDecoder().decode(entry.value)) as T)
    : null;
}

/** The set a capture belongs to, or null. */
async function setOf(state: CorroborationsState, captureId: string): Promise<CorroborationSet | null> {
  const entry = await state.deps.store.get(memberKey(captureId));
  if (entry?.operation !== 'PUT' || entry.value.length === 0) return null;
  return readJson<CorroborationSet>(state, setKey(new TextDecoder().decode(entry.value)));
}

/** The set's record once every member is done (made on the first request), else where the members stand. */
async function forCapture(state: CorroborationsState, captureId: string): Promise<CorroborationAnswer | null> {
  const set = await setOf(state, captureId);
  if (!set) return null;
  const rows = await Promise.all(set.members.map((m) => findCapture(state.deps.pool, m.captureId)));
  // A set whose admission was refused (the quota) names captures that do not exist: nothing to show.
  if (rows.every((r) => r === null)) return null;
  if (rows.some((r) => r === null || r.status === 'pending')) {
    return {
      status: 'pending',
      id: set.id,
      url: set.url,
      members: set.members.map((m, i) => ({
        captureId: m.captureId,
        vantage: m.vantage.id,
        status: rows[i]?.status ?? 'pending',
      })),
    };
  }
  let pending = state.making.get(set.id);
  if (!pending) {
    pending = make(state, set, rows).finally(() => state.making.delete(set.id));
    state.making.set(set.id, pending);
  }
  return { status: 'complete', id: set.id, ...(await pending) };
}

/** What one member saw, read from its stored artifacts; a member that did not complete is `failed`. */
async function observe(
  artifacts: ArtifactStore,
  row: CaptureRow | null,
  member: CorroborationSet['members'][number],
): Promise<MemberObservation> {
  const base = {
    captureId: member.captureId,
    vantage: member.vantage,
    exitAddress: null,
    startedAt: null,
    completedAt: null,
    failureReason: null,
    error: null,
    bundleHash: null,
    worker: null,
  };
  if (row?.status !== 'complete' || !row.artifacts)
    return {
      ...base,
      status: 'failed',
      failureReason: row?.failure_reason ?? null,
      error: row?.error ?? 'the capture is missing',
    };
  const refs = row.artifacts as unknown as Record<string, string | undefined>;
  const read = (name: string) =>
    refs[name]
      ? readRecordedArtifact(artifacts, refs[name]!, { captureId: member.captureId, artifact: name })
      : Promise.resolve(null);
  const [html, screenshot, provenanceBytes, wacz] = await Promise.all([
    read('html'),
    read('screenshot'),
    read('provenance'),
    read('wacz'),
  ]);
  const provenance = provenanceBytes ? parseProvenance(provenanceBytes) : null;
  const finalUrl = provenance?.finalUrl ?? row.final_url ?? row.url;
  const index = wacz ? archivedResponses(wacz) : [];
  return {
    ...base,
    status: 'complete',
    exitAddress: provenance?.vantage?.exit.observedAddress ?? null,
    startedAt: provenance?.startedAt ?? null,
    completedAt: provenance?.completedAt ?? null,
    bundleHash: row.bundle?.bundleHash ?? null,
    worker: provenance?.worker ?? null,
    textBlocks: html ? visibleTextBlocks(new TextDecoder().decode(html)) : [],
    mainBodyDigest: index.find((e) => e.url === finalUrl)?.digest ?? null,
    tlsLeafKeyHash: provenance ? leafKeyHash(provenance, finalUrl) : null,
    resources: [...new Set(index.map((e) => e.url))].sort(),
    screenshot: screenshot ? decodePng(screenshot) : null,
  };
}

/** The set's record, signed and stored once (of two processes racing, the first stored wins). */
async function make(
  state: CorroborationsState,
  set: CorroborationSet,
  rows: Array<CaptureRow | null>,
): Promise<SignedCorroboration> {
  const { deps } = state;
  const existing = await readJson<SignedCorroboration>(state, recordKey(set.id));
  if (existing) return existing;
  if (!deps.notary) throw new Error('this deployment signs nothing (SIGNING_KEY=none): no corroboration record');
  const members = await Promise.all(set.members.map((m, i) => observe(deps.artifacts, rows[i]!, m)));
  const record = corroborate({
    id: set.id,
    url: set.url,
    createdAt: set.createdAt,
    members,
    hash: (text) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`,
  });
  const recordHash = `sha256:${createHash('sha256').update(canonicalJsonBytes(record)).digest('hex')}`;
  const attested = await deps.notary.certify({
    captureId: set.id,
    bundleHash: CORROBORATION_CONTEXT,
    certificateHash: recordHash,
  });
  const signed: SignedCorroboration = {
    record,
    recordHash,
    signature: attested.signature as SignedCorroboration['signature'],
    timestamp: attested.timestamp,
  };
  try {
    await deps.store.create(recordKey(set.id), new TextEncoder().encode(JSON.stringify(signed)));
  } catch (err) {
    // Another process made it first (its own signature and time): that one is the record, and it logs it.
    const winner = await readJson<SignedCorroboration>(state, recordKey(set.id));
    if (winner) return winner;
    throw err;
  }
  await deps.recordAttestation(set, signed);
  return signed;
}

/** Response records of the bundle's CDXJ index: URL and payload digest. */
function archivedResponses(wacz: Uint8Array): Array<{ url: string; digest: string | null }> {
  const files = unzipSync(wacz, { filter: (f) => f.name === CDXJ_PATH });
  const index = files[CDXJ_PATH];
  if (!index) return [];
  const out: Array<{ url: string; digest: string | null }> = [];
  for (const line of new TextDecoder().decode(index).split('\n')) {
    const brace = line.indexOf('{');
    if (brace === -1) continue;
    const entry = JSON.parse(line.slice(brace)) as { url?: string; digest?: string; status?: string; mime?: string };
    if (!entry.url || entry.status === undefined || entry.mime === 'warc/request') continue;
    out.push({ url: entry.url, digest: entry.digest ?? null });
  }
  return out;
}

/** SHA-256 of the SubjectPublicKeyInfo of the leaf certificate the proxy saw for the final URL's host. */
function leafKeyHash(provenance: ProvenanceRecord, finalUrl: string): string | null {
  let host: string;
  try {
    host = new URL(finalUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return null;
  }
  const pem = provenance.connections.find((c) => c.host.toLowerCase() === host && c.tls)?.tls?.certificateChainPem[0];
  if (!pem) return null;
  const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

function decodePng(bytes: Uint8Array): RgbaImage | null {
  try {
    const png = PNG.sync.read(Buffer.from(bytes));
    return {
      width: png.width,
      height: png.height,
      data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.length),
    };
  } catch {
    return null;
  }
}
