import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { currentTraceHeaders } from './tracing.js';

/** NATS headers carrying the active trace context, or undefined when tracing is off (no header cost). */
export function traceMsgHeaders(from?: Record<string, string>): MsgHdrs | undefined {
  const carrier = from ?? currentTraceHeaders();
  const keys = Object.keys(carrier);
  if (keys.length === 0) return undefined;
  const h = natsHeaders();
  for (const k of keys) h.set(k, carrier[k]!);
  return h;
}

/** The trace headers of a received message as a plain record (to pass them on). */
export function traceCarrier(h: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['traceparent', 'tracestate']) {
    const v = h?.get(k);
    if (v) out[k] = v;
  }
  return out;
}
