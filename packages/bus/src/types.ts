/** Header carrying the message id consumers deduplicate on (the outbox row id for relayed messages). */
export const MESSAGE_ID_HEADER = 'cl-message-id';

/** Headers added to a dead-lettered message, next to all of its original headers. */
export const DLQ_HEADERS = {
  error: 'cl-dlq-error',
  attempts: 'cl-dlq-attempts',
  sourceTopic: 'cl-dlq-source-topic',
  consumerGroup: 'cl-dlq-consumer-group',
  failedAt: 'cl-dlq-failed-at',
} as const;

export const deadLetterTopic = (topic: string): string => `${topic}.dlq`;

export type Headers = Record<string, string>;

export interface OutgoingMessage {
  /** Aggregate key (scan id, agent id...): messages with one key are delivered in publish order. */
  key: string;
  value: Uint8Array;
  /** Explicit headers win over the injected trace context, so relayed outbox rows keep their own. */
  headers?: Headers;
  /** Defaults to a random UUID. */
  id?: string;
}

export interface BusMessage {
  id: string;
  topic: string;
  key: string;
  value: Buffer;
  headers: Headers;
  /** 1 on first delivery to this handler, then 2, 3... while retrying. */
  attempt: number;
  /**
   * Aborted when the consumer stops: a handler that waits (for a turn on a shared resource) gives up and throws,
   * and the message stays uncommitted, to be delivered again.
   */
  signal: AbortSignal;
  /** For a handler that may wait long: tells Kafka's group coordinator the consumer is alive (in process: nothing). */
  heartbeat: () => Promise<void>;
}

/** A message as the bus holds it, before a delivery gives it an attempt number, a stop signal and a heartbeat. */
export type ReceivedMessage = Omit<BusMessage, 'attempt' | 'signal' | 'heartbeat'>;

export type MessageHandler = (message: BusMessage) => Promise<void>;

export interface RetryPolicy {
  /** Deliveries before the message goes to `<topic>.dlq` (1 = no retry). */
  attempts: number;
  /** Doubles per retry, with jitter. */
  initialBackoffMs: number;
  /** Keep it well under Kafka's session timeout (30 s): a consumer heartbeats only between attempts. */
  maxBackoffMs: number;
}

/** Five deliveries over roughly 4-8 s; meanwhile later messages of the partition wait (per-key order). */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, initialBackoffMs: 500, maxBackoffMs: 10_000 };

export interface SubscribeOptions {
  topic: string;
  /** Every group receives every message; within a group each message goes to one handler. */
  groupId: string;
  handler: MessageHandler;
  retry?: Partial<RetryPolicy>;
  /**
   * How many different keys of one partition may be handled at once (default 1: one message at a time per
   * partition). Messages of one key stay in publish order either way. For handlers whose messages of different
   * keys are independent (billing's payment confirmations, keyed by agent, so a burst is not held to one database
   * round trip after another; scan jobs, keyed by scan, so every waiting scan reaches the worker's first-come
   * queue instead of waiting behind its partition's earlier ones). Kafka runs a fetched batch's keys side by side
   * and commits when the batch is done; the in-process bus keeps up to this many messages of a partition in
   * flight and moves its cursor past a message once every earlier one is done.
   */
  keyConcurrency?: number;
  /**
   * Where a group that has no committed position starts: `earliest` (default), so nothing published before its
   * first start is missed; or `latest`, for a group that only needs what happens from now on (the gateway's
   * per-replica balance invalidations, whose cache starts empty).
   */
  startFrom?: 'earliest' | 'latest';
}

export interface Subscription {
  /** Finishes the delivery in progress (or abandons its backoff, uncommitted) and stops consuming. */
  stop(): Promise<void>;
}

/**
 * The message bus: Kafka in the distributed deployment, in-process in the embedded one. Both give
 * at-least-once delivery, per-key ordering, consumer groups, retries with backoff, then `<topic>.dlq`.
 */
export interface Bus {
  /** Creates the configured topics and starts the consumers subscribed so far. */
  start(): Promise<void>;
  /** Stops consumers (letting in-flight handlers finish), then the producer. */
  stop(): Promise<void>;
  /** Creates missing topics; called before start(), they are created by start(). */
  ensureTopics(topics: string[]): Promise<void>;
  /** Resolves once the messages are durably accepted (Kafka: acks=all); delivery is always asynchronous. */
  publish(topic: string, messages: OutgoingMessage[]): Promise<void>;
  /** Creates the topic and its dead-letter topic; consumption begins at start() (or now, if started). */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
}

/** The subset of a pino logger the bus uses, so any pino instance (or child) fits. */
export interface BusLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: BusLogger = { debug() {}, info() {}, warn() {}, error() {} };
