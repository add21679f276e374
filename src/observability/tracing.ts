import { context, propagation, trace, type Context, type Span, SpanStatusCode } from '@opentelemetry/api';

/**
 * OpenTelemetry traces (docs/architecture.md, Observability): off unless the standard variables ask for an exporter
 * (OTEL_TRACES_EXPORTER other than 'none', or OTEL_EXPORTER_OTLP[_TRACES]_ENDPOINT). The HTTP server span of a
 * request becomes the parent of the ledger append; its context travels in NATS message headers
 * (`traceparent`) to the job feeder, the browser worker, the webhook feeder and the dispatcher. This module needs only
 * the API package (a no-op without an SDK); the SDK itself is started by tracing-sdk.ts.
 */

export const tracer = () => trace.getTracer('capture-ledger');

/** A `traceparent`-style carrier of the active context (empty when tracing is off). */
export function currentTraceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The context carried by message headers (NATS MsgHdrs or a plain record). */
export function contextFromHeaders(headers: { get(k: string): string } | Record<string, string> | undefined): Context {
  if (!headers) return context.active();
  const getter = (h: typeof headers, key: string) =>
    typeof (h as { get?: unknown }).get === 'function'
      ? (h as { get(k: string): string }).get(key) || undefined
      : (h as Record<string, string>)[key];
  return propagation.extract(context.active(), headers, { get: getter, keys: () => ['traceparent', 'tracestate'] });
}

/** Run `fn` in a span that is a child of `parent` (a context from headers, or the active one). */
export async function inSpan<T>(
  name: string,
  parent: Context,
  attributes: Record<string, string | number>,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const span = tracer().startSpan(name, { attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}
