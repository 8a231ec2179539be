import { describe, expect, it } from '@jest/globals';
import { context, propagation, trace } from '@opentelemetry/api';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger, redactRecord, startTelemetry } from '../src/index';
import { humanLine } from '../src/logger';
import { samplerFor } from '../src/sdk';

function capture(name = 'test-svc') {
  const lines: string[] = [];
  const logger = createLogger(name, { write: (line: string) => void lines.push(line) });
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const SECRET = 'clk_SECRETsecretSECRETsecretSECRETsecret1234';

describe('createLogger', () => {
  it('writes JSON with service, level label and message', () => {
    const { logger, records } = capture('scans');
    logger.info({ scanId: 's_1' }, 'scan created');
    expect(records()[0]).toMatchObject({ service: 'scans', level: 'info', msg: 'scan created', scanId: 's_1' });
  });

  it('never writes API keys, passwords, payment data or image bytes', () => {
    const { logger, lines, records } = capture();
    const image = Buffer.from(SECRET);
    logger.info({
      authorization: `Bearer ${SECRET}`,
      'x-api-key': SECRET,
      apiKey: SECRET,
      api_key: SECRET,
      password: SECRET,
      card: { number: SECRET },
      sharedPaymentToken: SECRET,
      frontImage: image,
      agent: { apiKey: SECRET, name: 'bot' },
      req: {
        method: 'POST',
        headers: { authorization: `Bearer ${SECRET}`, 'x-api-key': SECRET, 'content-type': 'image/png' },
        body: { image: SECRET, backImage: SECRET },
      },
    });
    logger.warn({ request: { headers: { 'x-api-key': SECRET } }, scan: { imageBytes: image } }, 'nested');
    const output = lines.join('');
    expect(output).not.toContain(SECRET);
    expect(output).not.toContain(image.toString('base64'));
    const [first] = records();
    expect(first).toMatchObject({ apiKey: '[redacted]', agent: { apiKey: '[redacted]', name: 'bot' } });
    expect(first?.req).toMatchObject({ method: 'POST', headers: { 'content-type': 'image/png' }, body: '[redacted]' });
  });

  it('redacts child bindings too, and leaves records with nothing secret as they are (errors keep their type and stack)', () => {
    const { logger, lines, records } = capture();
    logger.child({ apiKey: SECRET, component: 'gateway' }).info({ err: new TypeError('plain failure') }, 'child');
    expect(lines.join('')).not.toContain(SECRET);
    expect(records()[0]).toMatchObject({ apiKey: '[redacted]', component: 'gateway', err: { type: 'TypeError', message: 'plain failure', stack: expect.stringContaining('TypeError') } });
    const clean = { req: { method: 'GET', path: '/v1/scans/1' }, res: { status: 200 } };
    expect(redactRecord(clean)).toBe(clean);
  });

  it('never writes a request body, not even the raw one a body parser\'s error carries', () => {
    const { logger, lines, records } = capture();
    const parserError = Object.assign(new Error('too many parameters'), { type: 'parameters.too.many', status: 413, body: `card=${SECRET}&a=1` });
    logger.error({ err: parserError, method: 'POST', path: '/sandbox/checkout/cs_1/pay' }, 'request failed');
    expect(lines.join('')).not.toContain(SECRET);
    expect(records()[0]).toMatchObject({ err: { message: 'too many parameters', body: '[redacted]' }, path: '/sandbox/checkout/cs_1/pay' });
  });

  it('with LOG_FILE, writes every record to that file as JSON (asynchronously) and warnings to stderr as one human line', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'log-file-')), 'logs', 'cardlens.log');
    const previous = process.env.LOG_FILE;
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.env.LOG_FILE = file;
    process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const logger = createLogger('all-in-one').child({ component: 'valuation' });
      logger.info({ apiKey: SECRET }, 'catalog imported');
      logger.warn({ err: new Error('feed late') }, 'price import skipped');
    } finally {
      process.stderr.write = write;
      if (previous === undefined) delete process.env.LOG_FILE;
      else process.env.LOG_FILE = previous;
    }
    // The file is written asynchronously: the request that logs never waits on the disk.
    const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter((l) => l !== '') : []);
    for (let i = 0; i < 100 && lines().length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    const records = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((r) => r.msg)).toEqual(['catalog imported', 'price import skipped']);
    expect(records[0]).toMatchObject({ service: 'all-in-one', component: 'valuation', apiKey: '[redacted]' });
    expect(stderr).toEqual(['warn valuation: price import skipped (feed late)\n']);
    expect(humanLine('not json')).toBe('not json');
  });

  it('takes the level from LOG_LEVEL', () => {
    const previous = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'warn';
    try {
      const { logger, records } = capture();
      logger.info('hidden');
      logger.warn('shown');
      expect(records().map((r) => r.msg)).toEqual(['shown']);
    } finally {
      if (previous === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = previous;
    }
  });
});

describe('startTelemetry + createLogger', () => {
  it('adds trace_id/span_id inside an active span only, and registers a W3C propagator with exporter none', async () => {
    const shutdown = startTelemetry({ serviceName: 'test-svc', exporter: 'none' });
    expect(startTelemetry({ serviceName: 'other', exporter: 'none' })).toBe(shutdown);

    const { logger, records } = capture();
    logger.info('outside');
    const carrier: Record<string, string> = {};
    const ids = trace.getTracer('test').startActiveSpan('work', (span) => {
      logger.info('inside');
      propagation.inject(context.active(), carrier);
      span.end();
      return span.spanContext();
    });

    const [outside, inside] = records();
    expect(outside).not.toHaveProperty('trace_id');
    expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(ids.traceId).not.toBe('0'.repeat(32));
    expect(inside).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId });
    // Exporting nothing, nothing is recorded (sampled flag 00), yet the ids are there for logs and propagation.
    expect(carrier.traceparent).toBe(`00-${ids.traceId}-${ids.spanId}-00`);
    await shutdown();
  });
});

describe('samplerFor', () => {
  it('is parent-based with a root ratio: 1 when spans are exported, 0 when not, OTEL_TRACES_SAMPLER_ARG to choose', () => {
    expect(samplerFor('otlp', {})?.toString()).toContain('TraceIdRatioBased{0}'.replace('0', '1'));
    expect(samplerFor('none', {})?.toString()).toContain('TraceIdRatioBased{0}');
    expect(samplerFor('otlp', { OTEL_TRACES_SAMPLER_ARG: '0.1' })?.toString()).toContain('TraceIdRatioBased{0.1}');
    expect(samplerFor('otlp', {})?.toString()).toMatch(/^ParentBased/);
    // The standard OTEL_TRACES_SAMPLER leaves the choice to the SDK.
    expect(samplerFor('otlp', { OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
    expect(() => samplerFor('otlp', { OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/ratio from 0 to 1/);
  });
});
