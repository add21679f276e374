import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contextFromHeaders, currentTraceHeaders, inSpan } from '../../../src/observability/tracing.js';

describe('tracing without and with a registered tracer', () => {
  it('carries nothing and runs the work alone before anything registers with the API', async () => {
    assert.deepEqual(currentTraceHeaders(), {});
    const parent = contextFromHeaders({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    assert.equal(
      await inSpan('job', parent, { attempt: 1 }, async (span) => (span === null ? 'alone' : 'span')),
      'alone',
    );
  });

  it('follows the trace once a tracer, context manager and propagator are registered', async () => {
    // Registered as the SDK (or observability.e2e) does; tracing.ts must see it without having loaded the API itself.
    const { context, propagation, trace } = await import('@opentelemetry/api');
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
    const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import(
      '@opentelemetry/sdk-trace-base'
    );
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      const traceId = '0af7651916cd43dd8448eb211c80319c';
      const parent = contextFromHeaders({ traceparent: `00-${traceId}-b7ad6b7169203331-01` });
      const headers = await inSpan('job', parent, { attempt: 1 }, async () => currentTraceHeaders());
      assert.match(headers.traceparent ?? '', new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      const [span] = exporter.getFinishedSpans();
      assert.equal(span?.name, 'job');
      assert.equal(span?.spanContext().traceId, traceId);
    } finally {
      trace.disable();
      context.disable();
      propagation.disable();
    }
  });
});
