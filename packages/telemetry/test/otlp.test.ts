import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { startTelemetry } from '../src/index';

const received: { url: string; body: string }[] = [];
let collector: Server;
let endpoint: string;

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', body: Buffer.concat(chunks).toString() });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

describe("startTelemetry({ exporter: 'otlp' })", () => {
  it('exports spans with the service name to <otlpEndpoint>/v1/traces on shutdown', async () => {
    const shutdown = startTelemetry({ serviceName: 'otlp-test', exporter: 'otlp', otlpEndpoint: endpoint });
    trace.getTracer('test').startActiveSpan('exported-span', (span) => span.end());
    await shutdown();
    expect(received.map((r) => r.url)).toContain('/v1/traces');
    const body = received.map((r) => r.body).join('');
    expect(body).toContain('exported-span');
    expect(body).toContain('otlp-test');
  });
});
