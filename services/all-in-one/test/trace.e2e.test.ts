import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateSample } from '@cardlens/card-synth';

// One trace per scan, end to end: the embedded service runs as `npm start` does (its own process, with the
// telemetry preload and OTEL_EXPORTER=otlp), exporting to a collector this test runs. A scan's trace id is the
// X-Request-Id of its POST; every span of that trace is collected and the chain gateway -> scans -> bus ->
// worker -> inference -> valuation is checked, each span's parent present in the same trace.

const root = fileURLToPath(new URL('../../..', import.meta.url));
const TEST_CATALOG_DIR = fileURLToPath(new URL('../../valuation/test/fixtures/catalog', import.meta.url));

interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number }
const spans: Array<OtlpSpan & { service: string }> = [];
let collector: Server;
let child: ChildProcess;
let baseUrl = '';
const dataDir = mkdtempSync(path.join(tmpdir(), 'cardlens-trace-'));

function collect(body: string): void {
  const parsed = JSON.parse(body) as { resourceSpans?: Array<{ resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> };
  for (const rs of parsed.resourceSpans ?? []) {
    const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '?';
    for (const ss of rs.scopeSpans ?? []) for (const span of ss.spans ?? []) spans.push({ ...span, service });
  }
}

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') collect(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  child = spawn(process.execPath, ['--import', 'tsx', '--import', '@cardlens/telemetry/register', 'services/all-in-one/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      OTEL_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      GATEWAY_PORT: '0',
      PGLITE_DIR: path.join(dataDir, 'pglite'),
      BLOB_DIR: path.join(dataDir, 'blobs'),
      CATALOG_DIR: TEST_CATALOG_DIR,
      PRICES_DIR: fileURLToPath(new URL('../../valuation/test/fixtures/prices', import.meta.url)),
      SAMPLE_SALES_SHARE: '1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output.slice(-2000)}`)), 150_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Base URL: (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${output.slice(-2000)}`)));
  });
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  await new Promise<void>((resolve) => collector.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('tracing across the services', () => {
  it('one trace covers gateway -> scans -> bus -> worker -> inference -> valuation for a scan', async () => {
    const registered = await fetch(`${baseUrl}/v1/agents`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'tracer', contactEmail: 'tracer@example.com' }) });
    const { apiKey } = (await registered.json()) as { apiKey: string };
    const auth = { Authorization: `Bearer ${apiKey}` };
    const sample = await generateSample(1_000_010, { photo: { megapixels: 2 } });
    const form = new FormData();
    form.append('modules', 'full');
    form.append('front', new Blob([Buffer.from(sample.frontJpeg)], { type: 'image/jpeg' }), 'front.jpg');
    form.append('back', new Blob([Buffer.from(sample.backJpeg)], { type: 'image/jpeg' }), 'back.jpg');
    const accepted = await fetch(`${baseUrl}/v1/scans`, { method: 'POST', headers: auth, body: form });
    expect(accepted.status).toBe(202);
    const traceId = accepted.headers.get('x-request-id')!;
    expect(accepted.headers.get('traceresponse')).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const { id } = (await accepted.json()) as { id: number };
    for (let status = ''; status !== 'completed'; ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = ((await (await fetch(`${baseUrl}/v1/scans/${id}`, { headers: auth })).json()) as { status: string }).status;
      expect(status).not.toBe('failed');
    }
    // Shutting down flushes every span still batched.
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));

    const trace = spans.filter((s) => s.traceId === traceId);
    const names = trace.map((s) => s.name);
    const has = (pattern: RegExp) => expect(names.some((n) => pattern.test(n))).toBe(true);
    has(/^POST( \/v1\/scans)?$/); // the gateway's HTTP server span
    has(/ScansService\/CreateScan$/); // gRPC gateway -> scans
    has(/ publish$/); // the scan job onto the bus
    has(/ process$/); // the worker consuming it
    has(/^inference AnalyzeCard$/); // the inference service (its own thread in this mode)
    has(/^inference engine analysis$/);
    has(/ValuationService\//); // the worker -> valuation
    expect(trace.find((s) => s.name === 'inference AnalyzeCard')!.service).toBe('inference');
    // One tree: every span but the root has its parent in the same trace.
    const ids = new Set(trace.map((s) => s.spanId));
    const orphans = trace.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId));
    expect(orphans.map((s) => s.name)).toEqual([]);
  }, 180_000);
});
