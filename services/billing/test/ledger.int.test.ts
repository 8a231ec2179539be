import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { migrate, openPrisma, serviceLayout, type OpenPrisma } from '@cardlens/db';
import { events } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { createTestDatabase, describeWithInfra, type TestDatabase } from '@cardlens/testing';
import { PrismaClient } from '../src/db';
import { defaultPricing } from '../src/domain/pricing';
import { debitCredits } from '../src/use-cases/debit-credits';
import { getBalance } from '../src/use-cases/get-balance';
import { grantTrialCredits } from '../src/use-cases/grant-trial-credits';
import { refundCredits } from '../src/use-cases/refund-credits';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));

describeWithInfra('postgres', 'credits ledger on Postgres under concurrency', () => {
  let db: TestDatabase;
  let open: OpenPrisma<PrismaClient>;
  let prisma: PrismaClient;
  let nextAgent = 1000;

  beforeAll(async () => {
    db = await createTestDatabase({ label: 'billing_ledger' });
    await migrate({ ...serviceLayout(serviceDir), database: { kind: 'postgres', url: db.url } });
    open = await openPrisma(PrismaClient, { kind: 'postgres', url: db.url, poolSize: 20 });
    prisma = open.prisma;
  });
  afterAll(async () => {
    await open?.close();
    await db?.drop();
  });

  const ledgerSum = async (agentId: number) => (await prisma.ledgerEntry.aggregate({ where: { agentId }, _sum: { amount: true } }))._sum.amount ?? 0;

  it('the daily trial pool is never overdrawn by concurrent registrations', async () => {
    const poolDay = () => new Date('2031-01-02T10:00:00Z');
    const deps = { prisma, pricing: defaultPricing, dailyPoolCredits: 10, now: poolDay };
    const agents = Array.from({ length: 30 }, () => nextAgent++);
    const results = await Promise.all(agents.map((agentId) => grantTrialCredits(deps, { agentId, tier: 'registered', commercialOnly: false })));
    const granted = results.filter((r) => r.creditsGranted > 0);
    expect(granted).toHaveLength(3); // 3 x 3 credits fit in a pool of 10
    expect(results.filter((r) => r.poolExhausted)).toHaveLength(27);
    const pool = await prisma.trialPoolDay.findUnique({ where: { day: new Date('2031-01-02') } });
    expect(pool?.granted).toBe(9);
    // Retrying a grant returns the first answer and takes nothing more from the pool.
    const again = await grantTrialCredits(deps, { agentId: agents[0]!, tier: 'registered', commercialOnly: false });
    expect(again.creditsGranted).toBe(results[0]!.creditsGranted);
    expect((await prisma.trialPoolDay.findUnique({ where: { day: new Date('2031-01-02') } }))?.granted).toBe(9);
  });

  it('commercial-only agents get no trial credits', async () => {
    const deps = { prisma, pricing: defaultPricing, dailyPoolCredits: 100 };
    expect(await grantTrialCredits(deps, { agentId: nextAgent++, tier: 'registered', commercialOnly: true })).toEqual({ creditsGranted: 0, poolExhausted: false });
  });

  it('concurrent debits never take the balance below zero and every entry is accounted for', async () => {
    const agentId = nextAgent++;
    await grantTrialCredits({ prisma, pricing: { ...defaultPricing, trial: { anonymous: 5, registered: 5 } }, dailyPoolCredits: 1000 }, { agentId, tier: 'anonymous', commercialOnly: false });
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => debitCredits({ prisma }, { agentId, amount: 1, causeType: 'scan', causeId: `s${i}`, idempotencyKey: `scan:${agentId}:${i}` })),
    );
    const ok = attempts.filter((a) => a.status === 'fulfilled');
    const refused = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(AppError);
      expect((r.reason as AppError).code).toBe('insufficient_credits');
      expect((r.reason as AppError).extras).toMatchObject({ purchaseUrl: '/v1/credits/packs' });
    }
    expect((await getBalance({ prisma }, agentId)).credits).toBe(0);
    expect(await ledgerSum(agentId)).toBe(0);
  });

  it('a debit with a repeated idempotency key is applied once', async () => {
    const agentId = nextAgent++;
    await grantTrialCredits({ prisma, pricing: defaultPricing, dailyPoolCredits: 1000 }, { agentId, tier: 'registered', commercialOnly: false });
    const request = { agentId, amount: 2, causeType: 'scan', causeId: 'x', idempotencyKey: `same:${agentId}` };
    const [a, b] = await Promise.all([debitCredits({ prisma }, request), debitCredits({ prisma }, request)].map((p) => p.catch((e: unknown) => e)));
    const entries = await prisma.ledgerEntry.findMany({ where: { agentId, kind: 'debit' } });
    expect(entries).toHaveLength(1);
    expect((await getBalance({ prisma }, agentId)).credits).toBe(1);
    // The call that lost the race reports a replay of the winner's entry; nobody is charged twice.
    expect([a, b].map((r) => (r as { replayed?: boolean }).replayed).sort()).toEqual([false, true]);
  });

  it('a debit is refunded at most once, even when refunds race', async () => {
    const agentId = nextAgent++;
    await grantTrialCredits({ prisma, pricing: defaultPricing, dailyPoolCredits: 1000 }, { agentId, tier: 'registered', commercialOnly: false });
    const debit = await debitCredits({ prisma }, { agentId, amount: 2, causeType: 'scan', causeId: 'y', idempotencyKey: `r:${agentId}` });
    await Promise.allSettled(Array.from({ length: 5 }, () => refundCredits({ prisma }, { agentId, debitEntryId: debit.entryId, reason: 'enqueue failed' })));
    expect(await prisma.ledgerEntry.count({ where: { agentId, kind: 'refund' } })).toBe(1);
    expect((await getBalance({ prisma }, agentId)).credits).toBe(3);
    expect(await ledgerSum(agentId)).toBe(3);
  });

  it('a partial refund (the grade a scan could not give) returns only that part, once, even when refunds race', async () => {
    const agentId = nextAgent++;
    await grantTrialCredits({ prisma, pricing: defaultPricing, dailyPoolCredits: 1000 }, { agentId, tier: 'registered', commercialOnly: false });
    const debit = await debitCredits({ prisma }, { agentId, amount: 2, causeType: 'scan', causeId: 'p', idempotencyKey: `p:${agentId}` });
    await Promise.allSettled(Array.from({ length: 5 }, () => refundCredits({ prisma }, { agentId, debitEntryId: debit.entryId, reason: 'no grade', credits: 1 })));
    const refunds = await prisma.ledgerEntry.findMany({ where: { agentId, kind: 'refund' } });
    expect(refunds.map((r) => r.amount)).toEqual([1]);
    expect((await getBalance({ prisma }, agentId)).credits).toBe(2);
    expect(await ledgerSum(agentId)).toBe(2);
    // Never more than the debit, and never a part that is not a positive whole number.
    const other = await debitCredits({ prisma }, { agentId, amount: 1, causeType: 'scan', causeId: 'q', idempotencyKey: `q:${agentId}` });
    await expect(refundCredits({ prisma }, { agentId, debitEntryId: other.entryId, reason: 'x', credits: 0 })).rejects.toMatchObject({ code: 'invalid_body' });
    await refundCredits({ prisma }, { agentId, debitEntryId: other.entryId, reason: 'no grade', credits: 5 });
    expect((await getBalance({ prisma }, agentId)).credits).toBe(2);
    expect(await ledgerSum(agentId)).toBe(2);
  });

  it('every entry that moves the balance announces it in the outbox, in its own transaction; a replay announces nothing', async () => {
    const agentId = nextAgent++;
    await grantTrialCredits({ prisma, pricing: defaultPricing, dailyPoolCredits: 1000 }, { agentId, tier: 'registered', commercialOnly: false });
    const request = { agentId, amount: 2, causeType: 'scan', causeId: 'z', idempotencyKey: `announce:${agentId}` };
    const debit = await debitCredits({ prisma }, request);
    await debitCredits({ prisma }, request); // replayed: no entry, no event
    await refundCredits({ prisma }, { agentId, debitEntryId: debit.entryId, reason: 'worker failed' });
    const rows = await prisma.$queryRawUnsafe<{ key: string; payload: Buffer }[]>(
      `SELECT key, payload FROM "billing"."outbox" WHERE topic = $1 AND key = $2 ORDER BY created_at`,
      events.balanceChanged.topic,
      String(agentId),
    );
    const announced = rows.map((r) => events.balanceChanged.decode(r.payload));
    const entries = await prisma.ledgerEntry.findMany({ where: { agentId }, orderBy: { id: 'asc' } });
    expect(announced.map((e) => [e.agentId, e.credits, e.ledgerEntryId])).toEqual(entries.map((e) => [agentId, e.balanceAfter, Number(e.id)]));
    expect(announced.map((e) => e.credits)).toEqual([3, 1, 3]);
  });

  it('the database refuses a negative balance even if code tried to write one', async () => {
    const agentId = nextAgent++;
    await prisma.creditAccount.create({ data: { agentId, balance: 0 } });
    await expect(prisma.creditAccount.update({ where: { agentId }, data: { balance: -1 } })).rejects.toThrow();
  });
});
