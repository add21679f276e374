import { z } from 'zod';
import { dateTime, uri } from './schemas.js';
import { FAILURE_REASONS } from '../domain/failure-reason.js';
import type { ProvenanceRecord, ProvenanceSignature } from '../archive/provenance-record.js';

/**
 * The capture JSON of spec 2.1–2.5 as response schemas (OpenAPI and serialization); the views that build it
 * from the captures read model are projections/read-models/capture-view.ts.
 */

const captureStatus = z.enum(['pending', 'complete', 'failed']);
const renderQuality = z.enum(['full', 'partial']);
const failureReason = z
  .enum(FAILURE_REASONS)
  .optional()
  .describe(
    "Present when 'failed' (on failures recorded since reasons were): the class of `error` — the page's (target_timeout, target_unreachable, target_refused, blocked), the egress policy's (egress_refused), the vantage point's (vantage_unavailable: it did not answer or exits elsewhere; never made directly instead), the browser profile's (profile_unavailable: deleted before the capture ran; never made signed out instead) or, when it could not be avoided, the service's (browser_crashed, service_overloaded). docs/api.md, Failure reasons.",
  );

/** spec 2.1 */
export const captureSummarySchema = z.object({
  id: z.string().describe('Capture identifier (cap_…); also the access secret.'),
  status: captureStatus,
  url: uri(),
  createdAt: dateTime(),
  completedAt: dateTime().optional().describe("Present when status is 'complete'."),
  renderQuality: renderQuality.optional().describe("Present when status is 'complete'."),
  failedAt: dateTime().optional().describe("Present when status is 'failed'."),
  error: z.string().optional().describe("Present when status is 'failed'; human-readable reason."),
  retryable: z.boolean().optional().describe("Present when status is 'failed'; true if a new capture may succeed."),
  failureReason,
});

/** spec 2.2 */
export const captureStatusSchema = z
  .object({
    id: z.string(),
    status: captureStatus,
    captureUrl: uri().optional().describe("Present when 'complete'; URL of the full capture record."),
    error: z.string().optional().describe("Present when 'failed'."),
    retryable: z.boolean().optional().describe("Present when 'failed'."),
    failureReason,
  })
  .describe('Capture status record (spec 2.2).');

/** `captureSettings` (spec 2.3): `version` and `consent` named by the spec; the rest (docs/capturing.md, Capture options) kept as recorded. */
export const captureSettingsSchema = z
  .looseObject({
    version: z.number().int().describe('Schema version.'),
    consent: z.looseObject({}).optional().describe('Present when consent opt-out was attempted.'),
  })
  .describe('Settings recorded for the capture (consent handling, viewport, options).');

/** `render` (spec 2.3); further members the worker records (mainDocumentStatus) are kept. */
const renderSchema = z
  .looseObject({
    waitUntilReached: z.enum(['domcontentloaded', 'load', 'networkidle']),
    timedOut: z.boolean(),
    durationMs: z.number().int(),
    settleMs: z.number().int().optional(),
    settleReason: z.enum(['idle', 'cap']).optional(),
    stages: z.looseObject({}).optional().describe('Per-stage timing breakdown.'),
  })
  .describe('Rendering metadata, present on newer captures.');

/** spec 2.3 */
export const captureRecordSchema = z
  .object({
    id: z.string(),
    status: z.literal('complete'),
    url: uri(),
    createdAt: dateTime(),
    completedAt: dateTime(),
    renderQuality: renderQuality,
    finalUrl: uri()
      .optional()
      .describe(
        'Extension: where the page was when it was captured, after redirects and client-side route changes; absent on older captures.',
      ),
    render: renderSchema.optional(),
    artifacts: z.object({
      screenshot: uri(),
      screenshotBefore: uri().optional().describe('Present only when consent was detected and dismissed.'),
      html: uri(),
      headers: uri().optional(),
      pdf: uri().optional().describe('Present when the capture asked for `pdf`.'),
      session: uri()
        .optional()
        .describe('Present when the capture asked for `recordSession`: the WebM of the session (extension).'),
    }),
    wacz: z
      .object({ url: uri(), bundleHash: z.string().describe('sha256:<hex>'), size: z.number().int() })
      .optional()
      .describe('The signed bundle; present when a signing key was configured and the capture is not partial.'),
    verifyUrl: uri().optional().describe('Present only when `wacz` is present.'),
    captureSettings: captureSettingsSchema.optional(),
    corroboration: z
      .object({ id: z.string(), url: uri().describe('GET it for the corroboration record.') })
      .optional()
      .describe('Extension: present when the capture is a member of a corroborated set (options.corroborate).'),
    transparency: z
      .object({
        leafIndex: z.number().int().describe("The bundle's leaf in the public log (docs/transparency.md)."),
        checkpoint: z
          .string()
          .nullable()
          .describe('The latest signed checkpoint covering it; null until one is published.'),
      })
      .optional()
      .describe('Present once the bundle is in the transparency log.'),
  })
  .describe('Capture record (spec 2.3).');

/**
 * The stored provenance record (docs/capturing.md, Provenance) as documented; answered as stored (JSON.stringify, no schema in the
 * way), since it is the record signed into the WACZ.
 */
export const provenanceSchema = z
  .object({
    provenanceVersion: z.number().int(),
    captureId: z.string(),
    requestedUrl: z.string(),
    finalUrl: z.string(),
    redirectChain: z.array(
      z.object({ url: z.string(), status: z.number().int().nullable(), location: z.string().optional() }),
    ),
    mainDocumentStatus: z.number().int(),
    renderQuality: z.enum(['full', 'partial']),
    submittedAt: dateTime(),
    startedAt: dateTime(),
    completedAt: dateTime(),
    browser: z.object({ name: z.string(), version: z.string(), userAgent: z.string() }),
    viewport: z.object({ width: z.number().int(), height: z.number().int(), deviceScaleFactor: z.number() }),
    captureSettings: z.record(z.string(), z.unknown()),
    connections: z
      .array(
        z.object({
          host: z.string(),
          port: z.number().int(),
          address: z.string().describe('The address connected to, after the address policy checked it.'),
          via: z.enum(['tunnel', 'http']),
          connectedAt: dateTime(),
          tls: z
            .unknown()
            .optional()
            .describe(
              'TLS protocol and certificate chain as seen at connect time; null when the server did not speak TLS.',
            ),
          tlsError: z.string().optional(),
        }),
      )
      .describe('Every connection the egress proxy made for hosts this page used.'),
    artifacts: z.array(
      z.object({
        name: z.string(),
        mediaType: z.string(),
        hash: z.string().describe('sha256:<hex>'),
        bytes: z.number().int(),
      }),
    ),
    dns: z
      .array(
        z.object({
          source: z.enum(['resolver', 'ip-literal', 'localhost']),
          name: z.string(),
          type: z.enum(['A', 'AAAA']).optional(),
          addresses: z.array(z.object({ address: z.string(), ttl: z.number().int().nullable() })),
          resolver: z.array(z.string()).optional().describe('The DNS servers asked.'),
          answeredAt: dateTime().optional(),
          error: z.string().optional(),
        }),
      )
      .optional()
      .describe(
        'Extension: per host of the page, the DNS answers the resolver gave (type, addresses, TTL, servers), or that it was an IP literal or localhost.',
      ),
    vantage: z
      .object({
        id: z.string(),
        label: z.string(),
        region: z.string(),
        exit: z.object({
          observedAddress: z.string().nullable().describe('null: not observed (the vantage has no exit probe).'),
          method: z.enum(['exit-probe', 'not observed']),
          probeUrl: z.string().nullable(),
          observedAt: dateTime().nullable(),
          expectedAddress: z.string().nullable(),
        }),
      })
      .optional()
      .describe('Extension: the vantage point the capture was made from, and the exit address observed.'),
    worker: z
      .string()
      .optional()
      .describe('Extension: the worker process that rendered it, a random id per process (wrk_…).'),
    signing: z.object({ algorithm: z.literal('Ed25519'), keyId: z.string(), signatureIn: z.string() }).optional(),
    retention: z
      .object({ mode: z.literal('compliance'), retainUntil: dateTime(), storage: z.literal('S3 Object Lock') })
      .optional()
      .describe(
        "Extension: storage keeps the capture's objects, bundle included, undeletable until retainUntil (S3 Object Lock, compliance mode). Absent: no retention.",
      ),
    notes: z.array(z.string()),
    signature: z
      .object({
        bundleHash: z.string(),
        keyId: z.string(),
        signedAt: dateTime(),
        timestamp: z.object({ genTime: dateTime(), tsa: z.string() }).nullable(),
      })
      .optional()
      .describe("From the bundle's datapackage-digest.json, when there is a bundle."),
  })
  .describe('The provenance record: provenance/provenance.json of the signed WACZ, plus `signature`.');

/**
 * The documented schema and the record's type (src/archive/provenance-record.ts) name the same members, at the
 * top and in each connection: a member added to one and not the other fails the typecheck here.
 */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : { onlyIn: [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] };
type Documented = z.infer<typeof provenanceSchema>;
const provenanceMembersMatch: [
  SameKeys<Documented, ProvenanceRecord & { signature?: ProvenanceSignature }>,
  SameKeys<Documented['connections'][number], ProvenanceRecord['connections'][number]>,
  SameKeys<NonNullable<Documented['signature']>, ProvenanceSignature>,
] = [true, true, true];
void provenanceMembersMatch;
