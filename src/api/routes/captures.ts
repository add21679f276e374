import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SubmittedCapture } from '../../domain/events.js';
import { parseCaptureOptions } from '../../domain/capture-options.js';
import { isId, newId } from '../../domain/ids.js';
import { quotaView, type Admission } from '../../domain/tenant/index.js';
import { type AddressPolicy, checkTargetUrl, urlRejectionStatus } from '../../net/index.js';
import type { ArtifactStore } from '../../capture/artifact-store.js';
import { ARTIFACTS, DOWNLOADABLE_ARTIFACTS, isArtifactName } from '../../capture/artifacts.js';
import { requireJsonBody } from '../app.js';
import type { ApiContext } from '../context.js';
import { type CaptureRow, captureViews } from '../../../projections/read-models/capture-view.js';
import { findCapture, listCaptures } from '../../../projections/read-models/captures.js';
import { provenancePage } from '../../archive/provenance-page.js';
import { parseByteRange } from '../byte-range.js';
import { parseProvenance, provenanceSignature } from '../provenance-view.js';
import { HttpProblem, problem } from '../problem.js';
import type { Cors } from '../cors.js';
import { captureOptionsSchema } from '../capture-options-schema.js';
import { type TenantGuard, tenantRateLimited } from '../tenant-auth.js';

/** Captures (spec 4.2–4.8): submit, batch, list, status, record, artifacts. */

export interface CaptureRouteDeps {
  ctx: ApiContext;
  guard: TenantGuard;
  policy: AddressPolicy;
  artifacts: ArtifactStore;
  /** Jobs waiting beyond this bound → 503 with Retry-After (issue 3 §8). */
  backlog: () => Promise<number>;
  cors: Cors;
}

const NOTE = 'Capture accepted. Poll statusUrl (or subscribe a webhook) until status is complete or failed.';

const submitBody = z.object(
  { url: z.unknown().optional(), options: captureOptionsSchema },
  { error: 'must be a JSON object with a url field' },
);
const batchBody = z.object(
  {
    urls: z
      .array(z.unknown(), { error: 'must be a non-empty array of objects with a url field' })
      .min(1, 'must be a non-empty array of objects with a url field')
      .describe('Items {url, options?}; options as on POST /v1/captures. Each item is checked on its own (207): a bad option gives that item a 400 naming urls[i].options.<field>.'),
  },
  { error: 'must be a JSON object with a urls array' },
);

const setQuotaHeaders = (reply: FastifyReply, a: Admission) =>
  reply.header('X-Quota-Limit', String(a.limit)).header('X-Quota-Used', String(a.used)).header('X-Quota-Remaining', String(a.remaining));

const causedBy = (req: FastifyRequest) => ({
  correlationId: req.id,
  causedBy: req.principal!.keyHash ? { kind: 'key' as const, keyHash: req.principal!.keyHash } : { kind: 'legacy-key' as const },
});

export function captureRoutes(deps: CaptureRouteDeps) {
  const { ctx, guard, policy } = deps;
  const views = captureViews(ctx.config.PUBLIC_BASE_URL);

  async function ensureCapacity(): Promise<void> {
    const waiting = await deps.backlog();
    if (waiting >= ctx.config.CAPTURE_BACKLOG_MAX) {
      throw new HttpProblem(503, `The service is at capacity (${waiting} captures waiting); retry later.`, 'Service Unavailable', {}, { 'Retry-After': '30' });
    }
  }

  async function admit(req: FastifyRequest, captures: SubmittedCapture[], source: 'single' | 'batch'): Promise<Admission> {
    const result = await ctx.tenants.execute(req.principal!.tenantId, { type: 'SubmitCaptures', data: { captures, source } }, causedBy(req));
    // Status and list must see the capture as soon as we answer (issue 3 §1).
    await ctx.waiter.waitFor(result.appended.at(-1)!.seq);
    return result.reply;
  }

  async function loadCapture(id: string): Promise<CaptureRow | null> {
    if (!isId('cap', id)) return null;
    return findCapture(ctx.pool, id);
  }

  const unknownCapture = (id: string) => new HttpProblem(404, `No capture ${id}.`, 'Not Found');

  return async (app: FastifyInstance) => {
    app.options('/v1/captures', { schema: { hide: true } }, async (req, reply) => {
      deps.cors.preflight(req, reply);
      return reply.code(204).send();
    });

    app.post(
      '/v1/captures',
      {
        onRequest: [async (req, reply) => deps.cors.actual(req, reply), guard.require('capture')],
        preValidation: requireJsonBody,
        schema: { tags: ['captures'], summary: 'Submit a capture', body: submitBody, security: [{ bearer: [] }] },
      },
      async (req, reply) => {
        const { url, options: rawOptions } = req.body as { url: unknown; options?: unknown };
        const checked = await checkTargetUrl(url, { policy, onRefusedAddress: (why) => req.log.info({ why }, 'target refused') });
        if (!checked.ok) throw new HttpProblem(urlRejectionStatus(checked.reason), checked.detail);
        const options = parseCaptureOptions(rawOptions);
        if (!options.ok) throw new HttpProblem(400, options.detail, 'Bad Request');
        await ensureCapacity();
        const id = newId('cap');
        const admission = await admit(req, [{ captureId: id, url: checked.url, ...(options.options ? { options: options.options } : {}) }], 'single');
        setQuotaHeaders(reply, admission);
        return reply.code(202).send({ id, statusUrl: views.statusUrl(id), note: NOTE });
      },
    );

    app.post(
      '/v1/captures/batch',
      {
        onRequest: guard.require('capture'),
        preValidation: requireJsonBody,
        schema: { tags: ['captures'], summary: 'Submit a batch of captures', body: batchBody, security: [{ bearer: [] }] },
      },
      async (req, reply) => {
        const { urls } = req.body as { urls: unknown[] };
        const max = ctx.config.BATCH_MAX;
        if (urls.length > max) throw new HttpProblem(400, `The batch has ${urls.length} URLs; the maximum is ${max}.`, 'Bad Request');
        await ensureCapacity();
        const tenantId = req.principal!.tenantId;
        type Item = { url: string; status: number; id?: string; error?: ReturnType<typeof problem> };
        const items: Item[] = [];
        const accepted: Array<{ index: number; capture: SubmittedCapture }> = [];
        // The request itself took one tenant token; each further URL takes one more (spec 8.1) — before it is
        // checked, so a refused URL costs as much as an accepted one and a batch is no cheap way to probe names.
        let tokensOwed = -1;
        for (const [index, raw] of urls.entries()) {
          const rawUrl = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as { url?: unknown }).url : undefined;
          const shown = typeof rawUrl === 'string' ? rawUrl : '';
          if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
            items.push({ url: shown, status: 400, error: problem(400, `urls[${index}] must be an object with a url field.`) });
            continue;
          }
          tokensOwed++;
          if (tokensOwed > 0) {
            const d = await guard.takeTenantTokens(tenantId, 1);
            if (!d.allowed) {
              items.push({ url: shown, status: 429, error: tenantRateLimited(d.retryAfterSec).body() });
              continue;
            }
          }
          const checked = await checkTargetUrl(rawUrl, { policy, onRefusedAddress: (why) => req.log.info({ why }, 'target refused') });
          if (!checked.ok) {
            const status = urlRejectionStatus(checked.reason, { batchItem: true });
            items.push({ url: shown, status, error: problem(status, `urls[${index}].url: ${checked.detail}`) });
            continue;
          }
          const options = parseCaptureOptions((raw as { options?: unknown }).options, `urls[${index}].options`);
          if (!options.ok) {
            items.push({ url: checked.url, status: 400, error: problem(400, options.detail) });
            continue;
          }
          const capture: SubmittedCapture = { captureId: newId('cap'), url: checked.url, ...(options.options ? { options: options.options } : {}) };
          accepted.push({ index: items.length, capture });
          items.push({ url: checked.url, status: 202, id: capture.captureId });
        }
        let admission: Admission | null = null;
        if (accepted.length > 0) {
          // spec 8.2: a batch over the remaining quota is refused whole (the actor's 429 propagates).
          admission = await admit(req, accepted.map((a) => a.capture), 'batch');
        } else {
          const v = quotaView(await ctx.tenants.read(tenantId), ctx.clock.now());
          admission = { limit: v.capturesLimit, used: v.capturesUsed, remaining: Math.max(0, v.capturesLimit - v.capturesUsed) };
        }
        setQuotaHeaders(reply, admission);
        const body = items.map((it) =>
          it.status === 202 ? { status: 202, url: it.url, id: it.id!, statusUrl: views.statusUrl(it.id!) } : { status: it.status, url: it.url, error: it.error! },
        );
        return reply.code(207).send({
          items: body,
          summary: { total: items.length, accepted: accepted.length, failed: items.length - accepted.length },
        });
      },
    );

    app.get(
      '/v1/captures',
      { onRequest: guard.require('read'), schema: { tags: ['captures'], summary: 'List captures', security: [{ bearer: [] }] } },
      async (req) => {
        const q = parseListQuery(req.query as Record<string, unknown>);
        const { rows, total: n } = await listCaptures(ctx.pool, req.principal!.tenantId, q).catch((err) => {
          req.log.error({ err }, 'listing captures failed');
          throw new HttpProblem(500, 'Database read failed while listing captures; retry shortly.', 'Internal Server Error');
        });
        return {
          data: rows.map((r) => views.summary(r)),
          pagination: { total: n, offset: q.offset, hasMore: q.offset + rows.length < n, limit: q.limit },
        };
      },
    );

    app.get('/v1/captures/:captureId/status', { onRequest: guard.perIp(), schema: { tags: ['captures'], summary: 'Poll a capture' } }, async (req) => {
      const { captureId } = req.params as { captureId: string };
      const row = await loadCapture(captureId);
      if (!row) throw unknownCapture(captureId);
      return views.status(row);
    });

    app.get('/v1/captures/:captureId', { onRequest: guard.perIp(), schema: { tags: ['captures'], summary: 'Retrieve a completed capture' } }, async (req) => {
      const { captureId } = req.params as { captureId: string };
      const row = await loadCapture(captureId);
      if (!row) throw unknownCapture(captureId);
      if (row.status !== 'complete') {
        throw new HttpProblem(404, `Capture ${captureId} is ${row.status}; the record exists only once it is complete (poll its status).`, 'Not Found');
      }
      return views.record(row);
    });

    app.get(
      '/v1/captures/:captureId/artifacts/:name',
      { onRequest: guard.perIp(), schema: { tags: ['captures'], summary: 'Download an artifact' } },
      async (req, reply) => {
        const { captureId, name } = req.params as { captureId: string; name: string };
        const download = isArtifactName(name) ? ARTIFACTS[name].download : null;
        if (!download) throw new HttpProblem(404, `Unknown artifact '${name}'; use ${DOWNLOADABLE_ARTIFACTS.slice(0, -1).join(', ')} or ${DOWNLOADABLE_ARTIFACTS.at(-1)}.`, 'Not Found');
        const row = await loadCapture(captureId);
        if (!row) throw unknownCapture(captureId);
        const refs = (row.artifacts ?? {}) as Record<string, string | undefined>;
        const objectName = row.status === 'complete' ? refs[ARTIFACTS[name as keyof typeof ARTIFACTS].refKey] : undefined;
        const bytes = objectName ? await deps.artifacts.get(objectName) : null;
        if (!bytes) throw new HttpProblem(404, `Capture ${captureId} has no ${name} artifact.`, 'Not Found');
        // Artifacts are readable by anyone holding the capture id, so any origin may read them too (no
        // credentials): ReplayWeb.page and other WACZ tools open a bundle by URL with Range requests.
        reply
          .header('Access-Control-Allow-Origin', '*')
          .header('Access-Control-Expose-Headers', 'Content-Length, Content-Range, Accept-Ranges, Content-Disposition')
          .header('Accept-Ranges', 'bytes')
          .header('Content-Type', download.type)
          .header('Content-Disposition', `attachment; filename="${captureId}-${download.name}"`)
          .header('Cache-Control', 'private, max-age=3600');
        const body = Buffer.from(bytes);
        const range = parseByteRange(req.headers.range, body.byteLength);
        if (range.kind === 'unsatisfiable') {
          return reply.code(416).header('Content-Range', `bytes */${body.byteLength}`).send();
        }
        if (range.kind === 'partial') {
          return reply
            .code(206)
            .header('Content-Range', `bytes ${range.start}-${range.end}/${body.byteLength}`)
            .send(body.subarray(range.start, range.end + 1));
        }
        return reply.send(body);
      },
    );

    app.get(
      '/v1/captures/:captureId/provenance',
      {
        onRequest: guard.perIp(),
        schema: {
          tags: ['captures'],
          summary: 'Provenance record of a capture (JSON; HTML with Accept: text/html)',
          description:
            'Requested and final URL with the redirect chain, every connection the egress proxy made (host, connected address, TLS protocol and certificate chain as seen at connect time), browser, viewport, capture settings, times, artifact hashes, signing key; `signature` (bundle hash, signedAt, timestamp) from the bundle. The same record is provenance/provenance.json in the signed WACZ.',
        },
      },
      async (req, reply) => {
        const { captureId } = req.params as { captureId: string };
        const row = await loadCapture(captureId);
        if (!row) throw unknownCapture(captureId);
        const ref = row.status === 'complete' ? row.artifacts?.provenance : undefined;
        const bytes = ref ? await deps.artifacts.get(ref) : null;
        if (!bytes) throw new HttpProblem(404, `Capture ${captureId} has no provenance record (not complete, or completed before records were kept).`, 'Not Found');
        const record = parseProvenance(bytes);
        const wacz = row.artifacts?.wacz ? await deps.artifacts.get(row.artifacts.wacz) : null;
        const signature = wacz ? provenanceSignature(wacz) : null;
        const accept = String(req.headers.accept ?? '');
        if (/text\/html/i.test(accept) && !/application\/json/i.test(accept.split(',')[0] ?? '')) {
          return reply
            .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'")
            .type('text/html; charset=utf-8')
            .send(provenancePage(record, signature ?? undefined));
        }
        return { ...record, ...(signature ? { signature } : {}) };
      },
    );

    // Preflight of a cross-origin artifact read (a Range header that is not CORS-safelisted).
    app.options('/v1/captures/:captureId/artifacts/:name', { schema: { hide: true } }, async (_req, reply) =>
      reply
        .code(204)
        .header('Access-Control-Allow-Origin', '*')
        .header('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS')
        .header('Access-Control-Allow-Headers', 'Range')
        .header('Access-Control-Max-Age', '600')
        .send(),
    );
  };
}

interface ListQuery {
  limit: number;
  offset: number;
  status?: string;
  url?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  sort: 'created_at' | '-created_at';
  scheduleId?: string;
}

const bad = (detail: string) => new HttpProblem(400, detail, 'Bad Request');

/** spec 4.2 list parameters, with a 400 naming the parameter for every violation. */
export function parseListQuery(q: Record<string, unknown>): ListQuery {
  const one = (name: string): string | undefined => {
    const v = q[name];
    if (v === undefined) return undefined;
    if (Array.isArray(v)) throw bad(`${name} may be given once.`);
    return String(v);
  };
  const int = (name: string, def: number, min: number): number => {
    const v = one(name);
    if (v === undefined || v === '') return def;
    if (!/^-?\d+$/.test(v.trim())) throw bad(`${name} must be an integer, got '${v}'.`);
    const n = Number(v);
    if (n < min) throw bad(`${name} must be at least ${min}, got ${n}.`);
    return n;
  };
  const date = (name: string): Date | undefined => {
    const v = one(name);
    if (v === undefined || v === '') return undefined;
    const d = new Date(v);
    if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) || Number.isNaN(d.getTime())) {
      throw bad(`${name} must be an ISO 8601 date-time such as 2026-01-31T00:00:00Z, got '${v}'.`);
    }
    return d;
  };
  const limit = Math.min(100, int('limit', 20, 1));
  const offset = int('offset', 0, 0);
  const status = one('status');
  if (status !== undefined && !['pending', 'complete', 'failed'].includes(status)) throw bad(`status must be pending, complete or failed, got '${status}'.`);
  const url = one('url');
  if (url !== undefined) {
    if (url.length < 4) throw bad('url must be at least 4 characters (it is a prefix match).');
    if (/[%_]/.test(url)) throw bad("url must not contain '%' or '_'.");
  }
  const createdAfter = date('created_after');
  const createdBefore = date('created_before');
  if (createdAfter && createdBefore && createdBefore <= createdAfter) throw bad('created_before must be after created_after.');
  const sort = one('sort') ?? '-created_at';
  if (sort !== 'created_at' && sort !== '-created_at') throw bad(`sort must be created_at or -created_at, got '${sort}'.`);
  const scheduleId = one('schedule_id');
  return { limit, offset, status, url, createdAfter, createdBefore, sort, scheduleId: scheduleId || undefined };
}
