import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { newId } from '../../src/domain/ids.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/test-server.js';

describe('observability', () => {
  const exporter = new InMemorySpanExporter();
  let s: TestServer;
  let site: FixtureSite;
  before(async () => {
    // An in-memory tracer for this process: what the OTEL_* variables switch on in production.
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    site = await startFixtureSite();
    s = await startTestServer({
      ROLES: 'api,projector,worker',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
      SIGNING_KEY: randomBytes(32).toString('base64'),
      TSA_URL: 'none',
    });
  });
  after(async () => {
    await s.stop();
    await site.close();
  });

  it('follows one capture from the submitting request through the log to the browser worker', async () => {
    const tracer = trace.getTracer('test');
    const root = tracer.startSpan('POST /v1/captures');
    const captureId = newId('cap');
    await context.with(trace.setSpan(context.active(), root), () =>
      s.server.ctx.tenants.execute(
        'traced',
        { type: 'SubmitCaptures', data: { captures: [{ captureId, url: site.url('/simple') }], source: 'single' } },
        { correlationId: 'trace-test', causedBy: { kind: 'admin' } },
      ),
    );
    root.end();
    const deadline = Date.now() + 60_000;
    let job;
    while (!(job = exporter.getFinishedSpans().find((sp) => sp.name === 'capture.job')) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(job, 'the worker recorded a capture.job span');
    assert.equal(job.spanContext().traceId, root.spanContext().traceId, 'same trace as the request');
  });

  it('serves Prometheus metrics: requests, latency, queue depth, projection lag, capture durations', async () => {
    await s.call('GET', '/health');
    await s.call('POST', '/v1/admin/keys', {
      token: ADMIN_KEY,
      body: { tenantId: 'metrics', scopes: ['read'], name: 'm' },
    });
    const m = await s.call('GET', '/metrics');
    assert.equal(m.status, 200);
    assert.match(m.headers.get('content-type')!, /^text\/plain/);
    for (const name of [
      'capture_ledger_http_requests_total{method="GET",route="/health",status="200"}',
      'capture_ledger_http_request_duration_seconds_bucket',
      'capture_ledger_queue_depth{queue="JOBS"}',
      'capture_ledger_projection_lag_events',
      'capture_ledger_capture_duration_seconds_count{outcome="full"}',
    ]) {
      assert.ok(m.text.includes(name), `missing ${name}`);
    }
  });
});
