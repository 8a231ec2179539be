import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

const SECRET_KEYS = [
  'authorization',
  'cookie',
  'x-api-key',
  'apiKey',
  'api_key',
  'password',
  'secret',
  'token',
  'card',
  'sharedPaymentToken',
  'paymentMethod',
  // image bytes
  'image',
  'images',
  'imageBytes',
  'frontImage',
  'backImage',
];

const prop = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `["${key}"]`);

/**
 * pino redaction paths (exact paths, `*` = exactly one level). The keys above are redacted at the top
 * level and one level down (`{ req: { apiKey } }`), plus the usual request/response header paths; request
 * bodies are redacted whole.
 * Deeper paths are not covered: log identifiers, not request objects.
 */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_KEYS.map((k) => prop(k).replace(/^\./, '')),
  ...SECRET_KEYS.map((k) => `*${prop(k)}`),
  ...['req.headers', 'request.headers', 'res.headers'].flatMap((base) => SECRET_KEYS.map((k) => `${base}${prop(k)}`)),
  'res.headers["set-cookie"]',
  // Request bodies are never logged, whole: a request's, and the raw body a parser error carries.
  'req.body',
  'request.body',
  'err.body',
  'err.rawBody',
  'error.body',
];

/** The active span's W3C ids, if a span is active (the SDK is started and the code runs inside a span). */
export function activeTrace(): { traceId: string; spanId: string; sampled: boolean } | undefined {
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const ctx = span.spanContext();
  return isSpanContextValid(ctx) ? { traceId: ctx.traceId, spanId: ctx.spanId, sampled: (ctx.traceFlags & 1) === 1 } : undefined;
}

function traceFields(): Record<string, string> {
  const active = activeTrace();
  return active ? { trace_id: active.traceId, span_id: active.spanId } : {};
}

/** One log record as a short human line: `warn valuation: message (error message)`. */
export function humanLine(json: string): string {
  try {
    const record = JSON.parse(json) as { level?: string; service?: string; component?: string; msg?: string; err?: { message?: string } };
    const where = record.component ?? record.service ?? '';
    return `${record.level ?? 'log'} ${where}: ${record.msg ?? ''}${record.err?.message ? ` (${record.err.message})` : ''}\n`;
  } catch {
    return json;
  }
}

/**
 * LOG_FILE set (npm start on a terminal sets it): every record goes to that file as JSON (appended, one line
 * each, shared safely by the process's threads and child processes), and warnings and errors also to stderr as
 * one human line. Unset: JSON on stdout, as every deployed service logs.
 */
function destinationFromEnv(): DestinationStream {
  const file = process.env.LOG_FILE;
  // Asynchronous writes (sonic-boom): a request never waits on the log's write(2); pino flushes what is
  // buffered when the process exits.
  if (!file) return pino.destination({ dest: 1, sync: false });
  return pino.multistream([
    { level: 'trace', stream: pino.destination({ dest: file, mkdir: true, append: true, sync: false }) },
    { level: 'warn', stream: { write: (line: string) => void process.stderr.write(humanLine(line)) } },
  ]);
}

/**
 * JSON logger: level from LOG_LEVEL (default info), `service` field, trace_id/span_id of the active span,
 * secrets and image bytes redacted. `destination` is for tests (defaults to LOG_FILE's, else stdout).
 */
export function createLogger(name: string, destination: DestinationStream = destinationFromEnv()): Logger {
  return pino(
    {
      level: process.env.LOG_LEVEL ?? 'info',
      base: { service: name },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: traceFields,
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
    },
    destination,
  );
}
