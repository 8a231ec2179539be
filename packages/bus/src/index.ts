/**
 * @cardlens/bus: the message bus (KafkaBus or InProcessBus behind one `Bus` interface), the
 * transactional outbox and idempotent consumers.
 *
 * Wiring (services/<name>/src/main.ts):
 *
 *   const bus: Bus = config.kafkaBrokers
 *     ? new KafkaBus({ brokers: config.kafkaBrokers, clientId: 'billing', logger, topics: ['payments.confirmed'] })
 *     : sharedInProcessBus; // all-in-one: ONE InProcessBus for every service of the process
 *   const tables = busTables('billing');
 *   const relay = new OutboxRelay({ prisma, table: tables.outbox, bus, logger });
 *   await bus.subscribe({
 *     topic: 'scans.graded',
 *     groupId: 'billing',
 *     handler: idempotentConsumer(prisma, tables.processedMessages, 'billing', async (message, tx) => {
 *       await tx.ledgerEntry.create({ data: ... }); // same transaction as the processed-message record
 *     }),
 *   });
 *   await bus.start();
 *   relay.start();
 *   // shutdown: await relay.stop(); await bus.stop();
 *
 * A use case publishing through the outbox:
 *
 *   await prisma.$transaction(async (tx) => {
 *     await tx.creditAccount.update({ ... });
 *     await enqueueOutbox(tx, tables.outbox, { topic: 'payments.confirmed', key: String(agentId), value: bytes });
 *   });
 *   relay.nudge(); // publish now rather than at the next poll
 */
export {
  DEFAULT_RETRY,
  DLQ_HEADERS,
  MESSAGE_ID_HEADER,
  deadLetterTopic,
  silentLogger,
  type Bus,
  type BusLogger,
  type BusMessage,
  type Headers,
  type MessageHandler,
  type OutgoingMessage,
  type RetryPolicy,
  type SubscribeOptions,
  type Subscription,
} from './types';
export { InProcessBus, type InProcessBusOptions } from './in-process-bus';
export { KafkaBus, type KafkaBusOptions } from './kafka-bus';
export { kafkaSecurityOptions, type KafkaSecurity } from './kafka-security';
export {
  OutboxRelay,
  busTables,
  enqueueOutbox,
  idempotentConsumer,
  publishOutboxRowNow,
  type BusTables,
  type PublishNowOptions,
  type OutboxMessage,
  type OutboxRelayOptions,
  type RawSql,
  type TransactionRunner,
} from './outbox';
export { BUS_PRISMA_MODELS, BUS_TABLES_SQL, forSchema } from './outbox-schema';
