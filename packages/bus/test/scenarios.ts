// Outbox scenarios shared by the Postgres and PGlite test files.
import { expect } from '@jest/globals';
import { OutboxRelay, enqueueOutbox, idempotentConsumer, type Bus } from '../src/index';
import { tables } from './db';
import type { PrismaClient } from './generated/prisma/client';
import { bytes, delay, text, waitFor } from './support';

export async function countRows(prisma: PrismaClient, query: string): Promise<number> {
  const rows = await prisma.$queryRawUnsafe<{ n: bigint }[]>(query);
  return Number(rows[0]!.n);
}

/** The bus with publish() replaced, to inject failures or record what a relay sends. */
export function withPublish(bus: Bus, publish: Bus['publish']): Bus {
  return {
    start: () => bus.start(),
    stop: () => bus.stop(),
    ensureTopics: (topics) => bus.ensureTopics(topics),
    subscribe: (options) => bus.subscribe(options),
    publish,
  };
}

/** Publishes for real and then fails, as a relay that dies before marking its rows would. */
export const crashAfterPublish = (bus: Bus) =>
  withPublish(bus, async (topic, messages) => {
    await bus.publish(topic, messages);
    throw new Error('relay process died after publishing');
  });

/**
 * Three messages enqueued with their state change; a relay publishes them and dies before marking
 * the rows; a second relay publishes them again; the idempotent consumer applies each effect once.
 */
export async function exactlyOnceAfterRelayCrash(prisma: PrismaClient, bus: Bus, topic: string, groupId: string): Promise<void> {
  const deliveries: string[] = [];
  await bus.subscribe({
    topic,
    groupId,
    handler: idempotentConsumer(prisma, tables.processedMessages, groupId, async (message, tx) => {
      // tx is the generated client's transaction type: model delegates are available.
      await tx.effect.create({ data: { messageId: message.id, label: text(message.value) } });
    }),
  });
  const audit = await bus.subscribe({ topic, groupId: `${groupId}-audit`, handler: async (m) => void deliveries.push(m.id) });

  const ids = await prisma.$transaction(async (tx) => {
    const out: string[] = [];
    for (const label of ['a', 'b', 'c']) out.push(await enqueueOutbox(tx, tables.outbox, { topic, key: 'order-1', value: bytes(label) }));
    return out;
  });
  const stillUnpublished = () =>
    countRows(prisma, `SELECT count(*) AS n FROM ${tables.outbox} WHERE id::text IN ('${ids.join("','")}') AND published_at IS NULL`);

  const crashing = new OutboxRelay({ prisma, table: tables.outbox, bus: crashAfterPublish(bus) });
  await expect(crashing.publishBatch()).rejects.toThrow(/died after publishing/);
  expect(await stillUnpublished()).toBe(3);

  expect(await new OutboxRelay({ prisma, table: tables.outbox, bus }).publishBatch()).toBe(3);
  expect(await stillUnpublished()).toBe(0);

  await waitFor(() => deliveries.length === 6, 30_000, 'both publishes delivered');
  const processed = `SELECT count(*) AS n FROM ${tables.processedMessages} WHERE consumer_group = '${groupId}'`;
  await waitFor(async () => (await countRows(prisma, processed)) === 3, 30_000, 'processed records');
  await delay(200); // let any late duplicate be handled before counting effects
  expect(deliveries.sort()).toEqual([...ids, ...ids].sort());
  const effects = await prisma.effect.findMany({ where: { messageId: { in: ids } }, orderBy: { messageId: 'asc' } });
  expect(effects.map((e) => e.messageId)).toEqual([...ids].sort());
  expect(effects.map((e) => e.label).sort()).toEqual(['a', 'b', 'c']);
  await audit.stop();
}
