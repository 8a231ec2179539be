import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { Server, ServerCredentials, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { accountsV1, billingV1, commonV1, events, scansEventsV1, scansV1 } from './index';
import { isoFromTimestamp, isoOrNull, timestampFromIso } from './timestamp';

const createdAt = timestampFromIso('2026-01-02T03:04:05.678Z');

const accounts: accountsV1.AccountsServiceServer = {
  registerAgent: (_call, callback) => callback({ code: status.UNIMPLEMENTED, details: 'not in this test' }),
  authenticateApiKey: (_call, callback) => callback({ code: status.UNIMPLEMENTED, details: 'not in this test' }),
  getAgent: (call, callback) => {
    if (call.request.agentId !== 42) {
      callback({ code: status.NOT_FOUND, details: 'not_found' });
      return;
    }
    callback(null, {
      agent: {
        agentId: 42,
        name: 'probe',
        tier: commonV1.Tier.REGISTERED,
        keyPrefix: 'clk_AbCdEfGh',
        contactEmail: 'owner@example.com',
        commercialOnly: false,
        createdAt,
      },
    });
  },
};

describe('generated grpc-js service', () => {
  let server: Server;
  let client: accountsV1.AccountsServiceClient;

  beforeAll(async () => {
    server = new Server();
    server.addService(accountsV1.AccountsServiceService, accounts);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    client = new accountsV1.AccountsServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  });

  afterAll(async () => {
    client.close();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  });

  const getAgent = (agentId: number) =>
    new Promise<accountsV1.GetAgentResponse>((resolve, reject) =>
      client.getAgent({ agentId }, (err, res) => (err ? reject(err) : resolve(res))),
    );

  it('round-trips GetAgent with enum, optional and Timestamp fields', async () => {
    const res = await getAgent(42);
    expect(res.agent).toEqual({
      agentId: 42,
      name: 'probe',
      tier: commonV1.Tier.REGISTERED,
      keyPrefix: 'clk_AbCdEfGh',
      contactEmail: 'owner@example.com',
      commercialOnly: false,
      createdAt,
    });
    expect(res.agent?.operatorUrl).toBeUndefined();
    expect(isoFromTimestamp(res.agent!.createdAt!)).toBe('2026-01-02T03:04:05.678Z');
  });

  it('surfaces server errors as gRPC status', async () => {
    await expect(getAgent(7)).rejects.toMatchObject({ code: status.NOT_FOUND, details: 'not_found' } satisfies Partial<ServiceError>);
  });
});

describe('generated messages', () => {
  it('encodes oneofs as { $case, value } unions', () => {
    const msg = billingV1.CreateCreditPurchaseResponse.fromPartial({
      result: { $case: 'checkout', value: { checkoutUrl: 'https://pay.example/c/1', pack: 'starter', credits: 25, priceCents: 500, expiresAt: createdAt } },
    });
    const back = billingV1.CreateCreditPurchaseResponse.decode(billingV1.CreateCreditPurchaseResponse.encode(msg).finish());
    expect(back.result?.$case).toBe('checkout');
    if (back.result?.$case === 'checkout') expect(back.result.value.priceCents).toBe(500);
  });

  it('round-trips a Kafka event through its topic codec', () => {
    const event = scansEventsV1.ScanJobRequested.fromPartial({
      scanId: 9_007_199_254_740, // int64 as number
      agentId: 42,
      modules: [scansV1.Module.FULL],
      front: { uri: 'scans/1/front.jpg', sha256: 'ab', contentType: 'image/jpeg', sizeBytes: 1234 },
      requestedAt: createdAt,
    });
    expect(events.scanJobRequested.topic).toBe('cardlens.scans.v1.ScanJobRequested');
    const decoded = events.scanJobRequested.decode(events.scanJobRequested.encode(event));
    expect(decoded).toEqual(event);
    expect(decoded.back).toBeUndefined();
    expect(isoOrNull(decoded.requestedAt)).toBe('2026-01-02T03:04:05.678Z');
    expect(isoOrNull(undefined)).toBeNull();
  });
});
