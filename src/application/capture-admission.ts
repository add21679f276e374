import type { SubmittedCapture } from '../domain/events.js';
import { type CaptureOptions, parseCaptureOptions } from '../domain/capture-options.js';
import { newId } from '../domain/ids.js';
import { admissionOf, quotaView, type Admission } from '../domain/tenant/index.js';
import { type AddressPolicy, checkTargetUrl, urlRejectionStatus } from '../net/index.js';
import type { ServiceContext } from './service-context.js';
import { refusal, tenantRateLimited, unavailable } from '../domain/errors.js';
import { problem, type ProblemBody } from '../domain/problem-body.js';
import { captureViews } from '../../projections/read-models/capture-view.js';
import { type Caller, causedBy } from './caller.js';
import { requireKnownVantage, unknownVantageDetail } from '../vantages/known-vantages.js';
import { type Corroborations, planCorroboration } from '../vantages/corroboration-service.js';
import { unknownProfile } from '../domain/tenant/tenant-decider.js';

/**
 * Admission of captures (spec 4.3, 4.5, 8.1, 8.2): URL and options checks, capacity, batch rate tokens and the
 * tenant actor's quota decision. REST routes and MCP tools call this, and only translate the answer.
 */

export interface CaptureAdmissionDeps {
  ctx: ServiceContext;
  policy: AddressPolicy;
  /** Jobs waiting beyond this bound → 503 with Retry-After (docs/capture.md, Capacity). */
  backlog: () => Promise<number>;
  /** The tenant's rate limit (spec 8.1): each URL of a batch after the first takes one more token. */
  takeTenantTokens(tenantId: string, tokens: number): Promise<{ allowed: boolean; retryAfterSec: number }>;
  /** Where corroborated sets are registered; absent: `options.corroborate` is refused. */
  corroborations?: Corroborations;
}

export const ACCEPTED_NOTE =
  'Capture accepted. Poll statusUrl (or subscribe a webhook) until status is complete or failed.';

export interface AcceptedCapture {
  id: string;
  statusUrl: string;
  note: string;
  /** The monthly quota after this submission: X-Quota-* on REST (spec 8.2). */
  admission: Admission;
  /** With `options.corroborate`: the set; `id` is its first member. */
  corroboration?: { id: string; url: string; members: Array<{ id: string; vantage: string; statusUrl: string }> };
}

export type BatchItem =
  | { status: 202; url: string; id: string; statusUrl: string }
  | { status: number; url: string; error: ProblemBody };

export interface BatchOutcome {
  items: BatchItem[];
  summary: { total: number; accepted: number; failed: number };
  admission: Admission;
}

export type CaptureAdmission = ReturnType<typeof createCaptureAdmission>;

/** What admission works with: the deps and the capture views its answers link to. */
interface Admissions {
  deps: CaptureAdmissionDeps;
  ctx: ServiceContext;
  policy: AddressPolicy;
  views: ReturnType<typeof captureViews>;
}

export function createCaptureAdmission(deps: CaptureAdmissionDeps) {
  const a: Admissions = {
    deps,
    ctx: deps.ctx,
    policy: deps.policy,
    views: captureViews(deps.ctx.config.PUBLIC_BASE_URL),
  };
  return {
    /** One capture (spec 4.3): 400/422 for the URL or options, 503 at capacity, the actor's 429 for the quota. */
    submit: (caller: Caller, body: { url?: unknown; options?: unknown }): Promise<AcceptedCapture> =>
      submitOne(a, caller, body),
    /**
     * A batch (spec 4.5): one answer per URL in input order. The request itself already took one tenant token;
     * each further URL takes one more (spec 8.1).
     */
    submitBatch: (caller: Caller, urls: unknown[]): Promise<BatchOutcome> => submitBatch(a, caller, urls),
  };
}

async function ensureCapacity(a: Admissions): Promise<void> {
  const waiting = await a.deps.backlog();
  if (waiting >= a.ctx.config.CAPTURE_BACKLOG_MAX) {
    throw unavailable(`The service is at capacity (${waiting} captures waiting); retry later.`, 30);
  }
}

async function admit(
  a: Admissions,
  caller: Caller,
  captures: SubmittedCapture[],
  source: 'single' | 'batch',
): Promise<Admission> {
  const result = await a.ctx.tenants.execute(
    caller.principal.tenantId,
    { type: 'SubmitCaptures', data: { captures, source } },
    causedBy(caller),
  );
  // Status and list must see the capture as soon as we answer (docs/architecture.md, Projections and read models).
  await a.ctx.waiter.waitFor(result.appended.at(-1)!.seq);
  return result.reply;
}

const refusedTarget = (caller: Caller) => (why: unknown) => caller.log.info({ why }, 'target refused');

async function submitOne(
  a: Admissions,
  caller: Caller,
  body: { url?: unknown; options?: unknown },
): Promise<AcceptedCapture> {
  const checked = await checkTargetUrl(body.url, { policy: a.policy, onRefusedAddress: refusedTarget(caller) });
  if (!checked.ok) throw refusal(urlRejectionStatus(checked.reason), checked.detail);
  const options = parseCaptureOptions(body.options);
  if (!options.ok) throw refusal(400, options.detail);
  requireKnownVantage(options.options, a.ctx.config.VANTAGES);
  if (options.options?.corroborate) return submitCorroborated(a, caller, checked.url, options.options);
  await ensureCapacity(a);
  const id = newId('cap');
  const admission = await admit(
    a,
    caller,
    [{ captureId: id, url: checked.url, ...(options.options ? { options: options.options } : {}) }],
    'single',
  );
  return { id, statusUrl: a.views.statusUrl(id), note: ACCEPTED_NOTE, admission };
}

/**
 * One capture per vantage, admitted together: each is a capture of the quota (refused whole when
 * they do not all fit, as a batch is), each renders on its own job.
 */
async function submitCorroborated(
  a: Admissions,
  caller: Caller,
  url: string,
  options: CaptureOptions,
): Promise<AcceptedCapture> {
  const { ctx, views } = a;
  const corroborations = a.deps.corroborations;
  if (!corroborations) throw refusal(422, 'options.corroborate needs signed bundles; this service makes none.');
  const plan = planCorroboration(options, ctx.config.VANTAGES);
  if ('detail' in plan) throw refusal(422, plan.detail);
  await ensureCapacity(a);
  const { corroborate: _n, ...memberOptions } = options;
  const members = plan.vantages.map((v) => ({
    captureId: newId('cap'),
    vantage: { id: v.id, label: v.label, region: v.region },
  }));
  const set = {
    id: newId('cor'),
    url,
    createdAt: ctx.clock.now().toISOString(),
    tenantId: caller.principal.tenantId,
    members,
  };
  await corroborations.register(set);
  const admission = await admit(
    a,
    caller,
    members.map((m) => ({
      captureId: m.captureId,
      url,
      options: { ...memberOptions, vantage: m.vantage.id },
      corroborationId: set.id,
    })),
    'batch',
  );
  const first = members[0]!.captureId;
  return {
    id: first,
    statusUrl: views.statusUrl(first),
    note: ACCEPTED_NOTE,
    admission,
    corroboration: {
      id: set.id,
      url: corroborations.urlOf(first),
      members: members.map((m) => ({
        id: m.captureId,
        vantage: m.vantage.id,
        statusUrl: views.statusUrl(m.captureId),
      })),
    },
  };
}

/** One URL of a batch as checked: refused with its problem, or a capture to admit. */
type BatchEntry = { url: string; status: number; error: ProblemBody } | { url: string; capture: SubmittedCapture };

async function submitBatch(a: Admissions, caller: Caller, urls: unknown[]): Promise<BatchOutcome> {
  const max = a.ctx.config.BATCH_MAX;
  if (urls.length > max) throw refusal(400, `The batch has ${urls.length} URLs; the maximum is ${max}.`);
  await ensureCapacity(a);
  const tenantId = caller.principal.tenantId;
  const entries: BatchEntry[] = [];
  // Tokens are taken before a URL is checked, so a refused URL costs as much as an accepted one and a batch is
  // no cheap way to probe names.
  let tokensOwed = -1;
  for (const [index, raw] of urls.entries()) {
    const rawUrl = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as { url?: unknown }).url : undefined;
    const shown = typeof rawUrl === 'string' ? rawUrl : '';
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      entries.push({
        url: shown,
        status: 400,
        error: problem(400, `urls[${index}] must be an object with a url field.`),
      });
      continue;
    }
    tokensOwed++;
    if (tokensOwed > 0) {
      const d = await a.deps.takeTenantTokens(tenantId, 1);
      if (!d.allowed) {
        entries.push({ url: shown, status: 429, error: tenantRateLimited(d.retryAfterSec).body() });
        continue;
      }
    }
    entries.push(await checkBatchItem(a, caller, index, rawUrl, (raw as { options?: unknown }).options));
  }
  const accepted = entries.flatMap((e) => ('capture' in e ? [e.capture] : []));
  // spec 8.2: a batch over the remaining quota is refused whole (the actor's 429 propagates).
  const admission =
    accepted.length > 0
      ? await admit(a, caller, accepted, 'batch')
      : admissionOf(quotaView(await a.ctx.tenants.read(tenantId), a.ctx.clock.now()));
  return {
    items: entries.map((e) =>
      'capture' in e
        ? {
            status: 202 as const,
            url: e.url,
            id: e.capture.captureId,
            statusUrl: a.views.statusUrl(e.capture.captureId),
          }
        : { status: e.status, url: e.url, error: e.error },
    ),
    summary: { total: entries.length, accepted: accepted.length, failed: entries.length - accepted.length },
    admission,
  };
}

/** The URL and options of `urls[index]`, checked as a single capture's are, with problems that name the item. */
async function checkBatchItem(
  a: Admissions,
  caller: Caller,
  index: number,
  rawUrl: unknown,
  rawOptions: unknown,
): Promise<BatchEntry> {
  const checked = await checkTargetUrl(rawUrl, { policy: a.policy, onRefusedAddress: refusedTarget(caller) });
  if (!checked.ok) {
    const status = urlRejectionStatus(checked.reason, { batchItem: true });
    return {
      url: typeof rawUrl === 'string' ? rawUrl : '',
      status,
      error: problem(status, `urls[${index}].url: ${checked.detail}`),
    };
  }
  const options = parseCaptureOptions(rawOptions, `urls[${index}].options`);
  if (!options.ok) return { url: checked.url, status: 400, error: problem(400, options.detail) };
  if (options.options?.corroborate) {
    const detail = `urls[${index}].options.corroborate is for single captures (POST /v1/captures).`;
    return { url: checked.url, status: 422, error: problem(422, detail) };
  }
  const vantageRefused = unknownVantageDetail(options.options, a.ctx.config.VANTAGES, `urls[${index}].options`);
  if (vantageRefused !== undefined) return { url: checked.url, status: 422, error: problem(422, vantageRefused) };
  const profileId = options.options?.profile;
  if (profileId !== undefined && !(await a.ctx.tenants.read(caller.principal.tenantId)).profiles.has(profileId)) {
    const refused = unknownProfile(`urls[${index}].options.profile`, profileId);
    return { url: checked.url, status: 422, error: problem(422, refused.detail) };
  }
  return {
    url: checked.url,
    capture: { captureId: newId('cap'), url: checked.url, ...(options.options ? { options: options.options } : {}) },
  };
}
