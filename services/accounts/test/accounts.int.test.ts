import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openPrisma, type OpenPrisma } from '@cardlens/db';
import { expectFreshMigrate, expectNoDrift } from '@cardlens/db/testing';
import { AppError } from '@cardlens/errors';
import { createTestDatabase, describeWithInfra, type TestDatabase } from '@cardlens/testing';
import { PrismaClient } from '../src/db';
import { authenticateApiKey } from '../src/use-cases/authenticate-api-key';
import { getAgent } from '../src/use-cases/get-agent';
import { registerAgent, type GrantTrialCredits } from '../src/use-cases/register-agent';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));

describe('accounts migrations', () => {
  it('committed migrations match schema.prisma (no drift)', () => expectNoDrift(serviceDir));
  it('a fresh PGlite migrates and a second run is a no-op', () => expectFreshMigrate(serviceDir));
});

const expectCode = async (promise: Promise<unknown>, code: string) => {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(code);
};

describeWithInfra('postgres', 'accounts use cases on Postgres', () => {
  let db: TestDatabase;
  let open: OpenPrisma<PrismaClient>;
  let prisma: PrismaClient;
  // Billing's answers for these use-case tests; the HTTP end-to-end suite runs the real billing service.
  const grants: Parameters<GrantTrialCredits>[0][] = [];
  const billingGrants: GrantTrialCredits = async (request) => {
    grants.push(request);
    return { creditsGranted: request.tier === 'registered' ? 3 : 1, poolExhausted: false };
  };
  const billingDown: GrantTrialCredits = async () => {
    throw new AppError('service_unavailable', 'billing unreachable');
  };

  beforeAll(async () => {
    db = await createTestDatabase({ label: 'accounts' });
    // A fresh Postgres database migrates, and a second run is a no-op.
    await expectFreshMigrate(serviceDir, { kind: 'postgres', url: db.url });
    open = await openPrisma(PrismaClient, { kind: 'postgres', url: db.url });
    prisma = open.prisma;
  });
  afterAll(async () => {
    await open?.close();
    await db?.drop();
  });

  it('stores only the key hash and the display prefix', async () => {
    const agent = await registerAgent({ prisma, grantTrialCredits: billingGrants }, { name: 'hash check', contactEmail: 'o@example.com' });
    const rows = await prisma.$queryRawUnsafe<Record<string, unknown>[]>('SELECT * FROM "accounts"."api_keys" WHERE "agent_id" = $1', agent.agentId);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(agent.apiKey);
    expect(rows[0]?.key_prefix).toBe(agent.apiKey.slice(0, 12));
    expect(agent.tier).toBe('registered');
    expect(grants.at(-1)).toEqual({ agentId: agent.agentId, tier: 'registered', commercialOnly: false });
  });

  it('authenticates a key and refuses malformed, unknown, revoked and disabled ones alike', async () => {
    const a = await registerAgent({ prisma, grantTrialCredits: billingGrants }, { name: 'auth' });
    expect((await authenticateApiKey({ prisma }, a.apiKey)).agentId).toBe(a.agentId);
    await expectCode(authenticateApiKey({ prisma }, 'clk_short'), 'invalid_api_key');
    await expectCode(authenticateApiKey({ prisma }, `clk_${'Z'.repeat(40)}`), 'invalid_api_key');

    const revoked = await registerAgent({ prisma, grantTrialCredits: billingGrants }, { name: 'revoked' });
    await prisma.apiKey.updateMany({ where: { agentId: revoked.agentId }, data: { revokedAt: new Date() } });
    await expectCode(authenticateApiKey({ prisma }, revoked.apiKey), 'invalid_api_key');

    const disabled = await registerAgent({ prisma, grantTrialCredits: billingGrants }, { name: 'disabled' });
    await prisma.agent.update({ where: { id: disabled.agentId }, data: { disabledAt: new Date() } });
    await expectCode(authenticateApiKey({ prisma }, disabled.apiKey), 'invalid_api_key');
    await expectCode(getAgent({ prisma }, disabled.agentId), 'invalid_api_key');
  });

  it('does not ask billing for credits for a commercial-only agent', async () => {
    const before = grants.length;
    const agent = await registerAgent({ prisma, grantTrialCredits: billingGrants }, { name: 'biz', contactEmail: 'b@example.com', commercialOnly: true });
    expect(agent.credits).toBe(0);
    expect(grants.length).toBe(before);
  });

  it('removes the agent again when billing cannot grant, so nothing half-made remains', async () => {
    const count = await prisma.agent.count();
    await expectCode(registerAgent({ prisma, grantTrialCredits: billingDown }, { name: 'unlucky' }), 'service_unavailable');
    expect(await prisma.agent.count()).toBe(count);
    expect(await prisma.apiKey.count({ where: { agent: { name: 'unlucky' } } })).toBe(0);
  });

  it('reports paid once a purchase is recorded', async () => {
    const agent = await registerAgent({ prisma, grantTrialCredits: billingGrants }, { name: 'buyer' });
    expect((await getAgent({ prisma }, agent.agentId)).tier).toBe('anonymous');
    await prisma.agent.update({ where: { id: agent.agentId }, data: { paidAt: new Date() } });
    expect((await getAgent({ prisma }, agent.agentId)).tier).toBe('paid');
  });
});
