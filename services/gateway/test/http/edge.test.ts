import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { loadGatewayConfig } from '../../src/config';
import { startGateway, type RunningGateway } from '../../src/service';

// The gateway's HTTP edge against its real server: slow and oversized requests are cut short, and every refusal,
// including those Node makes before express sees the request, is problem+json. These refusals happen before any
// downstream call, so the downstream addresses point nowhere.

let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await startGateway({
    config: loadGatewayConfig({
      GATEWAY_PORT: '0',
      ACCOUNTS_GRPC_ADDRESS: '127.0.0.1:1',
      BILLING_GRPC_ADDRESS: '127.0.0.1:1',
      SCANS_GRPC_ADDRESS: '127.0.0.1:1',
      GRADING_GRPC_ADDRESS: '127.0.0.1:1',
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      HTTP_REQUEST_TIMEOUT_MS: '2000',
    }),
    logger: pino({ level: 'silent' }),
  });
});
afterAll(async () => gateway?.stop());

/** Writes `head` (and then `trickle` one byte at a time), and resolves with whatever the server answers and when. */
function rawRequest(head: string, options: { trickle?: string; everyMs?: number } = {}): Promise<{ text: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(gateway.port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, ms: Date.now() - started });
    });
    socket.write(head);
    if (options.trickle) {
      let i = 0;
      timer = setInterval(() => {
        if (i < options.trickle!.length && socket.writable) socket.write(options.trickle![i++]!);
      }, options.everyMs ?? 200);
    }
  });
}

const problemOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { code: string; status: number; type: string; detail: string };

describe('the HTTP edge', () => {
  it('cuts off a body trickled slowly: 408 request_timeout as problem+json within the request timeout', async () => {
    const body = '{"name":"slow"}'.padEnd(200, ' ');
    const { text, ms } = await rawRequest(`POST /v1/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, { trickle: body, everyMs: 100 });
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(text).toMatch(/Content-Type: application\/problem\+json/i);
    expect(problemOf(text)).toMatchObject({ status: 408, code: 'request_timeout' });
    expect(ms).toBeLessThan(5000);
  });

  it('closes idle half-sent headers with 408', async () => {
    const { text, ms } = await rawRequest('GET /v1/pricing HTTP/1.1\r\nHost: x\r\n');
    expect(problemOf(text)).toMatchObject({ status: 408, code: 'request_timeout' });
    expect(ms).toBeLessThan(4000);
  });

  it('refuses a declared 100 MB upload at once by its Content-Length (413), without reading the body', async () => {
    const { text, ms } = await rawRequest(
      `POST /v1/scans HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer clk_x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n--b\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(problemOf(text)).toMatchObject({ status: 413, code: 'body_too_large' });
    expect(ms).toBeLessThan(1500);
  });

  it('answers oversized headers with 431 problem+json', async () => {
    const { text } = await rawRequest(`GET /v1/pricing HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(text).toMatch(/^HTTP\/1\.1 431/);
    expect(problemOf(text)).toMatchObject({ status: 431, code: 'headers_too_large' });
  });

  it('refuses keys in the URL however the parameter is spelled, and two different keys in one request', async () => {
    for (const query of ['api_key[]=clk_a', 'API_KEY=clk_a', 'apiKey[0]=clk_a', 'x-api-key=clk_a']) {
      const r = await fetch(`${gateway.baseUrl}/v1/agents/me?${query}`);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe(`Bearer realm="CardLens", resource_metadata="${gateway.baseUrl}/.well-known/oauth-protected-resource"`);
      expect(((await r.json()) as { detail: string }).detail).toMatch(/never accepted in URLs/);
    }
    const two = await fetch(`${gateway.baseUrl}/v1/agents/me`, { headers: { Authorization: 'Bearer clk_aaaa', 'X-Api-Key': 'clk_bbbb' } });
    expect(two.status).toBe(401);
    expect(((await two.json()) as { detail: string }).detail).toMatch(/two different API keys/);
  });
});
