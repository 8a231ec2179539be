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
export {
  OutboxRelay,
  busTables,
  enqueueOutbox,
  idempotentConsumer,
  type BusTables,
  type OutboxMessage,
  type OutboxRelayOptions,
  type RawSql,
  type TransactionRunner,
} from './outbox';
export { BUS_PRISMA_MODELS, BUS_TABLES_SQL, forSchema } from './outbox-schema';
