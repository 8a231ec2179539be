import { Kafka, logLevel, type KafkaMessage, Partitioners, type Admin, type Consumer, type IHeaders, type LogEntry, type Producer } from 'kafkajs';
import { gauge } from '@cardlens/telemetry';
import { kafkaSecurityOptions, type KafkaSecurity } from './kafka-security';
import { stopIdleQueueChecks } from './kafkajs-idle-queue';
import { deadLetterHeaders, deliverWithRetry, DeliveryAborted, publishTraced, retryPolicy } from './delivery';
import {
  deadLetterTopic,
  MESSAGE_ID_HEADER,
  silentLogger,
  type Bus,
  type BusLogger,
  type Headers,
  type OutgoingMessage,
  type SubscribeOptions,
  type Subscription,
} from './types';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  /** TLS and SASL for brokers that require them (KAFKA_SSL*, KAFKA_SASL_* through @cardlens/config). */
  security?: KafkaSecurity;
  /** kafkajs' own logs go here (never to the console); without one they are dropped. */
  logger?: BusLogger;
  /** Topics (besides subscribed ones and their .dlq) created by start(). */
  topics?: string[];
  /** For topics this bus creates. */
  partitions?: number;
  /** 1 for a single local broker; 3 in production. */
  replicationFactor?: number;
  /**
   * Namespace for every topic on the cluster (e.g. `staging.`), so environments or test runs can share one
   * Kafka without reading each other's messages. Callers keep using the logical names.
   */
  topicPrefix?: string;
  /**
   * How long the group waits for a silent consumer before giving its partitions to the others (kafkajs
   * default 30 s). A worker that dies mid-message leaves that message to a live one after this long.
   */
  sessionTimeoutMs?: number;
}

const consumerLag = gauge('cardlens_kafka_consumer_lag_messages', 'Messages between a consumer group\'s position and the end of the partition, after its last batch.', ['topic', 'group', 'partition']);
/** Tries of createTopics when a concurrent creation leaves the broker's metadata behind (see ensureTopics). */
const TOPIC_CREATION_ATTEMPTS = 5;

interface ConsumerEntry {
  options: SubscribeOptions;
  abort: AbortController;
  consumer?: Consumer;
}

export class KafkaBus implements Bus {
  private readonly kafka: Kafka;
  private readonly logger: BusLogger;
  private readonly producer: Producer;
  private readonly admin: Admin;
  private readonly consumers = new Set<ConsumerEntry>();
  private readonly knownTopics = new Set<string>();
  private readonly declared: string[];
  private state: 'new' | 'starting' | 'started' | 'stopping' | 'stopped' = 'new';

  constructor(private readonly options: KafkaBusOptions) {
    this.logger = options.logger ?? silentLogger;
    // kafkajs would otherwise run a 1 ms timer on each idle broker connection (kafkajs-idle-queue.ts).
    stopIdleQueueChecks();
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      ...kafkaSecurityOptions(options.security),
      logLevel: options.logger ? logLevel.INFO : logLevel.NOTHING,
      logCreator: () => (entry) => this.logKafka(entry),
    });
    this.producer = this.kafka.producer({
      // The broker drops retried duplicates of a batch (producer id + sequence numbers). kafkajs
      // requires acks=-1 for this and retries must stay unlimited (its default when idempotent);
      // one in-flight request per connection keeps sequences in order, as KIP-98 specified.
      idempotent: true,
      maxInFlightRequests: 1,
      // Publishing to an undeclared topic fails instead of silently creating it with broker defaults.
      allowAutoTopicCreation: false,
      // Explicit, which also silences kafkajs' "default partitioner changed" warning.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    this.admin = this.kafka.admin();
    this.declared = [...(options.topics ?? [])];
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`bus is ${this.state}`);
    this.state = 'starting';
    try {
      await this.admin.connect();
      await this.producer.connect();
      const subscribed = [...this.consumers].flatMap((c) => [c.options.topic, deadLetterTopic(c.options.topic)]);
      await this.ensureTopics([...this.declared, ...subscribed]);
      this.state = 'started';
      await Promise.all([...this.consumers].map((c) => this.run(c)));
    } catch (err) {
      // Back to 'new' so the caller can retry start() (e.g. while the broker is still coming up).
      await Promise.allSettled([...[...this.consumers].map((c) => c.consumer?.disconnect()), this.producer.disconnect(), this.admin.disconnect()]);
      for (const c of this.consumers) c.consumer = undefined;
      this.state = 'new';
      throw err;
    }
  }

  async stop(): Promise<void> {
    if (this.state === 'stopped' || this.state === 'stopping') return;
    if (this.state === 'new') {
      this.state = 'stopped';
      return;
    }
    this.state = 'stopping';
    // Consumers first: one still dead-lettering a message needs the producer.
    await Promise.all([...this.consumers].map((c) => this.halt(c)));
    await this.producer.disconnect();
    await this.admin.disconnect();
    this.state = 'stopped';
  }

  async ensureTopics(topics: string[]): Promise<void> {
    if (this.state === 'new') {
      this.declared.push(...topics); // created by start(), once the admin client is connected
      return;
    }
    const missing = [...new Set(topics.map((t) => this.physical(t)))].filter((t) => !this.knownTopics.has(t));
    if (missing.length === 0) return;
    // createTopics skips topics that already exist, so every instance can run this on start. When two services
    // create one topic at the same moment, the loser's wait for leaders can read metadata the broker has not caught
    // up with (UNKNOWN_TOPIC_OR_PARTITION, which kafkajs does not retry there): that is retried here.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((topic) => ({
            topic,
            numPartitions: this.options.partitions ?? 3,
            replicationFactor: this.options.replicationFactor ?? 1,
          })),
        });
        break;
      } catch (error) {
        if ((error as { type?: string }).type !== 'UNKNOWN_TOPIC_OR_PARTITION' || attempt >= TOPIC_CREATION_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
    for (const t of missing) this.knownTopics.add(t);
  }

  async publish(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (this.state !== 'started' && this.state !== 'stopping') throw new Error(`cannot publish: bus is ${this.state}`);
    if (messages.length === 0) return;
    await publishTraced(topic, messages, async (prepared) => {
      const send = () =>
        this.producer.send({
          topic: this.physical(topic),
          acks: -1,
          messages: prepared.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
        });
      try {
        await send();
      } catch (error) {
        if (!isUnknownTopic(error)) throw error;
        // The topic is gone (a broker rebuilt without its data): create it again and send once more, rather
        // than fail every publish until the process restarts. Its subscribers pick it up as they rejoin.
        this.logger.warn({ topic }, 'topic missing on publish; creating it again');
        this.knownTopics.delete(this.physical(topic));
        await this.ensureTopics([topic]);
        await send();
      }
    });
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.state === 'stopping' || this.state === 'stopped') throw new Error(`bus is ${this.state}`);
    retryPolicy(options.retry); // validate now rather than in the first delivery
    const entry: ConsumerEntry = { options, abort: new AbortController() };
    this.consumers.add(entry);
    if (this.state === 'started') {
      await this.ensureTopics([options.topic, deadLetterTopic(options.topic)]);
      await this.run(entry);
    }
    return {
      stop: async () => {
        await this.halt(entry);
        this.consumers.delete(entry);
      },
    };
  }

  private async run(entry: ConsumerEntry): Promise<void> {
    const { topic, groupId, handler } = entry.options;
    const policy = retryPolicy(entry.options.retry);
    // maxWaitTimeInMs: an idle fetch long-polls this long, and disconnect() waits for it (default 5 s).
    const consumer = this.kafka.consumer({
      groupId,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 1000,
      // A rebalance waits up to rebalanceTimeout for every member to rejoin, a dead one included; twice the
      // session timeout, as kafkajs' defaults (30 s / 60 s) are.
      ...(this.options.sessionTimeoutMs
        ? {
            sessionTimeout: this.options.sessionTimeoutMs,
            rebalanceTimeout: 2 * this.options.sessionTimeoutMs,
            heartbeatInterval: Math.max(500, Math.floor(this.options.sessionTimeoutMs / 5)),
          }
        : {}),
    });
    entry.consumer = consumer;
    // Consumer lag for Prometheus: how far the group's position is behind the partition's end, after each batch.
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      consumerLag.set({ topic, group: groupId, partition: String(payload.partition) }, Number(payload.offsetLag));
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.logger.error({ topic, groupId, err: payload.error, restart: payload.restart }, 'kafka consumer crashed');
      // The topic is gone (a broker rebuilt without its data): the consumer notices first, and its restart
      // keeps failing until the topic exists, so create it again now rather than on the next publish.
      if (isUnknownTopic(payload.error) && !entry.abort.signal.aborted) {
        this.knownTopics.delete(this.physical(topic));
        this.knownTopics.delete(this.physical(deadLetterTopic(topic)));
        this.ensureTopics([topic, deadLetterTopic(topic)]).then(
          () => this.logger.warn({ topic }, 'subscribed topic was missing; created it again'),
          (err: unknown) => this.logger.warn({ topic, err }, 'could not create the missing subscribed topic yet'),
        );
      }
    });
    await consumer.connect();
    // A new group starts at the oldest retained message, so nothing published before its first start is missed
    // (unless it asked for startFrom: latest).
    await consumer.subscribe({ topics: [this.physical(topic)], fromBeginning: entry.options.startFrom !== 'latest' });
    // kafkajs resolves a message's offset only when eachMessage returns; it commits resolved offsets
    // after each batch and before a rebalance. Returning = handled or dead-lettered; throwing = the
    // partition is re-fetched from that message (at-least-once).
    const deliver = async (partition: number, message: KafkaMessage, heartbeat: () => Promise<void>): Promise<void> => {
      const headers = decodeHeaders(message.headers);
      // A message from a producer outside the bus has no id header; its offset is as stable an id.
      const id = headers[MESSAGE_ID_HEADER] ?? `${topic}/${partition}/${message.offset}`;
      const delivered = { id, topic, key: message.key?.toString() ?? '', value: message.value ?? Buffer.alloc(0), headers };
      const failure = await deliverWithRetry(delivered, groupId, handler, policy, entry.abort.signal, heartbeat);
      if (failure === undefined) return;
      const dlqHeaders = deadLetterHeaders(delivered, groupId, failure, policy.attempts);
      await this.publish(deadLetterTopic(topic), [{ id, key: delivered.key, value: delivered.value, headers: dlqHeaders }]);
      this.logger.warn({ topic, groupId, partition, offset: message.offset, messageId: id }, 'message dead-lettered');
    };
    const keyConcurrency = Math.max(1, Math.floor(entry.options.keyConcurrency ?? 1));
    // Partitions are processed side by side (kafkajs default: one at a time), so a message in retry backoff
    // holds up only its own partition, as in the InProcessBus.
    const partitionsConsumedConcurrently = this.options.partitions ?? 3;
    if (keyConcurrency === 1) {
      // kafkajs resolves a message's offset only when eachMessage returns; it commits resolved offsets
      // after each batch and before a rebalance. Returning = handled or dead-lettered; throwing = the
      // partition is re-fetched from that message (at-least-once).
      await consumer.run({
        partitionsConsumedConcurrently,
        eachMessage: async ({ partition, message, heartbeat }) => deliver(partition, message, heartbeat),
      });
      return;
    }
    // A fetched batch is split into lanes by key; up to keyConcurrency lanes run at once, each in offset order.
    // The batch's offsets are resolved (and committed) only once every lane is done, so a stop or a crash
    // mid-batch redelivers the whole batch: handlers must be idempotent (idempotentConsumer), as always.
    await consumer.run({
      partitionsConsumedConcurrently,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
        const lanes = new Map<string, KafkaMessage[]>();
        for (const message of batch.messages) {
          const key = message.key?.toString() ?? '';
          const lane = lanes.get(key);
          if (lane) lane.push(message);
          else lanes.set(key, [message]);
        }
        const waiting = [...lanes.values()];
        const runLanes = async (): Promise<void> => {
          for (let lane = waiting.shift(); lane; lane = waiting.shift()) {
            for (const message of lane) await deliver(batch.partition, message, heartbeat);
          }
        };
        await Promise.all(Array.from({ length: Math.min(keyConcurrency, waiting.length) }, runLanes));
        const last = batch.messages.at(-1);
        if (last) resolveOffset(last.offset);
        await heartbeat();
      },
    });
  }

  private physical(topic: string): string {
    return (this.options.topicPrefix ?? '') + topic;
  }

  private async halt(entry: ConsumerEntry): Promise<void> {
    entry.abort.abort(); // cuts retry backoffs short; the aborted message stays uncommitted
    await entry.consumer?.disconnect(); // waits for the in-flight eachMessage, commits, leaves the group
    entry.consumer = undefined;
  }

  private logKafka({ namespace, level, log }: LogEntry): void {
    const { message, timestamp: _timestamp, ...rest } = log;
    const fields = { ...rest, kafkaNamespace: namespace };
    if (level === logLevel.ERROR) {
      // kafkajs reports our own DeliveryAborted (thrown on purpose while stopping) as an error.
      if (rest.error instanceof DeliveryAborted) return;
      this.logger.error(fields, message);
    } else if (level === logLevel.WARN) this.logger.warn(fields, message);
    else if (level === logLevel.INFO) this.logger.info(fields, message);
    else this.logger.debug(fields, message);
  }
}

/** kafkajs' "This server does not host this topic-partition", possibly wrapped in its retry error. */
function isUnknownTopic(error: unknown): boolean {
  for (let e = error as { type?: string; cause?: unknown; originalError?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (e.type === 'UNKNOWN_TOPIC_OR_PARTITION') return true;
    e = (e.cause ?? e.originalError) as typeof e;
  }
  return /does not host this topic-partition/.test(String((error as Error | undefined)?.message ?? ''));
}

function decodeHeaders(raw: IHeaders | undefined): Headers {
  const headers: Headers = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) headers[name] = first.toString();
  }
  return headers;
}
