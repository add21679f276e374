import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { z } from 'zod';
import { keepResponseHeaders } from './openapi-headers.js';
import { dateTime, uri } from './schemas.js';

/**
 * What the OpenAPI document says beyond the routes: its version (3.1, for `webhooks`), the declared tags,
 * the root security, and the payloads the service POSTs to webhook receivers (docs/webhooks.md, spec 6).
 * test/int/api/openapi-tools.int.spec.ts lints the document with Redocly and Spectral and compiles a client
 * generated from it; a route whose tag is not declared here fails there.
 */
export const OPENAPI_VERSION = '3.1.0';

type PathItem = NonNullable<
  Extract<NonNullable<FastifyDynamicSwaggerOptions['openapi']>, { webhooks?: unknown }>['webhooks']
>[string];

export const OPENAPI_TAGS = [
  { name: 'health', description: 'Liveness and readiness of the service (spec 4.1).' },
  { name: 'captures', description: 'Submit, poll and retrieve captures and their artifacts (spec 4.2–4.8).' },
  {
    name: 'verification',
    description: 'Bundle verification and the published signing keys and TSA certificates (spec 4.9, 4.10).',
  },
  { name: 'schedules', description: 'Recurring captures (spec 4.12).' },
  { name: 'webhooks', description: 'Receivers of capture outcome events, and the events themselves (spec 4.13, 6).' },
  {
    name: 'profiles',
    description:
      'Extension: browser profiles, the cookies and storage of a signed-in browser that captures load with options.profile, and the remote browser that makes them (docs/profiles.md).',
  },
  { name: 'usage', description: "The authenticated tenant's usage (spec 4.14)." },
  { name: 'admin', description: 'Operator endpoints: keys, tenant configuration, usage, deliveries (spec 4.11, 5.2).' },
  {
    name: 'console',
    description:
      'Console sign-in: a session cookie in place of the Bearer key for the browser console (an extension; docs/security.md).',
  },
  {
    name: 'transparency',
    description: 'The public transparency log: signed checkpoints, tiles and proofs (docs/transparency.md).',
  },
];

/** Every operation needs a tenant key or the admin key unless it says `security: []` (public reads, spec 5.4). */
export const ROOT_SECURITY = [{ bearer: [] }];

const envelope = <T extends string, D extends z.ZodType>(type: T, data: D, description: string) =>
  z
    .object({
      id: z
        .string()
        .regex(/^evt_[0-9a-f]{32}$/)
        .describe('Event id; the same on every delivery attempt: deduplicate on it (spec 6.6).'),
      type: z.literal(type),
      createdAt: dateTime(),
      data,
    })
    .describe(description);

const captureComplete = envelope(
  'capture.complete',
  z.object({
    id: z.string(),
    status: z.literal('complete'),
    url: uri(),
    createdAt: dateTime(),
    completedAt: dateTime(),
    renderQuality: z.enum(['full', 'partial']),
    artifacts: z.object({
      screenshot: uri(),
      html: uri(),
      headers: uri().optional().describe('Present when headers were captured.'),
    }),
    verifyUrl: uri().optional().describe('Present when the capture has a signed bundle.'),
  }),
  'A capture completed (spec 6.2).',
);
const captureFailed = envelope(
  'capture.failed',
  z.object({
    id: z.string(),
    status: z.literal('failed'),
    url: uri(),
    createdAt: dateTime(),
    failedAt: dateTime(),
    error: z.string(),
    retryable: z.boolean(),
  }),
  'A capture failed (spec 6.3).',
);
const ping = envelope(
  'ping',
  z.object({ webhookId: z.string(), message: z.string() }),
  'A test event sent by POST /v1/webhooks/{webhookId}/ping (spec 6.4).',
);

const deliveryHeaders = [
  { name: 'X-SVC-Event-Id', description: "The envelope's id.", schema: { type: 'string' as const } },
  {
    name: 'X-SVC-Timestamp',
    description: 'Unix seconds when this attempt was sent.',
    schema: { type: 'string' as const, pattern: '^[0-9]+$' },
  },
  {
    name: 'X-SVC-Signature-256',
    description: 't=<timestamp>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> (docs/webhooks.md).',
    schema: { type: 'string' as const },
  },
].map((h) => ({ in: 'header' as const, required: true, ...h }));

function delivery(operationId: string, summary: string, schema: z.ZodType): PathItem {
  // JSON Schema 2020-12 is OpenAPI 3.1's schema dialect; the swagger typings know only their own subset.
  const body = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as object;
  return {
    post: {
      operationId,
      summary,
      description:
        'What the service POSTs to a registered webhook URL; answer 2xx to acknowledge. Retries and dead letters: docs/webhooks.md.',
      tags: ['webhooks'],
      security: [],
      parameters: deliveryHeaders,
      requestBody: { required: true, content: { 'application/json': { schema: body } } },
      responses: {
        '200': { description: 'Delivered (any 2xx).' },
        '410': {
          description:
            'Any 4xx other than 408 and 429 ends the delivery (dead-lettered); 408, 429, 5xx and no answer are retried.',
        },
      },
    },
  };
}

/** OpenAPI 3.1 `webhooks`: the events a receiver gets, keyed by event type. */
export const OPENAPI_WEBHOOKS: Record<string, PathItem> = {
  'capture.complete': delivery('onCaptureComplete', 'Event: a capture completed', captureComplete),
  'capture.failed': delivery('onCaptureFailed', 'Event: a capture failed', captureFailed),
  ping: delivery('onPing', 'Event: a ping', ping),
};

/** The zod schema transform, keeping the response headers routes declare (src/api/openapi-headers.ts). */
export const openApiTransform: typeof jsonSchemaTransform = (doc) => {
  const out = jsonSchemaTransform(doc);
  keepResponseHeaders(
    doc.schema as { response?: Record<string, unknown> },
    out.schema as { response?: Record<string, unknown> },
  );
  declareBinaryBody(doc.schema as BinaryBodyRoute, doc.route as { bodyLimit?: number }, out.schema as BinaryBodyRoute);
  return nameTrailingWildcard(out);
};

interface BinaryBodyRoute {
  consumes?: string[];
  body?: unknown;
  bodyDescription?: string;
}

/**
 * A route that reads its body as bytes (POST /v1/verify/certificate: `consumes: ['application/pdf']`, no zod body, which
 * would validate the Buffer) gets its request body declared here: raw bytes of each media type, at most the route's
 * bodyLimit (said in the description: JSON Schema's length keywords count characters), so a generated client takes a
 * Uint8Array or Blob without a cast.
 */
function declareBinaryBody(route: BinaryBodyRoute, options: { bodyLimit?: number }, out: BinaryBodyRoute): void {
  if (!route.consumes?.length || route.body || route.consumes.includes('application/json')) return;
  const limit = options.bodyLimit;
  // OpenAPI 3.1 binary content: no `type` (the bytes are no JSON string), the media type named; generators type it `unknown`.
  out.body = {
    contentMediaType: route.consumes[0],
    description: [route.bodyDescription, limit ? `At most ${limit} bytes (${limit / 1024} KiB); larger is 413.` : '']
      .filter(Boolean)
      .join(' '),
  };
  out.consumes = route.consumes;
  delete out.bodyDescription;
}

/**
 * A route ending in Fastify's wildcard (`/v1/log/tile/*`) is documented with the path parameter `{path}`:
 * OpenAPI has no name for `*`. A generated client percent-encodes the slashes in it (`0%2F000.p%2F1`), which
 * the route decodes back, so the documented form and the plain one (C2SP tile paths) reach the same handler.
 */
function nameTrailingWildcard<T extends { url: string; schema: unknown }>(out: T): T {
  if (!out.url.endsWith('/*')) return out;
  const schema = out.schema as { params?: { properties?: Record<string, unknown>; required?: string[] } };
  const properties = schema.params?.properties;
  if (properties && '*' in properties) {
    const { '*': wildcard, ...rest } = properties;
    schema.params!.properties = { ...rest, path: wildcard };
    schema.params!.required = (schema.params!.required ?? []).map((name) => (name === '*' ? 'path' : name));
  }
  return { ...out, url: `${out.url.slice(0, -1)}{path}` };
}

/**
 * The zod registry step, then drop component schemas nothing references: the registry makes an input twin
 * (`ProblemInput`) of every registered output schema, and an unused component is noise to generators.
 */
export const openApiTransformObject: typeof jsonSchemaTransformObject = (doc) => {
  const out = jsonSchemaTransformObject(doc) as { components?: { schemas?: Record<string, unknown> } };
  const schemas = out.components?.schemas;
  if (schemas) {
    const text = JSON.stringify({ ...out, components: { ...out.components, schemas: {} } });
    for (const name of Object.keys(schemas)) if (!text.includes(`"#/components/schemas/${name}"`)) delete schemas[name];
  }
  return out as ReturnType<typeof jsonSchemaTransformObject>;
};
