import { afterAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { loadGatewayConfig } from '../../src/config';
import { listenGateway, startGateway, type RunningGateway } from '../../src/service';

// The embedded mode binds the gateway's port before the other services are up (a first start loads the catalog
// for half a minute). A request in that window must get an answer, not hang: 503 service_unavailable with
// Retry-After, and once the app is attached the same port serves it. The downstream addresses point nowhere:
// /healthz calls none of them.

const config = loadGatewayConfig({
  GATEWAY_PORT: '0',
  ACCOUNTS_GRPC_ADDRESS: '127.0.0.1:1',
  BILLING_GRPC_ADDRESS: '127.0.0.1:1',
  SCANS_GRPC_ADDRESS: '127.0.0.1:1',
  GRADING_GRPC_ADDRESS: '127.0.0.1:1',
});

let gateway: RunningGateway | undefined;
afterAll(async () => gateway?.stop());

describe('a gateway that is still starting', () => {
  it('answers 503 service_unavailable with Retry-After until the app is attached, then serves the app', async () => {
    const listener = await listenGateway(config);

    const early = await fetch(`${listener.baseUrl}/v1/pricing`);
    expect(early.status).toBe(503);
    expect(early.headers.get('content-type')).toBe('application/problem+json');
    expect(early.headers.get('retry-after')).toBe('5');
    expect(early.headers.get('connection')).toBe('close');
    expect(await early.json()).toMatchObject({ status: 503, code: 'service_unavailable', type: `${listener.baseUrl}/api-docs/errors#service_unavailable` });

    gateway = await startGateway({ config, logger: pino({ level: 'silent' }), listener });
    const ready = await fetch(`${listener.baseUrl}/healthz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok' });

    // An early request left no connection behind that would hold a graceful stop.
    const stopping = Date.now();
    await gateway.stop();
    gateway = undefined;
    expect(Date.now() - stopping).toBeLessThan(2000);
  });
});
