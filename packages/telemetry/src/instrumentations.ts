import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { PrismaInstrumentation } from '@prisma/instrumentation';

type Instrumentation = NodeSDKConfiguration['instrumentations'][number];

const KEY = Symbol.for('cardlens.telemetry.instrumentations');
const HOOKED = Symbol.for('cardlens.telemetry.loader-hook');
type WithInstrumentations = typeof globalThis & { [KEY]?: Instrumentation[]; [HOOKED]?: true };

export function markLoaderHookRegistered(): void {
  (globalThis as WithInstrumentations)[HOOKED] = true;
}

export function loaderHookRegistered(): boolean {
  return (globalThis as WithInstrumentations)[HOOKED] === true;
}

const HEALTH_PATHS = new Set(['/healthz', '/readyz', '/livez']);

/**
 * Creates (once per process) and enables the instrumentations. Constructing an instrumentation enables it:
 * it hooks `require` (require-in-the-middle) and, when the ESM loader hook from `register.ts` is active,
 * `import` (import-in-the-middle). Until the SDK registers a tracer provider their spans are no-ops.
 */
export function enableInstrumentations(): Instrumentation[] {
  const holder = globalThis as WithInstrumentations;
  holder[KEY] ??= [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => HEALTH_PATHS.has((req.url ?? '').split('?')[0] ?? ''),
    }),
    // No express instrumentation: it made a span per middleware and router layer of every request (a dozen on
    // the gateway's reads) and roughly halved the read path's throughput; the HTTP server span is the request.
    // Skips the grpc.health.v1 probes. The matcher only sees the method name: don't name our RPCs Check/Watch.
    new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
    new KafkaJsInstrumentation(),
    // Log lines are written to stdout and shipped by the platform, not through the OTel logs SDK.
    // createLogger's own mixin adds trace_id/span_id too, so correlation also works without the hooks.
    new PinoInstrumentation({ disableLogSending: true }),
    // Prisma reports its spans through a global helper that its client looks up; no module patching.
    new PrismaInstrumentation(),
  ];
  return holder[KEY];
}
