import { createRequire } from 'node:module';
import type { Context, Span } from '@opentelemetry/api';
import type * as Api from '@opentelemetry/api';

/**
 * OpenTelemetry traces (docs/architecture.md, Observability): off unless the standard variables ask for an exporter
 * (OTEL_TRACES_EXPORTER other than 'none', or OTEL_EXPORTER_OTLP[_TRACES]_ENDPOINT). The HTTP server span of a
 * request becomes the parent of the ledger append; its context travels in NATS message headers
 * (`traceparent`) to the job feeder, the browser worker, the webhook feeder and the dispatcher. This module needs only
 * the API package (a no-op without an SDK); the SDK itself is started by tracing-sdk.ts.
 *
 * The API package loads once something has registered with it (the SDK, or a test's tracer): until then every
 * function here does what the API would do without an SDK, nothing, and a process without tracing never loads it.
 */

/** Where the API (major version 1) keeps what is registered with it, shared by every copy of the package. */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');
let loaded: typeof Api | null = null;
function api(): typeof Api | null {
  if (loaded) return loaded;
  if ((globalThis as Record<symbol, unknown>)[API_GLOBAL] === undefined) return null;
  loaded = createRequire(import.meta.url)('@opentelemetry/api') as typeof Api;
  return loaded;
}

/** The context of a message without tracing: nothing in it. */
const EMPTY_CONTEXT: Context = {
  getValue: () => undefined,
  setValue: () => EMPTY_CONTEXT,
  deleteValue: () => EMPTY_CONTEXT,
};

/** A `traceparent`-style carrier of the active context (empty when tracing is off). */
export function currentTraceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  const otel = api();
  if (otel) otel.propagation.inject(otel.context.active(), carrier);
  return carrier;
}

/** The context carried by message headers (NATS MsgHdrs or a plain record). */
export function contextFromHeaders(headers: { get(k: string): string } | Record<string, string> | undefined): Context {
  const otel = api();
  if (!otel) return EMPTY_CONTEXT;
  const { context, propagation } = otel;
  if (!headers) return context.active();
  const getter = (h: typeof headers, key: string) =>
    typeof (h as { get?: unknown }).get === 'function'
      ? (h as { get(k: string): string }).get(key) || undefined
      : (h as Record<string, string>)[key];
  return propagation.extract(context.active(), headers, { get: getter, keys: () => ['traceparent', 'tracestate'] });
}

/** Run `fn` in a span that is a child of `parent` (a context from headers, or the active one); without tracing, fn alone. */
export async function inSpan<T>(
  name: string,
  parent: Context,
  attributes: Record<string, string | number>,
  fn: (span: Span | null) => Promise<T>,
): Promise<T> {
  const otel = api();
  if (!otel) return fn(null);
  const { context, trace, SpanStatusCode } = otel;
  const span = trace.getTracer('capture-ledger').startSpan(name, { attributes }, parent);
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
