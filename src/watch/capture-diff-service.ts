import { createHash } from 'node:crypto';
import type { Notary } from '../archive/notary.js';
import { ArtifactConflictError, type ArtifactStore } from '../storage/artifact-store.js';
import { readRecordedArtifact } from '../capture/recorded-artifact.js';
import { ARTIFACTS } from '../domain/artifacts.js';
import { refusal, unavailable } from '../domain/errors.js';
import { canonicalJson } from '../domain/canonical-json.js';
import { diffRecord } from './diff-record.js';
import {
  attachCertificateEnvelope,
  CERTIFICATE_FORMAT,
  type CertificateEnvelope,
  DIFF_FORMAT,
  type DiffEvidence,
  sha256Prefixed,
} from '../../packages/verifier/src/index.js';
import { renderChangeCertificatePdf } from '../evidence/change-certificate-pdf.js';
import { pdfSigned } from '../evidence/certificate.js';
import { isId } from '../domain/ids.js';
import type { CaptureDiff, CaptureSide } from './capture-diff.js';
import { pixelMasks } from './pixel-masks.js';
import { DiffBoundError } from './diff-bounds.js';
import { type DiffOptions, parseDiffOptions } from './diff-options.js';
import { createDiffThreads } from './diff-thread.js';
import type { HeaderMap } from './header-diff.js';
import type { Box } from './pixel-diff.js';
import { type Caller, causedBy } from '../application/caller.js';
import { createConcurrencyLimit } from '../application/concurrency-limit.js';
import type { ServiceContext } from '../application/service-context.js';
import { type CaptureRow, findCapture } from '../../projections/read-models/captures.js';

/**
 * The diff of two captures of a tenant (docs/watch.md): GET /v1/captures/{id}/diff and /diff.png, and the
 * watch (watch-runner.ts) call this. Both captures must be complete and the caller's; the refusals
 * name the query field at fault (spec 7.1). The comparing itself runs in a worker thread under
 * DIFF_TIME_LIMIT_MS (src/watch/diff-thread.ts): a diff that reaches a bound is a DiffBoundError, which the routes
 * answer as 422 naming the bound (`bounded`) and the watch records.
 */

export type CaptureDiffs = ReturnType<typeof createCaptureDiffs>;

export interface DiffQuery {
  base?: unknown;
  ignoreSelectors?: unknown;
  ignoreText?: unknown;
}

/** Diffs decode two full-page screenshots each (about 100 MB for 20,000 px): a few at once, the rest queue. */
const DIFFS_AT_ONCE = 2;

export const diffPath = (captureId: string, baseId: string, image = false) =>
  `/v1/captures/${captureId}/diff${image ? '.png' : ''}?base=${baseId}`;

/** 404 for evidence or a certificate of a diff that nobody asked to make (POST) yet. */
const notMadeYet = (what: 'evidence' | 'certificate', captureId: string) =>
  refusal(
    404,
    `No ${what === 'evidence' ? 'signed evidence' : 'change certificate'} of this diff was made yet: POST /v1/captures/${captureId}/diff/${what} with the same query makes it.`,
  );

/** Where a diff's evidence is stored (write-once, through the artifact store like every artifact). */
const evidenceObjectName = (captureId: string, baseId: string, options: DiffOptions, ext: 'json' | 'pdf' = 'json') =>
  `diffs/${captureId}/${baseId}/${createHash('sha256').update(canonicalJson(options)).digest('hex').slice(0, 32)}.${ext}`;

/** A diff that reached a bound, as the API answers it: 422, the detail naming the bound. */
export const bounded = (err: DiffBoundError) =>
  refusal(422, `The diff reached a bound (${err.bound}): ${err.message}.`, { body: { bound: err.bound } });

/** What the diff functions share: the services, the store, the signer, the queue and the worker threads. */
interface DiffsState {
  ctx: ServiceContext;
  artifacts: ArtifactStore;
  notary: Notary | null;
  retainUntil: (captureId: string) => Promise<Date | null>;
  slot: ReturnType<typeof createConcurrencyLimit>;
  threads: ReturnType<typeof createDiffThreads>;
}

/** `notary`: the signer role's (null with SIGNING_KEY=none): what attests a diff's evidence. */
export function createCaptureDiffs(
  ctx: ServiceContext,
  artifacts: ArtifactStore,
  notary: Notary | null = null,
  /** The date the newer capture's evidence is retained until (retention.ts evidenceRetention): diffs are locked alike. */
  retainUntil: (captureId: string) => Promise<Date | null> = async () => null,
) {
  const state: DiffsState = {
    ctx,
    artifacts,
    notary,
    retainUntil,
    slot: createConcurrencyLimit(DIFFS_AT_ONCE),
    threads: createDiffThreads(ctx.config.DIFF_TIME_LIMIT_MS),
  };
  return {
    /**
     * The diff of two rows already checked (the watch calls this with a schedule's runs), in a worker thread; a
     * bound reached is a DiffBoundError.
     */
    diffRows: (base: CaptureRow, row: CaptureRow, options: DiffOptions): Promise<CaptureDiff> =>
      diffRows(state, base, row, options),
    /** Ends the idle diff threads. */
    close: () => state.threads.close(),
    /** The JSON diff with the URLs of itself and its image. */
    diff: (caller: Caller, captureId: string, query: DiffQuery) => diffWithLinks(state, caller, captureId, query),
    /** See diffEvidence. */
    evidence: (caller: Caller, captureId: string, query: DiffQuery, make = true): Promise<Uint8Array> =>
      diffEvidence(state, caller, captureId, query, make),
    /** See changeCertificate. */
    certificate: (caller: Caller, captureId: string, query: DiffQuery, make = true): Promise<Uint8Array> =>
      changeCertificate(state, caller, captureId, query, make),
    /** The diff image; 404 naming the capture without a screenshot. */
    image: (caller: Caller, captureId: string, query: DiffQuery): Promise<Uint8Array> =>
      diffImage(state, caller, captureId, query),
  };
}

async function lockedLike(state: DiffsState, captureId: string) {
  const until = await state.retainUntil(captureId);
  return until ? { retainUntil: until } : {};
}

async function artifactOf(
  state: DiffsState,
  row: CaptureRow,
  name: keyof typeof ARTIFACTS,
): Promise<Uint8Array | null> {
  const ref = row.artifacts?.[ARTIFACTS[name].refKey];
  return ref ? readRecordedArtifact(state.artifacts, ref, { captureId: row.capture_id, artifact: name }) : null;
}

/** A complete capture of the tenant, or the 404 naming `field` (another tenant's reads as unknown). */
async function completeCapture(state: DiffsState, tenantId: string, id: string, field: string): Promise<CaptureRow> {
  const row = isId('cap', id) ? await findCapture(state.ctx.pool, id) : null;
  const named = field === 'captureId' ? `Capture ${id}` : `${field}: capture ${id}`;
  if (!row || row.tenant_id !== tenantId) throw refusal(404, `${named} is unknown.`);
  if (row.status !== 'complete')
    throw refusal(404, `${named} is ${row.status}; only complete captures can be compared.`);
  return row;
}

/** What the diff reads of a capture: its stored HTML, headers, screenshot and bundle. */
async function sideOf(state: DiffsState, row: CaptureRow): Promise<CaptureSide> {
  const html = await artifactOf(state, row, 'html');
  const headers = await artifactOf(state, row, 'headers');
  return {
    captureId: row.capture_id,
    url: row.url,
    finalUrl: row.final_url,
    completedAt: row.completed_at!.toISOString(),
    bundleHash: row.bundle?.bundleHash ?? null,
    html: html ? Buffer.from(html).toString('utf8') : null,
    headers: headers ? (JSON.parse(Buffer.from(headers).toString('utf8')) as HeaderMap) : null,
    screenshot: await artifactOf(state, row, 'screenshot'),
    wacz: await artifactOf(state, row, 'wacz'),
    elementBoxes: elementBoxesOf(row),
    textBoxes: textBoxesOf(row),
  };
}

/** The two rows and the options, or the 400/404 naming the field. */
async function resolve(state: DiffsState, tenantId: string, captureId: string, query: DiffQuery) {
  if (typeof query.base !== 'string' || query.base === '')
    throw refusal(400, 'base: the query parameter base (the capture to compare with) is required.');
  if (query.base === captureId) throw refusal(400, `base: a capture cannot be compared with itself (${captureId}).`);
  const parsed = parseDiffOptions(query);
  if (!parsed.ok) throw refusal(400, parsed.detail);
  const row = await completeCapture(state, tenantId, captureId, 'captureId');
  const base = await completeCapture(state, tenantId, query.base, 'base');
  return { row, base, options: parsed.options };
}

async function diffRows(state: DiffsState, base: CaptureRow, row: CaptureRow, options: DiffOptions) {
  return state.slot(async () =>
    state.threads.run({ kind: 'diff', base: await sideOf(state, base), next: await sideOf(state, row), options }),
  );
}

/** diffRows for a route: a bound reached is the 422 naming it. */
async function diffForRoute(state: DiffsState, base: CaptureRow, row: CaptureRow, options: DiffOptions) {
  try {
    return await diffRows(state, base, row, options);
  } catch (err) {
    throw err instanceof DiffBoundError ? bounded(err) : err;
  }
}

/** The JSON diff with the URLs of itself and its image. */
async function diffWithLinks(state: DiffsState, caller: Caller, captureId: string, query: DiffQuery) {
  const { row, base, options } = await resolve(state, caller.principal.tenantId, captureId, query);
  const diff = await diffForRoute(state, base, row, options);
  const origin = state.ctx.config.PUBLIC_BASE_URL;
  return {
    ...diff,
    links: {
      self: `${origin}${diffPath(captureId, base.capture_id)}`,
      image: diff.screenshot ? `${origin}${diffPath(captureId, base.capture_id, true)}` : null,
    },
  };
}

/**
 * The two captures of a signed diff, each with its signed bundle, and the notary that signs: 404 naming what is
 * missing (`unsigned` says what a deployment that signs nothing cannot do).
 */
async function signedPair(state: DiffsState, caller: Caller, captureId: string, query: DiffQuery, unsigned: string) {
  const { row, base, options } = await resolve(state, caller.principal.tenantId, captureId, query);
  if (!base.bundle) throw refusal(404, `base: capture ${base.capture_id} has no signed bundle to name.`);
  if (!row.bundle) throw refusal(404, `Capture ${captureId} has no signed bundle to name.`);
  if (!state.notary) throw refusal(404, `This deployment signs nothing (SIGNING_KEY=none): ${unsigned}.`);
  return { row: { ...row, bundle: row.bundle }, base, options, notary: state.notary };
}

/**
 * The diff as evidence (docs/watch.md): its record attested (Ed25519) and time-stamped (RFC 3161) by the signer
 * role, made once per pair of captures and options and then served as stored. 404 when a capture has no signed
 * bundle or the deployment signs nothing; 503 with Retry-After when no signer answered. `make` false (a GET):
 * only the stored evidence, 404 until it was made — reading never signs or logs anything.
 */
async function diffEvidence(
  state: DiffsState,
  caller: Caller,
  captureId: string,
  query: DiffQuery,
  make: boolean,
): Promise<Uint8Array> {
  const { ctx, artifacts } = state;
  const { row, base, options, notary } = await signedPair(state, caller, captureId, query, 'a diff cannot be attested');
  const name = evidenceObjectName(captureId, base.capture_id, options);
  const stored = await artifacts.get(name);
  if (stored) return stored;
  if (!make) throw notMadeYet('evidence', captureId);
  const { record, recordHash } = diffRecord(await diffForRoute(state, base, row, options));
  const attested = await notary
    .certify({ captureId, bundleHash: row.bundle.bundleHash, certificateHash: recordHash })
    .catch((err: unknown) => {
      caller.log.error({ err, captureId }, 'diff evidence could not be attested');
      throw unavailable('The diff could not be signed now (no signer answered); retry shortly.', 10);
    });
  const evidence: DiffEvidence = {
    format: DIFF_FORMAT,
    record,
    recordHash,
    signature: attested.signature,
    timestamp: attested.timestamp,
  };
  const bytes = new TextEncoder().encode(`${JSON.stringify(evidence, null, 2)}\n`);
  try {
    await artifacts.put(name, bytes, await lockedLike(state, captureId));
  } catch (err) {
    // Another request made it first (its own signature and time): that one is the evidence, and logged it.
    if (err instanceof ArtifactConflictError) return (await artifacts.get(name)) ?? bytes;
    throw err;
  }
  // Into the public log like a bundle (src/transparency/leaf.ts, kind 'diff'), through the tenant's ledger.
  await ctx.tenants.execute(
    caller.principal.tenantId,
    {
      type: 'RecordDiffAttestation',
      data: {
        captureId,
        baseCaptureId: base.capture_id,
        recordHash,
        keyId: attested.signature.keyId,
        genTime: attested.timestamp?.genTime ?? null,
      },
    },
    causedBy(caller),
  );
  return bytes;
}

/**
 * The certificate of a change (docs/watch.md): a PDF saying how the page changed between the two captures,
 * attested by the signer role exactly like a capture certificate (its envelope names the newer capture and
 * bundle) and signed with the same standard PDF signature, so `capture-ledger verify` and POST
 * /v1/verify/certificate check it and show only what is signed. Made once, then served as stored; `make` false
 * (a GET): only the stored one, 404 until it was made.
 */
async function changeCertificate(
  state: DiffsState,
  caller: Caller,
  captureId: string,
  query: DiffQuery,
  make: boolean,
): Promise<Uint8Array> {
  const { ctx, artifacts } = state;
  const { row, base, options, notary } = await signedPair(
    state,
    caller,
    captureId,
    query,
    'a change cannot be certified',
  );
  const name = evidenceObjectName(captureId, base.capture_id, options, 'pdf');
  const stored = await artifacts.get(name);
  if (stored) return stored;
  if (!make) throw notMadeYet('certificate', captureId);
  const diff = await diffForRoute(state, base, row, options);
  const issued = new Date(Math.floor(ctx.clock.now().getTime() / 1000) * 1000);
  const unsigned = (err: unknown): never => {
    caller.log.error({ err, captureId }, 'change certificate could not be attested');
    throw unavailable('The certificate could not be signed now (no signer answered); retry shortly.', 10);
  };
  const pdfSigningKey = (await notary.describe().catch(unsigned))?.pdfSigning?.fingerprint ?? null;
  const document = await renderChangeCertificatePdf({
    diff,
    recordHash: diffRecord(diff).recordHash,
    issuer: `Capture Ledger at ${ctx.config.PUBLIC_BASE_URL}`,
    issuedAt: issued.toISOString(),
    pdfSigningKey,
  });
  const certificateHash = await sha256Prefixed(document);
  const attested = await notary
    .certify({ captureId, bundleHash: row.bundle.bundleHash, certificateHash })
    .catch(unsigned);
  const envelope: CertificateEnvelope = {
    format: CERTIFICATE_FORMAT,
    captureId,
    bundleHash: row.bundle.bundleHash,
    url: diff.capture.url,
    certificateHash,
    bytes: document.length,
    signature: attested.signature,
    timestamp: attested.timestamp,
  };
  const attached = attachCertificateEnvelope(document, new TextEncoder().encode(JSON.stringify(envelope)));
  const pdf = pdfSigningKey ? await pdfSigned(attached, captureId, issued, notary).catch(unsigned) : attached;
  try {
    await artifacts.put(name, pdf, await lockedLike(state, captureId));
  } catch (err) {
    if (err instanceof ArtifactConflictError) return (await artifacts.get(name)) ?? pdf;
    throw err;
  }
  return pdf;
}

/** The diff image; 404 naming the capture without a screenshot. */
async function diffImage(state: DiffsState, caller: Caller, captureId: string, query: DiffQuery): Promise<Uint8Array> {
  const { row, base, options } = await resolve(state, caller.principal.tenantId, captureId, query);
  const { ignoreBoxes } = pixelMasks(
    { elementBoxes: elementBoxesOf(base), textBoxes: textBoxesOf(base) },
    { elementBoxes: elementBoxesOf(row), textBoxes: textBoxesOf(row) },
    options.ignoreSelectors,
    options.ignoreText,
  );
  return state.slot(async () => {
    const before = await artifactOf(state, base, 'screenshot');
    const after = await artifactOf(state, row, 'screenshot');
    if (!before) throw refusal(404, `base: capture ${base.capture_id} has no screenshot.`);
    if (!after) throw refusal(404, `Capture ${captureId} has no screenshot.`);
    try {
      return await state.threads.run({ kind: 'image', before, after, ignoreBoxes });
    } catch (err) {
      throw err instanceof DiffBoundError ? bounded(err) : err;
    }
  });
}

/** The boxes the capture recorded for its recordBoxes (captureSettings.elementBoxes, src/capture/element-boxes.ts). */
function elementBoxesOf(row: CaptureRow): CaptureSide['elementBoxes'] {
  const recorded = row.capture_settings?.['elementBoxes'] as { boxes?: Record<string, Box[]> } | null | undefined;
  return recorded?.boxes ?? null;
}

/** The boxes the capture recorded for its recordTextBoxes (captureSettings.elementBoxes.textBoxes). */
function textBoxesOf(row: CaptureRow): CaptureSide['textBoxes'] {
  const recorded = row.capture_settings?.['elementBoxes'] as { textBoxes?: Record<string, Box[]> } | null | undefined;
  return recorded?.textBoxes ?? null;
}
