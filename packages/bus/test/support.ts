// Shared test plumbing: a real OpenTelemetry SDK (so trace context is propagated for real), and
// small waiting helpers.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

let installed: { exporter: InMemorySpanExporter; provider: TracerProvider } | undefined;

export function installTracing(): { exporter: InMemorySpanExporter; provider: TracerProvider } {
  if (!installed) {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    installed = { exporter, provider };
  }
  return installed;
}

/** Polls until check() returns true or timeoutMs passes. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const text = (value: Uint8Array) => Buffer.from(value).toString('utf8');
export const bytes = (s: string) => Buffer.from(s, 'utf8');
