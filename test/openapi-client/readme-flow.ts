// The README's flow through a client generated from the live OpenAPI document (openapi-typescript +
// openapi-fetch), without casts; each `@ts-expect-error` is a spec violation the generated types must
// refuse. test/int/api/openapi-tools.int.spec.ts copies this file beside the generated `api.d.ts`, compiles it
// with tsc and runs it against a test server. Not part of tsconfig.test.json: `./api.js` exists only there.
import createClient from 'openapi-fetch';
import type { paths, webhooks } from './api.js';

export async function readmeFlow(
  baseUrl: string,
  adminKey: string,
  target: string,
): Promise<{ captureId: string; status: string; quotaRemaining: string | null; location: string | null }> {
  const client = createClient<paths>({ baseUrl });
  const admin = { Authorization: `Bearer ${adminKey}` };
  const created = await client.POST('/v1/admin/keys', {
    headers: admin,
    body: { tenantId: 'readme', scopes: ['capture', 'read'], name: 'first key' },
  });
  if (!created.data) throw new Error(`key not created: ${JSON.stringify(created.error)}`);
  const tenant = { Authorization: `Bearer ${created.data.key}` };

  const submitted = await client.POST('/v1/captures', { headers: tenant, body: { url: target } });
  if (!submitted.data) throw new Error(`capture not accepted: ${JSON.stringify(submitted.error)}`);
  const captureId: string = submitted.data.id;
  const polled = await client.GET('/v1/captures/{captureId}/status', { params: { path: { captureId } } });
  if (!polled.data) throw new Error(`no status: ${JSON.stringify(polled.error)}`);
  const status: 'pending' | 'complete' | 'failed' = polled.data.status;
  const batch = await client.POST('/v1/captures/batch', {
    headers: tenant,
    body: { urls: [{ url: `${target}/a` }, { url: `${target}/b`, options: { fullPage: false } }] },
  });
  if (!batch.data) throw new Error(`batch refused: ${JSON.stringify(batch.error)}`);
  const schedule = await client.POST('/v1/schedules', {
    headers: tenant,
    body: { url: target, name: 'weekly', cron: '0 6 * * 1' },
  });
  if (!schedule.data) throw new Error(`schedule refused: ${JSON.stringify(schedule.error)}`);

  // The six violations an outside review found the old document let through (each must not compile):
  // @ts-expect-error url is required on a capture
  await client.POST('/v1/captures', { headers: tenant, body: {} });
  // @ts-expect-error url is a string (format uri) on a capture
  await client.POST('/v1/captures', { headers: tenant, body: { url: 42 } });
  // @ts-expect-error url is required on a schedule
  await client.POST('/v1/schedules', { headers: tenant, body: { name: 'n', cron: '0 6 * * 1' } });
  // (a variable, so the formatter keeps the expected error on the directive's next line)
  const urlAsList = { url: ['https://example.org/'], name: 'n', cron: '0 6 * * 1' };
  // @ts-expect-error url is a string on a schedule
  await client.POST('/v1/schedules', { headers: tenant, body: urlAsList });
  // @ts-expect-error each batch item has a url
  await client.POST('/v1/captures/batch', { headers: tenant, body: { urls: [{}] } });
  // @ts-expect-error the artifact name is one of the spec's names
  await client.GET('/v1/captures/{captureId}/artifacts/{name}', { params: { path: { captureId, name: 'passwords' } } });

  // Verify answers JSON unless the request prefers text/html: a client of the JSON media type gets the spec 2.6 type
  // without narrowing. Still pending here, so the answer is spec 4.9's 404.
  const json = createClient<paths, 'application/json'>({ baseUrl, headers: { Accept: 'application/json' } });
  const verification = await json.GET('/v1/verify/{captureId}', { params: { path: { captureId } } });
  if (verification.data) {
    const verified: boolean = verification.data.verified;
    const checks: Array<'artifactHashes' | 'bundleHash' | 'signature' | 'timestamp'> = verification.data.checks.map(
      (c) => c.name,
    );
    throw new Error(`a pending capture verified: ${verified} ${checks}`);
  }
  if (verification.response.status !== 404) throw new Error(`verify answered ${verification.response.status}`);
  // A certificate goes up as bytes: the declared body takes a Uint8Array without a cast.
  const upload = await client.POST('/v1/verify/certificate', {
    body: new TextEncoder().encode('%PDF-1.7 not a certificate'),
    headers: { 'Content-Type': 'application/pdf' },
    bodySerializer: (bytes) => bytes,
  });
  if (!upload.data || upload.data.verified) throw new Error(`a bogus PDF: ${upload.response.status}`);

  return {
    captureId,
    status,
    quotaRemaining: submitted.response.headers.get('X-Quota-Remaining'),
    location: submitted.response.headers.get('Location'),
  };
}

// Declared headers and webhook payloads are types too.
type Accepted = paths['/v1/captures']['post']['responses'][202];
export const remaining: Accepted['headers']['X-Quota-Remaining'] = 3;
// @ts-expect-error X-Quota-Remaining is an integer
export const notANumber: Accepted['headers']['X-Quota-Remaining'] = 'many';
export const retryAfter: paths['/v1/captures']['post']['responses'][429]['headers']['Retry-After'] = 30;
export const location: Accepted['headers']['Location'] = 'http://api.test/v1/captures/cap_x/status';
type CompleteEvent = NonNullable<webhooks['capture.complete']['post']['requestBody']>['content']['application/json'];
export const complete: CompleteEvent['data']['status'] = 'complete';
// @ts-expect-error a capture.complete event's status is 'complete'
export const wrongStatus: CompleteEvent['data']['status'] = 'failed';
type QuotaProblem = paths['/v1/captures']['post']['responses'][429]['content']['application/json'];
export const quotaResource: NonNullable<QuotaProblem['quota']>['resource'] = 'captures';
