// The embedded mode: every service on one single-connection PGlite, with the in-process bus.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDatabase, createThrowawayPGlite, type PGlite } from '@cardlens/db';
import { InProcessBus, OutboxRelay, enqueueOutbox, idempotentConsumer, publishOutboxRowNow } from '../src/index';
import { TEST_SCHEMA_SQL, tables } from './db';
import { PrismaClient } from './generated/prisma/client';
import { countRows, exactlyOnceAfterRelayCrash, withPublish } from './scenarios';
import { bytes, waitFor } from './support';

describe('transactional outbox (PGlite, in-process bus)', () => {
  let pglite: PGlite;
  let prisma: PrismaClient;
  let bus: InProcessBus;

  beforeAll(async () => {
    pglite = await createThrowawayPGlite();
    await pglite.exec(TEST_SCHEMA_SQL);
    prisma = new PrismaClient((await createDatabase({ kind: 'pglite', pglite })).clientArgs);
    bus = new InProcessBus({ topics: ['grades', 'payments'] });
    await bus.start();
  });

  afterAll(async () => {
    await bus?.stop();
    await prisma?.$disconnect();
    await pglite?.close();
  });

  it('applies each effect exactly once after a relay crash between publish and commit', async () => {
    await exactlyOnceAfterRelayCrash(prisma, bus, 'payments', 'billing');
  });

  it('runs relay and idempotent consumers on the one connection without deadlocking', async () => {
    // The relay publishes inside its transaction; in-process delivery is asynchronous, so the
    // consumers' transactions simply queue behind it on the shared connection.
    await bus.subscribe({
      topic: 'grades',
      groupId: 'valuation',
      handler: idempotentConsumer(prisma, tables.processedMessages, 'valuation', async (message, tx) => {
        await tx.effect.create({ data: { messageId: message.id, label: 'graded' } });
      }),
    });
    const relay = new OutboxRelay({ prisma, table: tables.outbox, bus, batchSize: 7, pollIntervalMs: 60_000 });
    relay.start();
    try {
      for (let i = 0; i < 20; i++) {
        await prisma.$transaction((tx) => enqueueOutbox(tx, tables.outbox, { topic: 'grades', key: `scan-${i % 3}`, value: bytes(String(i)) }));
        relay.nudge();
      }
      await waitFor(async () => (await countRows(prisma, `SELECT count(*) AS n FROM bus_test.effects WHERE label = 'graded'`)) === 20, 20_000, 'effects');
      expect(await countRows(prisma, `SELECT count(*) AS n FROM ${tables.outbox} WHERE published_at IS NULL`)).toBe(0);
    } finally {
      await relay.stop();
    }
  });

  describe('publishOutboxRowNow', () => {
    const enqueue = (label: string, holdMs = 10_000) =>
      prisma.$transaction(async (tx) => {
        await tx.effect.create({ data: { messageId: label, label: 'state-change' } });
        return enqueueOutbox(tx, tables.outbox, { topic: 'payments', key: label, value: bytes(label) }, { holdMs });
      });
    const published = async (id: string) =>
      countRows(prisma, `SELECT count(*) AS n FROM ${tables.outbox} WHERE id = '${id}' AND published_at IS NOT NULL`);

    it('publishes the row at once and marks it, so the relay has nothing left to send', async () => {
      const sent: string[] = [];
      const recording = withPublish(bus, async (topic, messages) => {
        sent.push(...messages.map((m) => m.id!));
        await bus.publish(topic, messages);
      });
      const id = await enqueue('now-ok');
      const onFailure = async () => {
        throw new Error('not expected');
      };
      await expect(publishOutboxRowNow({ prisma, table: tables.outbox, bus: recording, id, timeoutMs: 2000, onFailure })).resolves.toBe(true);
      expect(sent).toEqual([id]);
      expect(await published(id)).toBe(1);
      // A second call finds it published and sends nothing.
      await expect(publishOutboxRowNow({ prisma, table: tables.outbox, bus: recording, id, timeoutMs: 2000, onFailure })).resolves.toBe(true);
      expect(sent).toEqual([id]);
    });

    it('when the bus refuses or does not answer in time: deletes the row and lets the caller undo in the same transaction', async () => {
      for (const [label, publish] of [
        ['now-refused', async () => Promise.reject(new Error('broker down'))],
        ['now-silent', () => new Promise<void>(() => {})],
      ] as const) {
        const id = await enqueue(label);
        const failing = withPublish(bus, publish);
        const outcome = await publishOutboxRowNow({
          prisma,
          table: tables.outbox,
          bus: failing,
          id,
          timeoutMs: 300,
          onFailure: async (tx) => {
            await tx.effect.deleteMany({ where: { messageId: label } });
          },
        });
        expect(outcome).toBe(false);
        expect(await countRows(prisma, `SELECT count(*) AS n FROM ${tables.outbox} WHERE id = '${id}'`)).toBe(0);
        expect(await countRows(prisma, `SELECT count(*) AS n FROM bus_test.effects WHERE message_id = '${label}'`)).toBe(0);
      }
    });

    it('a held row is left to its publisher: the relay takes it only once the hold has run out (the publisher died)', async () => {
      const relay = new OutboxRelay({ prisma, table: tables.outbox, bus });
      const id = await enqueue('held', 400);
      expect(await relay.publishBatch()).toBe(0);
      expect(await published(id)).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await relay.publishBatch()).toBe(1);
      expect(await published(id)).toBe(1);
    });

    it('holds no transaction while the bus is waited on: the database serves other work meanwhile', async () => {
      const id = await enqueue('now-free');
      let settled = false;
      const outcome = publishOutboxRowNow({
        prisma,
        table: tables.outbox,
        bus: withPublish(bus, () => new Promise<void>(() => {})),
        id,
        timeoutMs: 1500,
        onFailure: async () => {},
      }).finally(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      // PGlite has one connection: a transaction held across the publish would keep this one waiting.
      await prisma.$transaction((tx) => tx.effect.count(), { maxWait: 1000 });
      expect(settled).toBe(false);
      await expect(outcome).resolves.toBe(false);
    });

    it('a publish that fails after the relay sent the row (its hold ran out) counts as accepted and undoes nothing', async () => {
      const id = await enqueue('now-late', 0);
      const relay = new OutboxRelay({ prisma, table: tables.outbox, bus });
      const onFailure = async () => {
        throw new Error('not expected');
      };
      const outcome = await publishOutboxRowNow({
        prisma,
        table: tables.outbox,
        bus: withPublish(bus, async () => {
          await relay.publishBatch();
          throw new Error('broker timed out');
        }),
        id,
        timeoutMs: 2000,
        onFailure,
      });
      expect(outcome).toBe(true);
      expect(await published(id)).toBe(1);
      expect(await countRows(prisma, `SELECT count(*) AS n FROM bus_test.effects WHERE message_id = 'now-late'`)).toBe(1);
    });
  });
});
