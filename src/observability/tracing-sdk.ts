import type { NodeSDK } from '@opentelemetry/sdk-node';

/**
 * Starts OpenTelemetry's node SDK with HTTP instrumentation when the standard variables ask for an exporter
 * (OTEL_TRACES_EXPORTER other than 'none', or OTEL_EXPORTER_OTLP[_TRACES]_ENDPOINT). The SDK is imported only then:
 * it costs about a second of CPU to load, which a process without tracing never pays.
 */

let sdk: NodeSDK | null = null;

export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER;
  if (exporter && exporter !== 'none') return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) && exporter !== 'none';
}

export async function startTracing(serviceName = 'capture-ledger'): Promise<boolean> {
  if (sdk || !tracingRequested()) return false;
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  const [{ NodeSDK }, { HttpInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
  ]);
  sdk = new NodeSDK({ instrumentations: [new HttpInstrumentation()] });
  sdk.start();
  return true;
}

export async function stopTracing(): Promise<void> {
  await sdk?.shutdown().catch(() => undefined);
  sdk = null;
}
