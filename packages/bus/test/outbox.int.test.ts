import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import { deleteTopicsWithPrefix, describeWithInfra, infraUrls, uniqueTopicPrefix } from '@cardlens/testing';
import { InProcessBus, KafkaBus, OutboxRelay, enqueueOutbox, idempotentConsumer, type BusMessage } from '../src/index';
import { createBusTestDatabase, tables, type BusTestDatabase } from './db';
import { countRows as count, exactlyOnceAfterRelayCrash, withPublish } from './scenarios';
import { bytes, delay, installTracing, text, waitFor } from './support';

let t: BusTestDatabase;
let unique = 0;
/** Topic names unique within this file's run (the database is fresh per file). */
const newTopic = () => `outbox-test-${++unique}`;
const countRows = (query: string) => count(t.prisma, query);
const unpublished = () => countRows(`SELECT count(*) AS n FROM ${tables.outbox} WHERE published_at IS NULL`);

describeWithInfra('postgres', 'transactional outbox (Postgres, in-process bus)', () => {
  let bus: InProcessBus;

  beforeAll(async () => {
    installTracing();
    t = await createBusTestDatabase('bus_outbox');
    bus = new InProcessBus();
    await bus.start();
  });

  afterAll(async () => {
    await bus?.stop();
    await t?.close();
  });

  // Relays drain the whole table: rows one test leaves behind must not reach the next one's relay.
  afterEach(async () => {
    await t?.sql.query(`DELETE FROM ${tables.outbox}`);
  });

  it('writes the message in the caller transaction: committed with the state change, gone on rollback', async () => {
    const topic = newTopic();
    const { provider } = installTracing();
    let traceId = '';
    const id = await provider.getTracer('test').startActiveSpan('use case', async (span) => {
      traceId = span.spanContext().traceId;
      try {
        return await t.prisma.$transaction(async (tx) => {
          await tx.effect.create({ data: { messageId: 'state', label: 'committed' } });
          return enqueueOutbox(tx, tables.outbox, { topic, key: 'agent-1', value: bytes('{"credits":5}'), headers: { 'x-kind': 'grant' } });
        });
      } finally {
        span.end();
      }
    });
    const row = await t.prisma.outboxMessage.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ topic, key: 'agent-1', publishedAt: null });
    expect(text(row.payload)).toBe('{"credits":5}');
    expect(row.headers).toMatchObject({ 'x-kind': 'grant', traceparent: expect.stringContaining(traceId) });

    await expect(
      t.prisma.$transaction(async (tx) => {
        await tx.effect.create({ data: { messageId: 'state', label: 'rolled back' } });
        await enqueueOutbox(tx, tables.outbox, { topic, key: 'agent-1', value: bytes('lost') });
        throw new Error('use case failed');
      }),
    ).rejects.toThrow('use case failed');
    expect(await countRows(`SELECT count(*) AS n FROM ${tables.outbox} WHERE topic = '${topic}'`)).toBe(1);
    expect(await countRows(`SELECT count(*) AS n FROM bus_test.effects WHERE label = 'rolled back'`)).toBe(0);
  });

  it('relays rows in created order, marks them published, and carries the enqueuing trace to the consumer', async () => {
    const topic = newTopic();
    await bus.ensureTopics([topic]);
    const got: { message: BusMessage; traceId?: string }[] = [];
    await bus.subscribe({
      topic,
      groupId: 'billing',
      handler: async (message) => void got.push({ message, traceId: trace.getActiveSpan()?.spanContext().traceId }),
    });
    const { provider } = installTracing();
    let traceId = '';
    const ids = await provider.getTracer('test').startActiveSpan('use case', async (span) => {
      traceId = span.spanContext().traceId;
      const result = await t.prisma.$transaction(async (tx) => {
        const out: string[] = [];
        for (let i = 0; i < 5; i++) out.push(await enqueueOutbox(tx, tables.outbox, { topic, key: 'agent-2', value: bytes(String(i)) }));
        return out;
      });
      span.end();
      return result;
    });
    // Poll interval far away: only nudge() can make this fast.
    const relay = new OutboxRelay({ prisma: t.prisma, table: tables.outbox, bus, pollIntervalMs: 60_000 });
    relay.start();
    try {
      await waitFor(() => got.length === 5, 5_000, 'initial poll');
      expect(got.map((g) => g.message.id)).toEqual(ids);
      expect(got.map((g) => text(g.message.value))).toEqual(['0', '1', '2', '3', '4']);
      expect(got.every((g) => g.traceId === traceId)).toBe(true);
      // Delivery may beat the relay's commit; the rows are marked once it commits.
      await waitFor(async () => (await unpublished()) === 0, 5_000, 'rows marked published');

      const more = await t.prisma.$transaction((tx) => enqueueOutbox(tx, tables.outbox, { topic, key: 'agent-2', value: bytes('5') }));
      relay.nudge();
      await waitFor(() => got.length === 6, 2_000, 'nudged publish');
      expect(got[5]!.message.id).toBe(more);
    } finally {
      const stopping = Date.now();
      await relay.stop();
      expect(Date.now() - stopping).toBeLessThan(1_000);
    }
  });

  it('leaves rows for the next round when publishing fails', async () => {
    const topic = newTopic();
    await bus.ensureTopics([topic]);
    let failNext = true;
    const flaky = withPublish(bus, async (name, messages) => {
      if (failNext) {
        failNext = false;
        throw new Error('broker unavailable');
      }
      return bus.publish(name, messages);
    });
    await t.prisma.$transaction((tx) => enqueueOutbox(tx, tables.outbox, { topic, key: 'k', value: bytes('x') }));
    const relay = new OutboxRelay({ prisma: t.prisma, table: tables.outbox, bus: flaky });
    await expect(relay.publishBatch()).rejects.toThrow('broker unavailable');
    expect(await unpublished()).toBe(1);
    expect(await relay.publishBatch()).toBe(1);
    expect(await unpublished()).toBe(0);
  });

  it('applies each effect exactly once after a relay crash between publish and commit', async () => {
    const topic = newTopic();
    await bus.ensureTopics([topic]);
    await exactlyOnceAfterRelayCrash(t.prisma, bus, topic, 'grading');
  });

  it('rolls back the processed record with the failed handler, so the redelivery applies the effect', async () => {
    const topic = newTopic();
    await bus.ensureTopics([topic]);
    let calls = 0;
    await bus.subscribe({
      topic,
      groupId: 'valuation',
      retry: { attempts: 3, initialBackoffMs: 5, maxBackoffMs: 10 },
      handler: idempotentConsumer(t.prisma, tables.processedMessages, 'valuation', async (message, tx) => {
        calls++;
        await tx.effect.create({ data: { messageId: message.id, label: 'retried' } });
        if (message.attempt === 1) throw new Error('price service timeout');
      }),
    });
    await bus.publish(topic, [{ key: 'card-1', value: bytes('x'), id: 'retry-me' }]);
    await waitFor(() => calls === 2, 5_000, 'redelivery');
    await delay(100);
    expect(await countRows(`SELECT count(*) AS n FROM bus_test.effects WHERE message_id = 'retry-me'`)).toBe(1);
    expect(await countRows(`SELECT count(*) AS n FROM ${tables.processedMessages} WHERE message_id = 'retry-me'`)).toBe(1);
  });

  it('lets concurrent relays take disjoint batches (SKIP LOCKED): each row is published once', async () => {
    const topic = newTopic();
    const published: string[] = [];
    const recording = withPublish(bus, async (_topic, messages) => {
      await delay(5); // keep each batch's transaction open while the other relays poll
      published.push(...messages.map((m) => m.id!));
    });
    await t.prisma.$transaction(async (tx) => {
      for (let i = 0; i < 200; i++) await enqueueOutbox(tx, tables.outbox, { topic, key: `k${i % 7}`, value: bytes(String(i)) });
    });
    const relays = Array.from({ length: 4 }, () => new OutboxRelay({ prisma: t.prisma, table: tables.outbox, bus: recording, batchSize: 10 }));
    const drain = async (relay: OutboxRelay) => {
      while ((await relay.publishBatch()) > 0);
    };
    await Promise.all(relays.map(drain));
    expect(published).toHaveLength(200);
    expect(new Set(published).size).toBe(200);
    expect(await unpublished()).toBe(0);
  });
});

describeWithInfra(['postgres', 'kafka'], 'transactional outbox (Postgres, Kafka)', () => {
  const prefix = uniqueTopicPrefix('outbox');
  let bus: KafkaBus;

  beforeAll(async () => {
    t = await createBusTestDatabase('bus_outbox_kafka'); // the block above dropped its database
    bus = new KafkaBus({ brokers: infraUrls().kafkaBrokers, clientId: 'outbox-test', partitions: 2 });
    await bus.start();
  });

  afterAll(async () => {
    await bus?.stop();
    await t?.close();
    await deleteTopicsWithPrefix(prefix).catch(() => {});
  });

  it('applies each effect exactly once after a relay crash between publish and commit', async () => {
    const topic = `${prefix}payments`;
    await bus.ensureTopics([topic]);
    await exactlyOnceAfterRelayCrash(t.prisma, bus, topic, `${prefix}billing`);
  });
});
