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

const SECRET = new Set(SECRET_KEYS);
const TOP_LEVEL_PATHS = SECRET_KEYS.map((key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`));
const CENSOR = '[redacted]';
/** Containers whose `body` is a request body (never logged, whole), and whose `headers` hold credentials. */
const BODY_HOLDERS = new Set(['req', 'request', 'err', 'error']);
const HEADER_HOLDERS = new Set(['req', 'request', 'res']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);

/** A header object with credential headers (and Set-Cookie) censored; the same object when there are none. */
function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(headers)) {
    if (SECRET.has(key) || key === 'set-cookie') (copy ??= { ...headers })[key] = CENSOR;
  }
  return copy ?? headers;
}

/**
 * One level down: secret keys, a request body (`req.body`, `err.body`, `err.rawBody`) and credential headers.
 * An Error keeps what pino's error serializer shows (type, message, stack) when it has to be copied.
 */
function redactChild(parent: string, value: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  const edit = () => (copy ??= value instanceof Error ? { ...value, type: value.constructor.name, message: value.message, stack: value.stack } : { ...value });
  for (const key of Object.keys(value)) {
    if (SECRET.has(key) || (BODY_HOLDERS.has(parent) && (key === 'body' || key === 'rawBody'))) edit()[key] = CENSOR;
    else if (key === 'headers' && HEADER_HOLDERS.has(parent) && isRecord(value[key])) {
      const headers = redactHeaders(value[key]);
      if (headers !== value[key]) edit()[key] = headers;
    }
  }
  return copy ?? value;
}

/**
 * The redaction every record goes through: the keys above at the top level and one level down
 * (`{ agent: { apiKey } }`), request bodies whole, credential headers. One pass over the record's keys, with
 * copies only where something is censored (pino's path-based redaction cost ~45 µs a line with these paths,
 * most of a cached read's budget). Deeper paths are not covered: log identifiers, not request objects.
 */
export function redactRecord(record: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (SECRET.has(key)) (copy ??= { ...record })[key] = CENSOR;
    else if (isRecord(value)) {
      const redacted = redactChild(key, value);
      if (redacted !== value) (copy ??= { ...record })[key] = redacted;
    }
  }
  return copy ?? record;
}

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
      mixin: traceFields,
      formatters: { level: (label) => ({ level: label }), log: redactRecord },
      // Child loggers' bindings do not pass through the log formatter: pino's own redaction of the top-level keys
      // covers them (top-level paths cost next to nothing; its nested and wildcard paths were what was slow).
      redact: { paths: TOP_LEVEL_PATHS, censor: CENSOR },
    },
    destination,
  );
}
