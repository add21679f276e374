/**
 * What the console reads from the API, in one place. The spec's shapes are types only (the server's schemas are the
 * truth: src/api/capture-schemas.ts); the answers of the endpoints added beside the spec for the console (daily usage,
 * tenants, capacity, reports, deliveries, cron preview) are checked here too, so a change in one of them is one edit
 * in this file and an answer in another shape is a clear message rather than a blank page.
 */
export class ShapeError extends Error {
  override name = 'ShapeError';
}

export type CaptureStatus = 'pending' | 'complete' | 'failed';

/** spec 2.1 */
export interface CaptureSummary {
  id: string;
  status: CaptureStatus;
  url: string;
  createdAt: string;
  completedAt?: string;
  renderQuality?: 'full' | 'partial';
  failedAt?: string;
  error?: string;
  retryable?: boolean;
  failureReason?: string;
}

/** spec 4.2 */
export interface CaptureList {
  data: CaptureSummary[];
  pagination: { total: number; offset: number; hasMore: boolean; limit: number };
}

/** spec 2.2 */
export interface CaptureStatusRecord {
  id: string;
  status: CaptureStatus;
  captureUrl?: string;
  error?: string;
  retryable?: boolean;
  failureReason?: string;
}

/** spec 2.3 with the extensions the service documents (finalUrl, pdf, session, transparency). */
export interface CaptureRecord {
  id: string;
  status: 'complete';
  url: string;
  finalUrl?: string;
  createdAt: string;
  completedAt: string;
  renderQuality: 'full' | 'partial';
  render?: {
    waitUntilReached: string;
    timedOut: boolean;
    durationMs: number;
    settleMs?: number;
    settleReason?: string;
  };
  artifacts: {
    screenshot: string;
    screenshotBefore?: string;
    html: string;
    headers?: string;
    pdf?: string;
    session?: string;
  };
  wacz?: { url: string; bundleHash: string; size: number };
  verifyUrl?: string;
  captureSettings?: Record<string, unknown>;
  transparency?: { leafIndex: number; checkpoint: string | null };
}

export interface Check {
  name: string;
  status: 'pass' | 'fail' | 'skip';
  detail?: string;
}

/** spec 2.6 with the transparency extension. */
export interface Verification {
  verified: boolean;
  capture: { id: string; createdAt: string; completedAt: string; renderQuality?: string };
  signing: {
    bundleHash: string;
    signature: string;
    publicKey: string;
    keyId?: string;
    signedAt: string;
    timestamp: { genTime: string; tsa: string; selfIssued?: boolean } | null;
  } | null;
  checks: Check[];
  transparency?: { status: 'pass' | 'fail' | 'skip'; detail: string; leafIndex?: number; checkpoint?: string };
}

/** The provenance record (docs/capturing.md, Provenance): the parts the console shows. */
export interface Provenance {
  requestedUrl: string;
  finalUrl: string;
  redirectChain: { url: string; status: number | null; location?: string }[];
  mainDocumentStatus: number;
  browser: { name: string; version: string; userAgent: string };
  viewport: { width: number; height: number; deviceScaleFactor: number };
  connections: {
    host: string;
    port: number;
    address: string;
    via: string;
    connectedAt: string;
    tls?: unknown;
    tlsError?: string;
  }[];
  artifacts: { name: string; mediaType: string; hash: string; bytes: number }[];
  notes: string[];
}

/** spec 2.11 */
export interface AccountUsage {
  tenantId: string;
  period: string;
  tierDisplay: string;
  captures: { used: number; limit: number; remaining: number };
  storageBytes: { used: number; limit: number; remaining: number };
  resetsAt: string;
}

/** spec 2.10 */
export interface Schedule {
  id: string;
  url: string;
  name: string;
  cron: string;
  paused: boolean;
  nextRunAt: string;
  lastRunAt: string | null;
  lastCaptureId: string | null;
  lastCaptureStatus: string | null;
  createdAt: string;
}

/** spec 2.9 */
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  name: string;
  createdAt: string;
  active?: boolean;
  secret?: string;
  warning?: string;
}

/** spec 2.8 */
export interface ApiKeyRecord {
  key?: string;
  keyHash: string;
  tenantId: string;
  scopes: string[];
  name: string;
  createdAt: string;
  createdBy?: string;
  revoked?: boolean;
  revokedAt?: string;
  warning?: string;
}

export interface BatchItem {
  status: number;
  url: string;
  id?: string;
  error?: { detail?: string; status?: number; limitType?: string };
}

// ——— Endpoints added beside the spec for the console: checked, so a shape change is found here. ———

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown, what: string): number => {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ShapeError(`${what} is not a number`);
  return v;
};
const numOrNull = (v: unknown, what: string): number | null => (v === null || v === undefined ? null : num(v, what));
const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string') throw new ShapeError(`${what} is not a string`);
  return v;
};
const arr = (v: unknown, what: string): unknown[] => {
  if (!Array.isArray(v)) throw new ShapeError(`${what} is not a list`);
  return v;
};
const obj = (v: unknown, what: string): Record<string, unknown> => {
  if (!isObj(v)) throw new ShapeError(`${what} is not an object`);
  return v;
};

export interface DailyUsage {
  period: string;
  days: { date: string; captures: number; failed: number; storageBytes: number }[];
}
/** GET /v1/account/usage/daily?period=YYYY-MM */
export function parseDailyUsage(body: unknown): DailyUsage {
  const b = obj(body, 'the daily usage');
  return {
    period: str(b.period, 'period'),
    days: arr(b.days, 'days').map((d, i) => {
      const o = obj(d, `days[${i}]`);
      return {
        date: str(o.date, `days[${i}].date`),
        captures: num(o.captures, `days[${i}].captures`),
        failed: num(o.failed ?? 0, `days[${i}].failed`),
        storageBytes: num(o.storageBytes ?? 0, `days[${i}].storageBytes`),
      };
    }),
  };
}

export interface TenantRow {
  tenantId: string;
  tier: string;
  quotas: { capturesPerMonth: number; storageBytes: number };
  overrides: { capturesPerMonth: number | null; storageBytes: number | null };
  usage: { period: string; captureCount: number; storageBytes: number; apiCallCount: number };
}
/** GET /v1/admin/tenants */
export function parseTenants(body: unknown): TenantRow[] {
  return arr(obj(body, 'the tenant list').data, 'data').map((t, i) => {
    const o = obj(t, `data[${i}]`);
    const q = obj(o.quotas, 'quotas');
    const ov = obj(o.overrides ?? {}, 'overrides');
    const u = obj(o.usage ?? {}, 'usage');
    return {
      tenantId: str(o.tenantId, 'tenantId'),
      tier: str(o.tier, 'tier'),
      quotas: {
        capturesPerMonth: num(q.capturesPerMonth, 'capturesPerMonth'),
        storageBytes: num(q.storageBytes, 'storageBytes'),
      },
      overrides: {
        capturesPerMonth: numOrNull(ov.capturesPerMonth, 'overrides.capturesPerMonth'),
        storageBytes: numOrNull(ov.storageBytes, 'overrides.storageBytes'),
      },
      usage: {
        period: typeof u.period === 'string' ? u.period : '',
        captureCount: num(u.captureCount ?? 0, 'usage.captureCount'),
        storageBytes: num(u.storageBytes ?? 0, 'usage.storageBytes'),
        apiCallCount: num(u.apiCallCount ?? 0, 'usage.apiCallCount'),
      },
    };
  });
}

export interface Capacity {
  jobBacklog: number;
  inFlight: number;
  backlogMax: number;
  /** WORKER_CONCURRENCY of the answering process's worker; null when it runs none. */
  workerConcurrency: number | null;
}
/** GET /v1/admin/capacity */
export function parseCapacity(body: unknown): Capacity {
  const b = obj(body, 'the capacity');
  return {
    jobBacklog: num(b.jobBacklog, 'jobBacklog'),
    inFlight: num(b.inFlight, 'inFlight'),
    backlogMax: num(b.backlogMax, 'backlogMax'),
    workerConcurrency: numOrNull(b.workerConcurrency, 'workerConcurrency'),
  };
}

export const REPORT_NAMES = ['captures-per-day', 'failures-by-reason', 'capture-latency', 'storage-growth'] as const;
export type ReportName = (typeof REPORT_NAMES)[number];
export interface Report {
  name: string;
  /** The window, YYYY-MM-DD (UTC), inclusive. */
  from: string;
  to: string;
  columns: string[];
  rows: (string | number | null)[][];
}
/** GET /v1/admin/reports/{name} */
export function parseReport(body: unknown): Report {
  const b = obj(body, 'the report');
  const columns = arr(b.columns, 'columns').map((c, i) => str(c, `columns[${i}]`));
  const rows = arr(b.rows, 'rows').map((r, i) =>
    arr(r, `rows[${i}]`).map((v) => (typeof v === 'number' || typeof v === 'string' || v === null ? v : String(v))),
  );
  return {
    name: str(b.name, 'name'),
    from: typeof b.from === 'string' ? b.from : '',
    to: typeof b.to === 'string' ? b.to : '',
    columns,
    rows,
  };
}
export const reportCsvPath = (name: ReportName) => `/v1/admin/reports/${name}?format=csv`;

export interface Deliveries {
  data: {
    deliveryId: string;
    eventId: string;
    eventType: string;
    attempt: number;
    outcome: string;
    httpStatus: number | null;
    detail?: string;
    latencyMs: number | null;
    attemptedAt: string;
    nextAttemptAt?: string;
  }[];
  deadLetters: {
    deliveryId: string;
    eventId: string;
    eventType: string;
    attempts: number;
    reason: string;
    deadLetteredAt: string;
  }[];
}
/** GET /v1/webhooks/{id}/deliveries: the shape of the operator's /v1/admin/webhooks/{id}/deliveries. */
export function parseDeliveries(body: unknown): Deliveries {
  const b = obj(body, 'the deliveries');
  return {
    data: arr(b.data, 'data') as Deliveries['data'],
    deadLetters: arr(b.deadLetters ?? [], 'deadLetters') as Deliveries['deadLetters'],
  };
}

export interface CheckRun {
  ranAt: string;
  durationMs: number;
  ok: boolean;
  findings: { kind: string; message: string }[];
  findingCount: number;
  covered: string;
  ranBy: 'cli' | 'api';
}
export interface OperatorCheck {
  name: string;
  summary: string;
  command: string;
  onDemand: boolean;
  last: CheckRun | null;
}
/** One check run: GET /v1/admin/checks (`last`) and POST /v1/admin/checks/log-monitor. */
export function parseCheckRun(body: unknown, what = 'the check result'): CheckRun {
  const o = obj(body, what);
  return {
    ranAt: str(o.ranAt, `${what}.ranAt`),
    durationMs: num(o.durationMs, `${what}.durationMs`),
    ok: o.ok === true,
    findings: arr(o.findings, `${what}.findings`).map((f, i) => {
      const x = obj(f, `${what}.findings[${i}]`);
      return { kind: str(x.kind, 'kind'), message: str(x.message, 'message') };
    }),
    findingCount: num(o.findingCount, `${what}.findingCount`),
    covered: str(o.covered, `${what}.covered`),
    ranBy: o.ranBy === 'api' ? 'api' : 'cli',
  };
}
/** GET /v1/admin/checks */
export function parseChecks(body: unknown): OperatorCheck[] {
  return arr(obj(body, 'the checks').checks, 'checks').map((c, i) => {
    const o = obj(c, `checks[${i}]`);
    return {
      name: str(o.name, 'name'),
      summary: str(o.summary, 'summary'),
      command: str(o.command, 'command'),
      onDemand: o.onDemand === true,
      last: o.last === null || o.last === undefined ? null : parseCheckRun(o.last, `checks[${i}].last`),
    };
  });
}

export interface DeadLetter {
  deliveryId: string;
  tenantId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  attempts: number;
  reason: string;
  deadLetteredAt: string;
}
/** GET /v1/admin/webhooks/dead-letters */
export function parseDeadLetters(body: unknown): { data: DeadLetter[]; nextCursor: string | null } {
  const b = obj(body, 'the dead letters');
  return {
    data: arr(b.data, 'data').map((d, i) => {
      const o = obj(d, `data[${i}]`);
      return {
        deliveryId: str(o.deliveryId, 'deliveryId'),
        tenantId: str(o.tenantId, 'tenantId'),
        webhookId: str(o.webhookId, 'webhookId'),
        eventId: str(o.eventId, 'eventId'),
        eventType: str(o.eventType, 'eventType'),
        attempts: num(o.attempts, 'attempts'),
        reason: str(o.reason, 'reason'),
        deadLetteredAt: str(o.deadLetteredAt, 'deadLetteredAt'),
      };
    }),
    nextCursor: typeof b.nextCursor === 'string' ? b.nextCursor : null,
  };
}

/** GET /v1/schedules/preview?cron= */
export function parseCronPreview(body: unknown): string[] {
  return arr(obj(body, 'the preview').nextRuns, 'nextRuns').map((r, i) => str(r, `nextRuns[${i}]`));
}

/** Session answers of /console/session (the sign-in routes). */
export interface TenantSession {
  tenantId: string;
  scopes: string[];
  csrfToken: string;
  expiresAt: string;
}
export interface OperatorSession {
  csrfToken: string;
  expiresAt: string;
}
/** An analyst's session: the same two fields; it reads the reports only. */
export type AnalystSession = OperatorSession;
export type SessionKind = 'tenant' | 'operator' | 'analyst';
export interface Sessions {
  tenant: TenantSession | null;
  operator: OperatorSession | null;
  analyst: AnalystSession | null;
}
export const NO_SESSIONS: Sessions = { tenant: null, operator: null, analyst: null };
export function parseSessions(body: unknown): Sessions {
  const b = obj(body, 'the session');
  const t = isObj(b.tenant) ? b.tenant : null;
  const o = isObj(b.operator) ? b.operator : null;
  const a = isObj(b.analyst) ? b.analyst : null;
  return {
    tenant: t
      ? {
          tenantId: str(t.tenantId, 'tenant.tenantId'),
          scopes: arr(t.scopes ?? [], 'tenant.scopes').map(String),
          csrfToken: str(t.csrfToken, 'tenant.csrfToken'),
          expiresAt: str(t.expiresAt, 'tenant.expiresAt'),
        }
      : null,
    operator: o
      ? { csrfToken: str(o.csrfToken, 'operator.csrfToken'), expiresAt: str(o.expiresAt, 'operator.expiresAt') }
      : null,
    analyst: a
      ? { csrfToken: str(a.csrfToken, 'analyst.csrfToken'), expiresAt: str(a.expiresAt, 'analyst.expiresAt') }
      : null,
  };
}

/**
 * Links in API answers are absolute, built from PUBLIC_BASE_URL; the console follows them on its own origin (the
 * CSP allows only 'self', and the viewer may reach the service under another name than the configured one).
 */
export function sameOrigin(url: string): string {
  try {
    const u = new URL(url, location.origin);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

export const capturePaths = {
  record: (id: string) => `/v1/captures/${encodeURIComponent(id)}`,
  status: (id: string) => `/v1/captures/${encodeURIComponent(id)}/status`,
  artifact: (id: string, name: string) => `/v1/captures/${encodeURIComponent(id)}/artifacts/${name}`,
  provenance: (id: string) => `/v1/captures/${encodeURIComponent(id)}/provenance`,
  certificate: (id: string) => `/v1/captures/${encodeURIComponent(id)}/certificate`,
  verify: (id: string) => `/v1/verify/${encodeURIComponent(id)}`,
};
