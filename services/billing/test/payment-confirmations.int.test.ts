// Payment confirmations → credits, exactly once. The consumer's real handler (idempotentConsumer +
// fulfilCreditPurchase) against PGlite and Postgres:
// - a fast-check property over random deliveries: duplicates (a redelivered message id), replayed
//   confirmations of one payment under new message ids (the webhook, the success URL, a repair), concurrent
//   batches: each payment is granted once, balance = purchases, never a second ledger row;
// - a consumer that crashes after its database commit but before acknowledging (the bus redelivers): on the
//   in-process bus and on Kafka, one grant.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { pino } from 'pino';
import { InProcessBus, KafkaBus, type Bus, type BusMessage } from '@cardlens/bus';
import { billingEventsV1, events, timestampFromDate } from '@cardlens/contracts';
import { createDatabase, migrate, openPrisma, serviceLayout, type Database } from '@cardlens/db';
import { createTestDatabase, deleteTopicsWithPrefix, describeWithInfra, infraUrls, uniqueTopicPrefix, type TestDatabase } from '@cardlens/testing';
import { PrismaClient } from '../src/db';
import { systemClock } from '../src/clock';
import { defaultPricing } from '../src/domain/pricing';
import { BILLING_CONSUMER_GROUP, paymentConfirmationHandler } from '../src/events/payment-confirmations';
import { getBalance } from '../src/use-cases/get-balance';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const logger = pino({ level: 'silent' });
const PAYMENTS = 5;

const confirmation = (agentId: number, payment: number, credits: number) =>
  events.paymentConfirmationReceived.encode(
    billingEventsV1.PaymentConfirmationReceived.fromPartial({
      providerEventId: `evt_${agentId}_${payment}_${randomUUID()}`,
      kind: billingEventsV1.PaymentKind.CREDIT_PACK,
      agentId,
      pack: 'starter',
      credits,
      amountCents: credits * 20,
      currency: 'USD',
      checkoutSessionId: `cs_conf_${agentId}_${payment}`,
      paymentIntentId: `pi_conf_${agentId}_${payment}`,
      occurredAt: timestampFromDate(new Date()),
    }),
  );

const message = (id: string, agentId: number, value: Uint8Array): BusMessage => ({
  id,
  topic: events.paymentConfirmationReceived.topic,
  key: String(agentId),
  value: Buffer.from(value),
  headers: {},
  attempt: 1,
  signal: new AbortController().signal,
  heartbeat: async () => {},
});

/** One delivery: which payment, and whether it reuses an earlier message id (a redelivery) or is a new confirmation. */
interface Delivery {
  payment: number;
  redelivery: boolean;
}
const deliveriesArb = fc.array(
  fc.oneof(
    fc.record({ payment: fc.nat({ max: PAYMENTS - 1 }), redelivery: fc.boolean() }).map((d) => [d]),
    fc.array(fc.record({ payment: fc.nat({ max: PAYMENTS - 1 }), redelivery: fc.boolean() }), { minLength: 2, maxLength: 8 }),
  ),
  { minLength: 1, maxLength: 8 },
);
const creditsArb = fc.array(fc.integer({ min: 1, max: 400 }), { minLength: PAYMENTS, maxLength: PAYMENTS });

function confirmationProperties(prisma: () => PrismaClient, numRuns: number) {
  let nextAgent = 1;

  it('each payment is granted once however its confirmations are duplicated, replayed or interleaved', async () => {
    await fc.assert(
      fc.asyncProperty(creditsArb, deliveriesArb, async (credits, batches: Delivery[][]) => {
        const agentId = nextAgent++;
        const handler = paymentConfirmationHandler(prisma(), { pricing: defaultPricing, clock: systemClock, logger });
        const sent = new Map<number, BusMessage[]>();
        const delivered = new Set<number>();
        for (const batch of batches) {
          const messages = batch.map(({ payment, redelivery }) => {
            const earlier = sent.get(payment) ?? [];
            if (redelivery && earlier.length > 0) return earlier[earlier.length - 1]!;
            const fresh = message(randomUUID(), agentId, confirmation(agentId, payment, credits[payment]!));
            sent.set(payment, [...earlier, fresh]);
            return fresh;
          });
          await Promise.all(messages.map((m) => handler(m)));
          for (const { payment } of batch) delivered.add(payment);

          const expected = [...delivered].reduce((sum, p) => sum + credits[p]!, 0);
          expect((await getBalance({ prisma: prisma() }, agentId)).credits).toBe(expected);
          const entries = await prisma().ledgerEntry.findMany({ where: { agentId } });
          expect(entries.map((e) => e.idempotencyKey).sort()).toEqual([...delivered].map((p) => `purchase:cs_conf_${agentId}_${p}`).sort());
          let running = 0;
          for (const e of entries.sort((a, b) => Number(a.id - b.id))) {
            running += e.amount;
            expect(e.balanceAfter).toBe(running);
          }
        }
      }),
      { numRuns },
    );
  });
}

/** The bus redelivers a message whose handler failed after the database commit: one grant. */
async function crashAfterCommit(bus: Bus, prisma: PrismaClient, agentId: number): Promise<{ attempts: number }> {
  const real = paymentConfirmationHandler(prisma, { pricing: defaultPricing, clock: systemClock, logger });
  let attempts = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  await bus.subscribe({
    topic: events.paymentConfirmationReceived.topic,
    groupId: BILLING_CONSUMER_GROUP,
    retry: { attempts: 5, initialBackoffMs: 50, maxBackoffMs: 200 },
    handler: async (m) => {
      attempts++;
      await real(m);
      if (attempts === 1) throw new Error('consumer killed after its commit, before acknowledging');
      done();
    },
  });
  await bus.start();
  await bus.publish(events.paymentConfirmationReceived.topic, [{ id: randomUUID(), key: String(agentId), value: confirmation(agentId, 0, 25) }]);
  await Promise.race([finished, new Promise((_, reject) => setTimeout(() => reject(new Error('no redelivery within 30 s')), 30_000))]);
  return { attempts };
}

describe('payment confirmations on PGlite', () => {
  let database: Database | undefined;
  let prisma: PrismaClient | undefined;
  beforeAll(async () => {
    database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
    await migrate({ ...serviceLayout(serviceDir), database });
    prisma = (await openPrisma(PrismaClient, database)).prisma;
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await database?.close();
  });

  confirmationProperties(() => prisma!, 30);

  it('a consumer killed between its commit and the acknowledgement grants once (in-process bus)', async () => {
    const bus = new InProcessBus({ logger });
    try {
      const { attempts } = await crashAfterCommit(bus, prisma!, 900_001);
      expect(attempts).toBe(2);
      expect((await getBalance({ prisma: prisma! }, 900_001)).credits).toBe(25);
      expect(await prisma!.ledgerEntry.count({ where: { agentId: 900_001 } })).toBe(1);
    } finally {
      await bus.stop();
    }
  });
});

describeWithInfra(['postgres', 'kafka'], 'payment confirmations on Postgres and Kafka', () => {
  let db: TestDatabase | undefined;
  let prisma: PrismaClient | undefined;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    db = await createTestDatabase({ label: 'billing_confirmations' });
    await migrate({ ...serviceLayout(serviceDir), database: { kind: 'postgres', url: db.url } });
    const open = await openPrisma(PrismaClient, { kind: 'postgres', url: db.url, poolSize: 10 });
    prisma = open.prisma;
    close = open.close;
  });
  afterAll(async () => {
    await close?.();
    await db?.drop();
  });

  confirmationProperties(() => prisma!, 15);

  it('a consumer killed between its commit and the acknowledgement grants once (Kafka redelivers)', async () => {
    const topicPrefix = uniqueTopicPrefix('billing-crash');
    const bus = new KafkaBus({ brokers: infraUrls().kafkaBrokers, clientId: 'billing-crash-test', topicPrefix, logger });
    try {
      const { attempts } = await crashAfterCommit(bus, prisma!, 900_002);
      expect(attempts).toBe(2);
      expect((await getBalance({ prisma: prisma! }, 900_002)).credits).toBe(25);
      expect(await prisma!.ledgerEntry.count({ where: { agentId: 900_002 } })).toBe(1);
    } finally {
      await bus.stop();
      await deleteTopicsWithPrefix(topicPrefix);
    }
  }, 60_000);
});
