import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import { deleteTopicsWithPrefix, describeWithInfra, infraUrls, uniqueTopicPrefix } from '@cardlens/testing';
import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { DLQ_HEADERS, KafkaBus, MESSAGE_ID_HEADER, type BusMessage } from '../src/index';
import { RequestQueue } from '../src/kafkajs-idle-queue';
import { bytes, delay, installTracing, text, waitFor } from './support';

describeWithInfra('kafka', 'KafkaBus (real broker)', () => {
  const prefix = uniqueTopicPrefix('bus');
  const topic = `${prefix}scan-jobs`;
  const declared = `${prefix}sales`;
  const early = `${prefix}early`;
  // Logs go to a collected pino stream: the test checks that kafkajs wrote through it, not the console.
  const logLines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
  let bus: KafkaBus;
  const received: { message: BusMessage; traceId?: string; parentSpanId?: string }[] = [];
  const dead: BusMessage[] = [];
  const attemptsOf = new Map<string, number>();

  beforeAll(async () => {
    installTracing();
    bus = new KafkaBus({ brokers: infraUrls().kafkaBrokers, clientId: 'bus-test', logger, topics: [declared], partitions: 2 });
    // Subscribed before start: the consumers and the topics (with .dlq) come up in start().
    await bus.subscribe({
      topic,
      groupId: `${prefix}worker`,
      retry: { attempts: 3, initialBackoffMs: 20, maxBackoffMs: 100 },
      handler: async (message) => {
        attemptsOf.set(message.id, message.attempt);
        if (text(message.value) === 'poison') throw new Error('unreadable card image\nstack line that must not leak');
        if (text(message.value) === 'flaky' && message.attempt === 1) throw new Error('transient');
        const span = trace.getActiveSpan();
        received.push({ message, traceId: span?.spanContext().traceId });
      },
    });
    await bus.subscribe({ topic: `${topic}.dlq`, groupId: `${prefix}ops`, handler: async (m) => void dead.push(m) });
    await bus.ensureTopics([early]);
    await bus.start();
  });

  afterAll(async () => {
    await bus?.stop();
    await deleteTopicsWithPrefix(prefix).catch(() => {});
  });

  it('creates the configured, ensured, subscribed and dead-letter topics on start', async () => {
    const admin = new Kafka({ clientId: 'bus-test-admin', brokers: infraUrls().kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: [declared, early, topic, `${topic}.dlq`] });
      expect(metadata.topics.map((t) => [t.name, t.partitions.length]).sort()).toEqual(
        [
          [declared, 2],
          [early, 2],
          [topic, 2],
          [`${topic}.dlq`, 2],
        ].sort(),
      );
    } finally {
      await admin.disconnect();
    }
  });

  it('leaves its broker connections quiet while no message flows (no 1 ms check loop per connection)', async () => {
    // Producer, admin and two consumers are connected; unpatched kafkajs checks each idle queue every millisecond.
    const checks = jest.spyOn(RequestQueue.prototype, 'checkPendingRequests');
    try {
      await delay(1000);
      // Left: the consumers' fetches answered in that second (each answer checks its queue once).
      expect(checks.mock.calls.length).toBeLessThan(50);
    } finally {
      checks.mockRestore();
    }
  });

  it('delivers a message with its id and the publisher trace context arriving in the handler', async () => {
    const { provider } = installTracing();
    let traceId = '';
    await provider.getTracer('test').startActiveSpan('POST /v1/scans', async (span) => {
      traceId = span.spanContext().traceId;
      await bus.publish(topic, [{ key: 'scan-1', value: bytes('job-1'), id: 'msg-1' }]);
      span.end();
    });
    await waitFor(() => received.some((r) => r.message.id === 'msg-1'), 30_000, 'msg-1');
    const got = received.find((r) => r.message.id === 'msg-1')!;
    expect(got.message).toMatchObject({ topic, key: 'scan-1', attempt: 1 });
    expect(got.message.headers[MESSAGE_ID_HEADER]).toBe('msg-1');
    expect(got.message.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(got.traceId).toBe(traceId);
  });

  it('keeps per-key order', async () => {
    const values = Array.from({ length: 20 }, (_, i) => `order-${i}`);
    for (const value of values) await bus.publish(topic, [{ key: 'agent-7', value: bytes(value) }]);
    await waitFor(() => received.filter((r) => r.message.key === 'agent-7').length === 20, 30_000, 'ordered batch');
    expect(received.filter((r) => r.message.key === 'agent-7').map((r) => text(r.message.value))).toEqual(values);
  });

  it('with keyConcurrency, handles different keys of one partition at once and keeps each key in order', async () => {
    const lanesTopic = `${prefix}confirmations`;
    const seen: { key: string; value: string }[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const subscription = await bus.subscribe({
      topic: lanesTopic,
      groupId: `${prefix}billing`,
      keyConcurrency: 4,
      handler: async (message) => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 30));
        seen.push({ key: message.key, value: text(message.value) });
        inFlight--;
      },
    });
    try {
      // One publish call: the whole burst lands in few fetches, as a webhook burst does.
      const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
      await bus.publish(lanesTopic, Array.from({ length: 60 }, (_, i) => ({ key: keys[i % keys.length]!, value: bytes(String(Math.floor(i / keys.length))) })));
      await waitFor(() => seen.length === 60, 30_000, 'all lanes');
      for (const key of keys) expect(seen.filter((m) => m.key === key).map((m) => m.value)).toEqual(Array.from({ length: 10 }, (_, i) => String(i)));
      expect(maxInFlight).toBeGreaterThan(2); // 2 partitions × one at a time would never exceed 2
    } finally {
      await subscription.stop();
    }
  });

  it('retries a failing handler, then dead-letters with the original headers plus a short error', async () => {
    await bus.publish(topic, [
      { key: 'scan-2', value: bytes('flaky'), id: 'msg-flaky' },
      { key: 'scan-3', value: bytes('poison'), id: 'msg-poison', headers: { 'x-request-id': 'req-9' } },
    ]);
    await waitFor(() => dead.length === 1 && received.some((r) => r.message.id === 'msg-flaky'), 30_000, 'dlq');
    expect(attemptsOf.get('msg-flaky')).toBe(2);
    expect(attemptsOf.get('msg-poison')).toBe(3);
    const [d] = dead as [BusMessage];
    expect(d).toMatchObject({ id: 'msg-poison', key: 'scan-3', topic: `${topic}.dlq` });
    expect(text(d.value)).toBe('poison');
    expect(d.headers).toMatchObject({
      'x-request-id': 'req-9',
      [MESSAGE_ID_HEADER]: 'msg-poison',
      [DLQ_HEADERS.error]: 'Error: unreadable card image',
      [DLQ_HEADERS.attempts]: '3',
      [DLQ_HEADERS.sourceTopic]: topic,
      [DLQ_HEADERS.consumerGroup]: `${prefix}worker`,
    });
    expect(d.headers.traceparent).toBeDefined();
  });

  it('stops a subscription mid-retry without committing: the group gets the message again', async () => {
    const stopTopic = `${prefix}stop`;
    const calls: number[] = [];
    const first = await bus.subscribe({
      topic: stopTopic,
      groupId: `${prefix}stopper`,
      retry: { attempts: 10, initialBackoffMs: 20_000, maxBackoffMs: 20_000 },
      handler: async (m) => {
        calls.push(m.attempt);
        throw new Error('dependency down');
      },
    });
    await bus.publish(stopTopic, [{ key: 'k', value: bytes('retry me'), id: 'msg-stop' }]);
    await waitFor(() => calls.length === 1, 30_000, 'first attempt');
    const stopping = Date.now();
    await first.stop(); // cuts the 10-20 s backoff short
    expect(Date.now() - stopping).toBeLessThan(5_000);
    const again: BusMessage[] = [];
    const second = await bus.subscribe({ topic: stopTopic, groupId: `${prefix}stopper`, handler: async (m) => void again.push(m) });
    await waitFor(() => again.length === 1, 30_000, 'redelivery');
    expect(again[0]).toMatchObject({ id: 'msg-stop', attempt: 1 });
    await second.stop();
    expect(logLines.some((line) => line.includes('Error when calling eachMessage'))).toBe(false);
  });

  it('routes kafkajs logs through the given pino logger', () => {
    expect(logLines.some((line) => line.includes('"kafkaNamespace"'))).toBe(true);
  });

  const deleteTopic = async (name: string) => {
    const admin = new Kafka({ clientId: 'bus-test-admin', brokers: infraUrls().kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      await admin.deleteTopics({ topics: [name] });
      await waitFor(async () => !(await admin.listTopics()).includes(name), 30_000, 'topic deleted');
    } finally {
      await admin.disconnect();
    }
  };

  it('a subscribed topic deleted under the running bus (a broker rebuilt without its data) is created again, and its subscriber receives from it', async () => {
    const gone = `${prefix}rebuilt`;
    const got: string[] = [];
    const sub = await bus.subscribe({ topic: gone, groupId: `${prefix}rebuilt-worker`, handler: async (m) => void got.push(text(m.value)) });
    try {
      await bus.publish(gone, [{ key: 'k', value: bytes('before') }]);
      await waitFor(() => got.includes('before'), 30_000, 'before');
      await deleteTopic(gone);
      // The consumer notices first (its fetches fail) and creates it again; else the next publish does.
      await bus.publish(gone, [{ key: 'k', value: bytes('after') }]);
      await waitFor(() => got.includes('after'), 60_000, 'after');
      expect(logLines.some((l) => l.includes('subscribed topic was missing; created it again') || l.includes('topic missing on publish'))).toBe(true);
    } finally {
      await sub.stop();
    }
  });

  it('a publish to a topic that was deleted (no subscriber here to notice) creates it again and delivers', async () => {
    const gone = `${prefix}rebuilt-unsubscribed`;
    await bus.ensureTopics([gone]);
    await bus.publish(gone, [{ key: 'k', value: bytes('before') }]);
    await deleteTopic(gone);
    await bus.publish(gone, [{ key: 'k', value: bytes('after') }]);
    expect(logLines.some((l) => l.includes('topic missing on publish'))).toBe(true);
    // A subscriber that comes now reads it from the new topic.
    const got: string[] = [];
    const sub = await bus.subscribe({ topic: gone, groupId: `${prefix}late-reader`, handler: async (m) => void got.push(text(m.value)) });
    try {
      await waitFor(() => got.includes('after'), 30_000, 'after');
      expect(got).toEqual(['after']);
    } finally {
      await sub.stop();
    }
  });

  it('a new group with startFrom latest receives what is published after it joined, nothing from before', async () => {
    const before = `before-${Date.now()}`;
    await bus.publish(early, [{ key: 'k', value: bytes('old'), id: before }]);
    const seen: string[] = [];
    const sub = await bus.subscribe({ topic: early, groupId: `${prefix}latest`, startFrom: 'latest', handler: async (m) => void seen.push(m.id) });
    try {
      // The group's position is fixed when it is assigned its partitions, shortly after subscribe: publish until
      // one arrives.
      for (let i = 0; seen.length === 0 && i < 60; i++) {
        await bus.publish(early, [{ key: 'k', value: bytes('new'), id: `after-${i}` }]);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((id) => id.startsWith('after-'))).toBe(true);
    } finally {
      await sub.stop();
    }
  });

  it('services that create the same topics at the same moment all come up (the broker catching up is waited for)', async () => {
    const buses = Array.from({ length: 4 }, (_, i) => new KafkaBus({ brokers: infraUrls().kafkaBrokers, clientId: `bus-race-${i}`, partitions: 2 }));
    await Promise.all(buses.map((b) => b.start()));
    try {
      for (let round = 0; round < 5; round++) {
        const topics = [`${prefix}raced-${round}-a`, `${prefix}raced-${round}-b`];
        await Promise.all(buses.map((b) => b.ensureTopics(topics)));
      }
    } finally {
      await Promise.all(buses.map((b) => b.stop()));
    }
  });

  it('commits only handled messages: a new consumer in the group does not see them again', async () => {
    // Stop the group's consumer and start a second bus in the same group: nothing already handled
    // (or dead-lettered) may come back, and a message published meanwhile is delivered once.
    const stopping = Date.now();
    await bus.stop();
    expect(Date.now() - stopping).toBeLessThan(3_000); // idle long-polls are bounded to 1 s
    const again: string[] = [];
    const second = new KafkaBus({ brokers: infraUrls().kafkaBrokers, clientId: 'bus-test-2', partitions: 2 });
    await second.subscribe({ topic, groupId: `${prefix}worker`, handler: async (m) => void again.push(m.id) });
    await second.start();
    try {
      await second.publish(topic, [{ key: 'scan-9', value: bytes('late'), id: 'msg-late' }]);
      await waitFor(() => again.includes('msg-late'), 30_000, 'msg-late');
      expect(again).toEqual(['msg-late']);
    } finally {
      await second.stop();
    }
  });
});
