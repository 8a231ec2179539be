import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { generateSample } from '@cardlens/card-synth';
import { describeWithInfra } from '@cardlens/testing';
import { startStack, type Stack, type StackMode } from './stack';

// The MCP server at /mcp driven by the SDK's own Client over Streamable HTTP, against the whole system (gateway →
// gRPC → services → the real engine). The Client validates every tool result's structuredContent against the
// output schema the tool declared in tools/list (it is listed first on every connection).

const TOOL_NAMES = ['register_agent', 'start_grading_trial', 'subscribe_grading', 'check_credits', 'grade_card', 'scan_card', 'buy_credits', 'get_grade_result', 'get_scan_result', 'share_report', 'revoke_report'];

function mcpSuite(mode: StackMode) {
  let stack: Stack;
  let imageServer: Server;
  let images: { front: string; back: string };
  let ip = 0;
  const clients: Client[] = [];

  beforeAll(async () => {
    const sample = await generateSample(3_000_021, { photo: { megapixels: 2 } });
    const bytes: Record<string, Buffer> = { '/front.jpg': Buffer.from(sample.frontJpeg), '/back.jpg': Buffer.from(sample.backJpeg) };
    imageServer = createServer((req, res) => {
      const body = bytes[req.url ?? ''];
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': body.length }).end(body);
    });
    await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
    images = { front: `${origin}/front.jpg`, back: `${origin}/back.jpg` };
    stack = await startStack(mode, { IMAGE_FETCH_ALLOW_LOOPBACK: 'true', STRIPE_WEBHOOK_SECRET: 'whsec_e2e_mcp' });
  }, 180_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await stack?.stop();
    await new Promise((resolve) => imageServer?.close(resolve));
  });

  /** An SDK client on /mcp, as a distinct client IP, with the key when given; tools are listed first. */
  const connect = async (apiKey?: string): Promise<Client> => {
    const headers: Record<string, string> = { 'X-Forwarded-For': `192.0.2.${++ip}` };
    if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
    const client = new Client({ name: 'cardlens-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    await client.listTools();
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult & { structuredContent: Record<string, unknown> };
  const expectToolError = (result: CallToolResult & { structuredContent: Record<string, unknown> }, code: string, status: number) => {
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code, status, type: expect.stringContaining(`/api-docs/errors#${code}`), title: expect.any(String), detail: expect.any(String) });
    expect(JSON.stringify(result)).not.toMatch(/stack|at \w+ \(|SELECT|prisma/i);
  };

  it('initialize names the server and its rules; tools/list has the nine tools with schemas and true annotations', async () => {
    const client = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: 'cardlens', version: expect.any(String) });
    const instructions = client.getInstructions() ?? '';
    expect(instructions).toMatch(/AI estimates/);
    expect(instructions).toMatch(/never ask for, collect or handle payment-card details/);
    expect(instructions).toMatch(/checkoutUrl/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description!.length).toBeGreaterThan(80);
      // Portable schemas: a nullable field is anyOf with a null branch, never a `type` array, and an open object
      // says additionalProperties: true, never {} (single-type dialects such as Gemini's reject the others).
      const text = JSON.stringify([tool.inputSchema, tool.outputSchema]);
      expect(text).not.toMatch(/"type":\[/);
      expect(text).not.toMatch(/"additionalProperties":\{\}/);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(byName.check_credits).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false });
    expect(byName.get_grade_result).toMatchObject({ readOnlyHint: true });
    expect(byName.grade_card).toMatchObject({ readOnlyHint: false, openWorldHint: true, idempotentHint: false });
    expect(byName.register_agent).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(tools.find((t) => t.name === 'grade_card')!.inputSchema.required).toEqual(['frontImageUrl', 'backImageUrl']);
    // Enums and formats on the arguments: plans, modules, emails and URLs.
    const property = (tool: string, name: string) => JSON.stringify((tools.find((t) => t.name === tool)!.inputSchema.properties as Record<string, unknown>)[name]);
    expect(property('subscribe_grading', 'plan')).toContain('"enum":["grading_5000","grading_10000"]');
    expect(property('scan_card', 'modules')).toContain('"enum":["identify","grade","market","full"]');
    expect(property('register_agent', 'contactEmail')).toContain('"format":"email"');
    expect(property('register_agent', 'operatorUrl')).toContain('"format":"uri"');
    expect(property('scan_card', 'frontImageUrl')).toContain('"format":"uri"');
  });

  it('scan_card runs a prepaid scan with the chosen modules (value from real market data), and buy_credits gives a checkout link', async () => {
    const open = await connect();
    const registered = await call(open, 'register_agent', { name: 'mcp scanner', contactEmail: 'owner@example.com' });
    const agent = await connect(String(registered.structuredContent.apiKey));
    const queued = await call(agent, 'scan_card', { frontImageUrl: images.front, backImageUrl: images.back, modules: ['market'], idempotencyKey: 'mcp-market-1' });
    expect(queued.isError).toBeFalsy();
    expect(queued.structuredContent).toMatchObject({ idempotencyKey: 'mcp-market-1', scan: { status: 'queued', modules: ['market'], creditsCharged: 1, creditsRemaining: 2 } });
    const scanId = (queued.structuredContent.scan as { id: number }).id;
    let scan = await call(agent, 'get_scan_result', { scanId });
    for (let i = 0; i < 300 && ['queued', 'processing'].includes(String(scan.structuredContent.status)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      scan = await call(agent, 'get_scan_result', { scanId });
    }
    expect(scan.structuredContent).toMatchObject({ status: 'completed', identification: expect.any(Object), value: { currency: 'USD', sources: expect.any(Object) }, market: expect.any(Object) });
    expect(scan.structuredContent.grading).toBeUndefined();
    // The result carries its report link, and the summary names it for the agent to hand on.
    const report = (scan.structuredContent.links as { report: string }).report;
    expect(report).toMatch(new RegExp(`^${stack.baseUrl}/r/s[A-Za-z0-9_-]{43}$`));
    expect((scan.content[0] as { text: string }).text).toContain(report);
    expect((await fetch(report)).status).toBe(200);
    const shared = await call(agent, 'share_report', { scanId, expiresInDays: 7 });
    expect(shared.isError).toBeFalsy();
    expect(shared.structuredContent.url).not.toBe(report);
    expect(Date.parse(String(shared.structuredContent.expiresAt)) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    expect((await fetch(report)).status).toBe(404);
    expect(await call(agent, 'revoke_report', { scanId })).toMatchObject({ structuredContent: { revoked: true } });
    expect((await fetch(String(shared.structuredContent.url))).status).toBe(404);
    expect(await call(agent, 'revoke_report', { scanId })).toMatchObject({ structuredContent: { revoked: false } });
    expectToolError(await call(agent, 'share_report', { scanId: 999_999 }), 'scan_not_found', 404);
    expectToolError(await call(agent, 'scan_card', { frontImageUrl: images.front, backImageUrl: images.back, modules: ['everything'] }), 'invalid_body', 400);

    const offer = await call(agent, 'buy_credits', { pack: 'starter' });
    expect(offer.isError).toBeFalsy();
    expect(offer.structuredContent).toMatchObject({ pack: 'starter', credits: 25, priceUsd: 5, checkoutUrl: expect.stringContaining('/sandbox/checkout/') });
    expect((offer.content[0] as { text: string }).text).toContain(String(offer.structuredContent.checkoutUrl));
    expectToolError(await call(agent, 'buy_credits', { pack: 'nope' }), 'invalid_pack', 400);
  });

  it('journey: register_agent → grade_card (prepaid) → get_scan_result until completed → check_credits, charged exactly like POST /v1/scans', async () => {
    const open = await connect();
    const registered = await call(open, 'register_agent', { name: 'mcp agent', contactEmail: 'owner@example.com' });
    expect(registered.isError).toBeFalsy();
    expect(registered.structuredContent).toMatchObject({ tier: 'registered', credits: 3, apiKey: expect.stringMatching(/^clk_/) });
    expect((registered.content[0] as { text: string }).text).toMatch(/Registered agent/);
    const agent = await connect(String(registered.structuredContent.apiKey));

    const queued = await call(agent, 'grade_card', { frontImageUrl: images.front, backImageUrl: images.back, billingSource: 'prepaid', idempotencyKey: 'mcp-prepaid-1' });
    expect(queued.isError).toBeFalsy();
    expect(queued.structuredContent).toMatchObject({ billingSource: 'prepaid', idempotencyKey: 'mcp-prepaid-1', scan: { status: 'queued', modules: ['grade'], creditsCharged: 1, creditsRemaining: 2 } });
    // The same key replays: same scan, no second charge.
    const replay = await call(agent, 'grade_card', { frontImageUrl: images.front, backImageUrl: images.back, billingSource: 'prepaid', idempotencyKey: 'mcp-prepaid-1' });
    expect((replay.structuredContent.scan as { id: number }).id).toBe((queued.structuredContent.scan as { id: number }).id);

    const scanId = (queued.structuredContent.scan as { id: number }).id;
    let scan = await call(agent, 'get_scan_result', { scanId });
    for (let i = 0; i < 300 && ['queued', 'processing'].includes(String(scan.structuredContent.status)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      scan = await call(agent, 'get_scan_result', { scanId });
    }
    expect(scan.structuredContent).toMatchObject({ id: scanId, status: 'completed', identification: expect.any(Object), grading: expect.any(Object) });
    const credits = await call(agent, 'check_credits');
    expect(credits.structuredContent).toMatchObject({ prepaidCredits: 2, status: 'none' });
    // The REST twin sees the same scan.
    const rest = await stack.call('GET', `/v1/scans/${scanId}`, { headers: { Authorization: `Bearer ${String(registered.structuredContent.apiKey)}` } });
    expect(rest.json.status).toBe('completed');
  });

  it('journey: start_grading_trial → the owner pays the sandbox checkout → grade_card (trial) → get_grade_result → check_credits', async () => {
    const open = await connect();
    const trial = await call(open, 'start_grading_trial', { applicationName: 'mcp grading business', ownerEmail: 'owner@example.com', plan: 'grading_5000' });
    expect(trial.isError).toBeFalsy();
    expect(trial.structuredContent).toMatchObject({ plan: 'grading_5000', trialDays: 7, checkoutUrl: expect.stringContaining('/sandbox/checkout/'), apiKey: expect.stringMatching(/^clk_/) });
    const apiKey = String(trial.structuredContent.apiKey);
    const agent = await connect(apiKey);
    // Before checkout: no access, and no prepaid credits (commercial-only account).
    expect((await call(agent, 'check_credits')).structuredContent).toMatchObject({ prepaidCredits: 0, status: 'checkout_pending' });
    expectToolError(await call(agent, 'grade_card', { frontImageUrl: images.front, backImageUrl: images.back }), 'subscription_required', 402);
    // The same link again from subscribe_grading.
    expect((await call(agent, 'subscribe_grading', { plan: 'grading_5000' })).structuredContent).toMatchObject({ action: 'checkout', checkoutUrl: trial.structuredContent.checkoutUrl });

    const checkout = new URL(String(trial.structuredContent.checkoutUrl));
    const paid = await fetch(`${stack.baseUrl}${checkout.pathname}/pay`, { method: 'POST', body: new URLSearchParams({ card: '4242424242424242' }), redirect: 'manual' });
    expect(paid.status).toBe(303);
    let status = '';
    for (let i = 0; i < 150 && status !== 'trialing'; i++) {
      status = String((await call(agent, 'check_credits')).structuredContent.status);
      if (status !== 'trialing') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe('trialing');

    const graded = await call(agent, 'grade_card', { frontImageUrl: images.front, backImageUrl: images.back });
    expect(graded.isError).toBeFalsy();
    expect(graded.structuredContent).toMatchObject({ billingSource: 'trial', idempotencyKey: expect.stringMatching(/^mcp-/), grade: { status: 'completed', gradesCharged: 0, creditsCharged: 0 } });
    expect((graded.content[0] as { text: string }).text).toMatch(/AI grade/);
    const grade = graded.structuredContent.grade as { id: number; gradeId: string };
    expect((await call(agent, 'get_grade_result', { gradeId: grade.gradeId })).structuredContent).toMatchObject({ id: grade.id, status: 'completed' });
    expect((await call(agent, 'get_grade_result', { gradeId: grade.id })).structuredContent).toMatchObject({ id: grade.id });
    expect((await call(agent, 'check_credits')).structuredContent).toMatchObject({ status: 'trialing', unlimitedGrading: true, prepaidCredits: 0 });
    // A second agent cannot read it.
    const stranger = await connect(String((await call(await connect(), 'register_agent', { name: 'stranger' })).structuredContent.apiKey));
    expectToolError(await call(stranger, 'get_grade_result', { gradeId: grade.id }), 'grade_not_found', 404);
  });

  it('errors: the REST problem records as tool errors; an invalid key is HTTP 401; GET and DELETE /mcp are 405', async () => {
    const open = await connect();
    expectToolError(await call(open, 'check_credits'), 'invalid_api_key', 401);
    expectToolError(await call(open, 'grade_card', { frontImageUrl: images.front, backImageUrl: images.back }), 'invalid_api_key', 401);
    expectToolError(await call(open, 'register_agent', { name: 42 }), 'invalid_body', 400);
    expectToolError(await call(open, 'start_grading_trial', { applicationName: 'x', ownerEmail: 'owner@example.com', plan: 'gold' }), 'invalid_plan', 400);

    const key = String((await call(open, 'register_agent', { name: 'errors agent' })).structuredContent.apiKey);
    const agent = await connect(key);
    expectToolError(await call(agent, 'grade_card', { frontImageUrl: images.front }), 'missing_back_image', 400);
    expectToolError(await call(agent, 'grade_card', { frontImageUrl: images.front, backImageUrl: images.back, idempotencyKey: 'not a key' }), 'invalid_body', 400);
    expectToolError(await call(agent, 'grade_card', { frontImageUrl: 'http://10.0.0.7/x.jpg', backImageUrl: images.back, billingSource: 'prepaid' }), 'invalid_image_url', 400);
    expectToolError(await call(agent, 'get_scan_result', { scanId: 999_999 }), 'scan_not_found', 404);
    expectToolError(await call(agent, 'subscribe_grading', { plan: 'grading_1' }), 'invalid_plan', 400);
    await expect(agent.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);

    const bad = await fetch(`${stack.baseUrl}/mcp`, {
      method: 'POST',
      headers: { Authorization: 'Bearer clk_0000000000000000000000000000000000000000', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe(`Bearer realm="CardLens", resource_metadata="${stack.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    // RFC 9728 metadata where the header points: the key is a Bearer token in the header; no authorization server.
    const metadata = await fetch(`${stack.baseUrl}/.well-known/oauth-protected-resource/mcp`);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({ resource: `${stack.baseUrl}/mcp`, bearer_methods_supported: ['header'], cardlens_api_key_registration: `${stack.baseUrl}/v1/agents` });
    expect(bad.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(((await bad.json()) as { code: string }).code).toBe('invalid_api_key');
    // The HTTP-level rules of the REST API: a key's request spends the per-key limit; without a key, the per-IP one.
    const rpc = (headers: Record<string, string>) =>
      fetch(`${stack.baseUrl}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect((await rpc({ Authorization: `Bearer ${key}` })).headers.get('x-ratelimit-policy')).toMatch(/^per-key;/);
    expect((await rpc({})).headers.get('x-ratelimit-policy')).toMatch(/^open-per-ip;/);
    // DNS-rebinding protection: a foreign Host or Origin is refused.
    expect((await rpc({ Origin: 'http://evil.example.com' })).status).toBe(403);
    for (const method of ['GET', 'DELETE']) {
      const r = await stack.call(method, '/mcp', { undocumented: true });
      expect(r.status).toBe(405);
      expect(r.json.code).toBe('method_not_allowed');
    }
  });

  it('a JSON-RPC batch spends one point of the per-key limit per call in it, and one over the limit is refused whole', async () => {
    const open = await connect();
    const key = String((await call(open, 'register_agent', { name: 'batch agent' })).structuredContent.apiKey);
    const batch = (size: number, from = 1) =>
      fetch(`${stack.baseUrl}/mcp`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify(Array.from({ length: size }, (_, i) => ({ jsonrpc: '2.0', id: from + i, method: 'tools/call', params: { name: 'check_credits', arguments: {} } }))),
      });
    // The per-key limit is 60 a minute; registration spent none of this key's.
    const five = await batch(5);
    expect(five.status).toBe(200);
    expect(((await five.json()) as unknown[]).length).toBe(5);
    expect(five.headers.get('ratelimit')).toMatch(/"per-key";r=55;/);
    const tooMany = await batch(56, 100);
    expect(tooMany.status).toBe(429);
    expect(tooMany.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(Number(tooMany.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await tooMany.json()) as { code: string }).code).toBe('rate_limited');
    // A refused batch still counts against the window, as a refused REST request does: the next call waits too.
    const single = await batch(1, 500);
    expect(single.status).toBe(429);
  });
}

describe('MCP e2e (embedded)', () => mcpSuite('embedded'));
describeWithInfra(['postgres', 'redis', 'kafka'], 'MCP e2e (infra: Postgres, Redis, Kafka)', () => mcpSuite('infra'));
