// The embedded-mode bus: Kafka's delivery model, in memory. Each topic is split into partitions by
// key hash; every consumer group keeps one cursor per partition and drains each partition with a
// single worker, so per-key order holds, groups are independent, and a message is only "committed"
// (the cursor moves past it) once the handler succeeded or the message was dead-lettered. Nothing
// survives the process, which is what the outbox (rows stay until published) is for.
import { createHash } from 'node:crypto';
import { deadLetterHeaders, deliverWithRetry, DeliveryAborted, publishTraced, retryPolicy, sleep, type PreparedMessage } from './delivery';
import {
  deadLetterTopic,
  silentLogger,
  type Bus,
  type BusLogger,
  type OutgoingMessage,
  type RetryPolicy,
  type SubscribeOptions,
  type Subscription,
} from './types';

export interface InProcessBusOptions {
  logger?: BusLogger;
  /** Topics created by start(), like KafkaBus. */
  topics?: string[];
  partitions?: number;
  /**
   * Consumed messages kept per partition (default 1000), like Kafka's retention: a group that
   * subscribes later starts from the oldest one kept. Messages a known group has not consumed yet
   * are always kept.
   */
  maxRetainedMessages?: number;
}

interface Partition {
  /** Offset of entries[0]. */
  base: number;
  entries: PreparedMessage[];
}

interface Group {
  cursors: number[];
  consumer?: Consumer;
}

interface Consumer {
  options: SubscribeOptions;
  policy: RetryPolicy;
  abort: AbortController;
  /** The worker draining each partition, if one is running. */
  workers: (Promise<void> | undefined)[];
  /** Wakes a partition's running worker that waits on its deliveries, when a message lands beside them. */
  nudges: ((() => void) | undefined)[];
}

interface Topic {
  partitions: Partition[];
  groups: Map<string, Group>;
}

export class InProcessBus implements Bus {
  private readonly topics = new Map<string, Topic>();
  private readonly logger: BusLogger;
  private readonly partitionCount: number;
  private readonly maxRetained: number;
  private state: 'new' | 'started' | 'stopping' | 'stopped' = 'new';

  constructor(private readonly options: InProcessBusOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.partitionCount = options.partitions ?? 3;
    this.maxRetained = options.maxRetainedMessages ?? 1000;
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`bus is ${this.state}`);
    await this.ensureTopics(this.options.topics ?? []);
    this.state = 'started';
    for (const topic of this.topics.values()) this.wake(topic);
  }

  async stop(): Promise<void> {
    if (this.state !== 'started') {
      this.state = 'stopped';
      return;
    }
    // Publishing stays open while consumers wind down, so a failure being dead-lettered is not lost.
    this.state = 'stopping';
    const stops = [...this.topics.values()].flatMap((t) => [...t.groups.values()].map((g) => this.detach(g)));
    await Promise.all(stops);
    this.state = 'stopped';
  }

  async ensureTopics(topics: string[]): Promise<void> {
    for (const name of topics) {
      if (!this.topics.has(name)) {
        const partitions = Array.from({ length: this.partitionCount }, () => ({ base: 0, entries: [] }));
        this.topics.set(name, { partitions, groups: new Map() });
      }
    }
  }

  async publish(topicName: string, messages: OutgoingMessage[]): Promise<void> {
    if (this.state !== 'started' && this.state !== 'stopping') throw new Error(`cannot publish: bus is ${this.state}`);
    const topic = this.topics.get(topicName);
    // Same rule as KafkaBus (no auto-creation), so a missing ensureTopics shows up in embedded mode too.
    if (!topic) throw new Error(`unknown topic ${topicName}: declare it in options.topics or ensureTopics()`);
    await publishTraced(topicName, messages, async (prepared) => {
      for (const message of prepared) {
        const p = this.partitionOf(message.key);
        const partition = topic.partitions[p]!;
        partition.entries.push(message);
        const consumedByAll = Math.min(...[...topic.groups.values()].map((g) => g.cursors[p]!));
        while (partition.entries.length > this.maxRetained && partition.base < consumedByAll) {
          partition.entries.shift();
          partition.base++;
        }
      }
    });
    this.wake(topic);
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.state === 'stopping' || this.state === 'stopped') throw new Error(`bus is ${this.state}`);
    const policy = retryPolicy(options.retry);
    await this.ensureTopics([options.topic, deadLetterTopic(options.topic)]);
    const topic = this.topics.get(options.topic)!;
    let group = topic.groups.get(options.groupId);
    if (!group) {
      // A new group starts at the oldest retained message, like a Kafka group reading from the beginning, or
      // past the newest one (startFrom: latest).
      group = { cursors: topic.partitions.map((p) => (options.startFrom === 'latest' ? p.base + p.entries.length : p.base)) };
      topic.groups.set(options.groupId, group);
    }
    if (group.consumer) throw new Error(`group ${options.groupId} already consumes ${options.topic} in this process`);
    const consumer: Consumer = { options, policy, abort: new AbortController(), workers: [], nudges: [] };
    group.consumer = consumer;
    this.wake(topic);
    const g = group;
    return { stop: () => (g.consumer === consumer ? this.detach(g) : Promise.resolve()) };
  }

  private async detach(group: Group): Promise<void> {
    const consumer = group.consumer;
    if (!consumer) return;
    consumer.abort.abort();
    await Promise.all(consumer.workers);
    if (group.consumer === consumer) group.consumer = undefined;
  }

  private partitionOf(key: string): number {
    return createHash('md5').update(key).digest().readUInt32BE(0) % this.partitionCount;
  }

  /** Starts a worker for each partition where a consuming group is behind. */
  private wake(topic: Topic): void {
    if (this.state !== 'started') return;
    for (const group of topic.groups.values()) {
      const consumer = group.consumer;
      if (!consumer || consumer.abort.signal.aborted) continue;
      topic.partitions.forEach((partition, p) => {
        if (group.cursors[p]! >= partition.base + partition.entries.length) return;
        if (consumer.workers[p]) return consumer.nudges[p]?.();
        // setImmediate: delivery is never inline in publish(), as with a real broker.
        consumer.workers[p] = new Promise<void>((resolve) => setImmediate(resolve))
          .then(() => this.drain(topic, group, consumer, p))
          .finally(() => {
            consumer.workers[p] = undefined;
            // A publish that landed between the worker's last look and now found it still busy.
            this.wake(topic);
          });
      });
    }
  }

  /**
   * Delivers a partition's messages from the group's cursor: up to `keyConcurrency` at once (one at a time by
   * default), never two of one key at once, so per-key order holds. The cursor moves past a message only once it
   * and every earlier one are done, so a stop mid-way redelivers from the first unfinished one (at-least-once).
   */
  private async drain(topic: Topic, group: Group, consumer: Consumer, p: number): Promise<void> {
    const partition = topic.partitions[p]!;
    const limit = Math.max(1, Math.floor(consumer.options.keyConcurrency ?? 1));
    const signal = consumer.abort.signal;
    const running = new Map<number, { key: string; done: Promise<number> }>();
    const finished = new Set<number>();
    let next = group.cursors[p]!;
    for (;;) {
      while (!signal.aborted && running.size < limit) {
        const entry = partition.entries[next - partition.base];
        // A message whose key is in flight waits for it (and holds back the ones behind it, as Kafka's lanes do).
        if (!entry || [...running.values()].some((r) => r.key === entry.key)) break;
        const offset = next++;
        const done = this.deliverEntry(consumer, entry).then((delivered) => {
          if (delivered) finished.add(offset);
          return offset;
        });
        running.set(offset, { key: entry.key, done });
      }
      if (running.size === 0) return;
      // Woken by a delivery ending or by a publish to this partition (which may be launched beside the running ones).
      const nudged = new Promise<undefined>((resolve) => (consumer.nudges[p] = () => resolve(undefined)));
      const ended = await Promise.race([...[...running.values()].map((r) => r.done), nudged]);
      consumer.nudges[p] = undefined;
      if (ended !== undefined) running.delete(ended);
      while (finished.delete(group.cursors[p]!)) group.cursors[p]! += 1;
      // An aborted delivery stays unfinished: nothing after it is launched, and the cursor stays before it.
      if (signal.aborted && running.size === 0) return;
    }
  }

  /** One message, with retries then the DLQ; true once done (the cursor may pass it), false when stopping. */
  private async deliverEntry(consumer: Consumer, entry: PreparedMessage): Promise<boolean> {
    const { topic: name, groupId, handler } = consumer.options;
    const signal = consumer.abort.signal;
    const message = { id: entry.id, topic: name, key: entry.key, value: Buffer.from(entry.value), headers: { ...entry.headers } };
    while (!signal.aborted) {
      try {
        const failure = await deliverWithRetry(message, groupId, handler, consumer.policy, signal);
        if (failure !== undefined) {
          const headers = deadLetterHeaders(message, groupId, failure, consumer.policy.attempts);
          await this.publish(deadLetterTopic(name), [{ id: entry.id, key: entry.key, value: entry.value, headers }]);
          this.logger.warn({ topic: name, groupId, messageId: entry.id }, 'message dead-lettered');
        }
        return true;
      } catch (err) {
        // Not done: the message is delivered again, after a pause or when the group resumes.
        if (err instanceof DeliveryAborted) return false;
        this.logger.error({ topic: name, groupId, err }, 'in-process delivery failed');
        await sleep(1000, signal);
      }
    }
    return false;
  }
}
