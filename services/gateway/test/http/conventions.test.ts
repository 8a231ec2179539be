import { request as httpRequest } from 'node:http';
import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { createLogger, metricsRegistry } from '@cardlens/telemetry';
import { scansV1 } from '@cardlens/contracts';
import type { AgentIdentity, Downstream } from '../../src/downstream';
import { openApiDocument } from '../../src/openapi/document';
import { useTestGateway } from './test-gateway';

// HTTP conventions every answer follows: IETF RateLimit headers beside X-RateLimit-Policy, compression, security
// headers, no CORS, and no documented route that answers "no such route". Real HTTP against a fake downstream.

const KEY = { 'X-Api-Key': 'clk_test' };
const identity: AgentIdentity = { agentId: 7, name: 'poller', tier: 'registered', keyPrefix: 'clk_abcdefgh', contactEmail: null, createdAt: new Date(0) };
const PER_KEY = 3;

const downstream = {
  // Each key its own agent, so each test has its own per-key budget.
  authenticateApiKey: (key: string) => Promise.resolve(key === 'clk_test' ? identity : { ...identity, agentId: 8 }),
  getBalance: () => Promise.resolve({ credits: 5, hasPurchased: false }),
  getScan: async (_agentId: number, scanId: number) => ({ scanId, status: scansV1.ScanStatus.QUEUED, modules: [], state: { $case: 'inFlight', value: { progressPercent: 0 } } }),
  readiness: () => Promise.resolve({}),
} as unknown as Downstream;

const logLines: Array<Record<string, unknown>> = [];
const gateway = useTestGateway(downstream, {
  perKeyPerMinute: PER_KEY,
  logger: createLogger('gateway-test', { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) }),
});

/** node:http, not fetch: fetch decodes bodies and hides Content-Encoding handling. */
function raw(path: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gateway.origin}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}


describe('HTTP conventions', () => {
  it('authenticated answers carry the IETF RateLimit headers beside X-RateLimit-Policy, and a 429 shows r=0', async () => {
    const seen: Array<{ status: number; policy: string | null; limit: string | null; legacy: string | null }> = [];
    for (let i = 0; i < PER_KEY + 1; i++) {
      const r = await fetch(`${gateway.origin}/v1/scans/${i + 1}`, { headers: KEY });
      seen.push({ status: r.status, policy: r.headers.get('ratelimit-policy'), limit: r.headers.get('ratelimit'), legacy: r.headers.get('x-ratelimit-policy') });
    }
    expect(seen.map((s) => s.status)).toEqual([200, 200, 200, 429]);
    for (const s of seen) expect(s.policy).toBe(`"per-key";q=${PER_KEY};w=60`);
    expect(seen.map((s) => s.limit?.replace(/;t=\d+$/, ''))).toEqual(['"per-key";r=2', '"per-key";r=1', '"per-key";r=0', '"per-key";r=0']);
    expect(Number(/t=(\d+)/.exec(seen[3]!.limit!)![1])).toBeGreaterThan(0);
    expect(seen[0]!.legacy).toBe(`per-key;limit=${PER_KEY};window=60s`);
  });

  it('compresses with br or gzip as Accept-Encoding allows', async () => {
    const br = await raw('/openapi.json', { 'Accept-Encoding': 'br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8'))).toMatchObject({ openapi: '3.1.0' });
    expect((await raw('/openapi.json', { 'Accept-Encoding': 'gzip' })).headers['content-encoding']).toBe('gzip');
    const plain = await raw('/openapi.json', {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(br.body.length * 3);
  });

  it('every answer, problems included, carries nosniff, HSTS and no framing; there is no CORS', async () => {
    for (const r of [await raw('/healthz', {}), await raw('/nowhere', {}), await raw('/api-docs', {})]) {
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(r.headers['x-frame-options']).toBe('DENY');
      expect(r.headers['content-security-policy']).toContain("default-src 'none'");
      expect(r.headers['x-powered-by']).toBeUndefined();
    }
    const preflight = await raw('/v1/scans', { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'POST' }, 'OPTIONS');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.status).toBe(405);
  });

  it('names every request: X-Request-Id, the problem\'s requestId, and one access-log line without secrets', async () => {
    logLines.length = 0;
    const missing = await fetch(`${gateway.origin}/nowhere?api_key=clk_secret`, {});
    const id = missing.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(((await missing.json()) as { requestId: string }).requestId).toBe(id);
    const found = await fetch(`${gateway.origin}/v1/agents/me?x=1`, { headers: { Authorization: 'Bearer clk_do_not_log' } });
    const otherId = found.headers.get('x-request-id');
    expect(otherId).not.toBe(id);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const access = logLines.filter((l) => l.req !== undefined);
    expect(access.map((l) => [l.reqId, (l.req as { path: string }).path, (l.res as { status: number }).status])).toEqual([
      [id, '/nowhere', 404],
      [otherId, '/v1/agents/me', 500],
    ]);
    expect(access[1]).toMatchObject({ agentId: 8, level: 'warn' });
    expect(JSON.stringify(logLines)).not.toMatch(/clk_secret|clk_do_not_log|api_key/);
    expect((await raw('/healthz', {})).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logLines.filter((l) => (l.req as { path?: string } | undefined)?.path === '/healthz')).toEqual([]);
  });

  it('times requests by route template, not by concrete path', async () => {
    await fetch(`${gateway.origin}/v1/scans/77`, { headers: { 'X-Api-Key': 'clk_metrics' } });
    await fetch(`${gateway.origin}/no/such/route`);
    const text = await metricsRegistry.metrics();
    expect(text).toMatch(/cardlens_http_request_duration_seconds_count\{method="GET",route="\/v1\/scans\/:id",status="200"\} [1-9]/);
    expect(text).toMatch(/cardlens_http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} [1-9]/);
    expect(text).not.toContain('/v1/scans/77');
  });

  it('every documented path and method is routed: none answers "no route"', async () => {
    const unrouted: string[] = [];
    for (const [path, operations] of Object.entries(openApiDocument.paths)) {
      for (const method of Object.keys(operations).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))) {
        const concrete = path.replace(/\{[^}]+\}/g, '1');
        const r = await raw(concrete, { 'Content-Type': 'application/json' }, method.toUpperCase());
        const body = r.body.toString('utf8');
        if (r.status === 404 && body.includes('No route for')) unrouted.push(`${method.toUpperCase()} ${path}`);
        if (r.status === 405) unrouted.push(`${method.toUpperCase()} ${path} (405)`);
      }
    }
    expect(unrouted).toEqual([]);
  });
});
