import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';

const tracer = trace.getTracer('@cardlens/telemetry');

/**
 * Runs `fn` in a span for work a request asked for. Under an instrumented server span (a process started with
 * the telemetry preload), it is a child of that span; where nothing instrumented the transport (the embedded
 * inference thread), it is the server span itself, parented by the W3C trace context the caller sent (`carrier`,
 * e.g. gRPC metadata), so the trace continues either way.
 */
export function inServerSpan<T>(name: string, carrier: Record<string, unknown>, fn: (span: Span) => Promise<T>): Promise<T> {
  const active = trace.getSpan(context.active());
  const parent = active ? context.active() : propagation.extract(context.active(), carrier, {
    keys: (c) => Object.keys(c),
    get: (c, key) => {
      const value = c[key];
      return typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
    },
  });
  return tracer.startActiveSpan(name, { kind: active ? SpanKind.INTERNAL : SpanKind.SERVER }, parent, (span) => runInSpan(span, fn));
}

/** A child span of the active one around `fn` (a stage of some larger work); errors mark it failed. */
export function inSpan<T>(name: string, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, (span) => runInSpan(span, fn));
}

async function runInSpan<T>(span: Span, fn: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await fn(span);
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message.slice(0, 200) : 'failed' });
    throw error;
  } finally {
    span.end();
  }
}
