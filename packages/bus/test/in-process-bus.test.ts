import { afterEach, describe, expect, it } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import { DLQ_HEADERS, InProcessBus, MESSAGE_ID_HEADER, type BusMessage } from '../src/index';
import { bytes, delay, installTracing, text, waitFor } from './support';

const fastRetry = { attempts: 3, initialBackoffMs: 5, maxBackoffMs: 20 };
let bus: InProcessBus;

async function startedBus(topics: string[] = ['jobs']): Promise<InProcessBus> {
  bus = new InProcessBus({ topics, partitions: 4 });
  await bus.start();
  return bus;
}

afterEach(async () => {
  await bus?.stop();
});

describe('InProcessBus', () => {
  it('delivers asynchronously, with a message id and the publisher trace context', async () => {
    const { provider } = installTracing();
    await startedBus();
    const received: { message: BusMessage; traceId?: string }[] = [];
    await bus.subscribe({
      topic: 'jobs',
      groupId: 'g',
      handler: async (message) => {
        received.push({ message, traceId: trace.getActiveSpan()?.spanContext().traceId });
      },
    });
    let traceId = '';
    await provider.getTracer('test').startActiveSpan('request', async (span) => {
      traceId = span.spanContext().traceId;
      await bus.publish('jobs', [{ key: 'scan-1', value: bytes('hello'), id: 'm-1' }]);
      expect(received).toHaveLength(0); // not inline in publish
      span.end();
    });
    await waitFor(() => received.length === 1);
    const [{ message, traceId: handlerTraceId }] = received as [(typeof received)[0]];
    expect(message).toMatchObject({ id: 'm-1', topic: 'jobs', key: 'scan-1', attempt: 1 });
    expect(text(message.value)).toBe('hello');
    expect(message.headers[MESSAGE_ID_HEADER]).toBe('m-1');
    expect(message.headers.traceparent).toContain(traceId);
    expect(handlerTraceId).toBe(traceId);
  });

  it('keeps per-key order while keys are processed concurrently', async () => {
    await startedBus();
    const seen = new Map<string, number[]>();
    await bus.subscribe({
      topic: 'jobs',
      groupId: 'g',
      handler: async ({ key, value }) => {
        await delay(Math.random() * 3);
        seen.set(key, [...(seen.get(key) ?? []), Number(text(value))]);
      },
    });
    const keys = ['a', 'b', 'c', 'd', 'e'];
    for (let i = 0; i < 100; i++) {
      await bus.publish('jobs', [{ key: keys[i % keys.length]!, value: bytes(String(i)) }]);
    }
    await waitFor(() => [...seen.values()].reduce((n, list) => n + list.length, 0) === 100);
    for (const list of seen.values()) expect(list).toEqual([...list].sort((x, y) => x - y));
  });

  it('gives every group every message, and a group that joins later the earlier ones too', async () => {
    await startedBus();
    const a: string[] = [];
    const b: string[] = [];
    await bus.subscribe({ topic: 'jobs', groupId: 'a', handler: async (m) => void a.push(m.id) });
    await bus.publish('jobs', [1, 2, 3].map((i) => ({ key: `k${i}`, value: bytes('x'), id: `m${i}` })));
    await waitFor(() => a.length === 3);
    await bus.subscribe({ topic: 'jobs', groupId: 'b', handler: async (m) => void b.push(m.id) });
    await waitFor(() => b.length === 3);
    expect(a.sort()).toEqual(['m1', 'm2', 'm3']);
    expect(b.sort()).toEqual(['m1', 'm2', 'm3']);
    await expect(bus.subscribe({ topic: 'jobs', groupId: 'a', handler: async () => {} })).rejects.toThrow(/already consumes/);
  });

  it('a new group that starts from the latest position gets only what is published after it joined', async () => {
    await startedBus();
    await bus.publish('jobs', [1, 2].map((i) => ({ key: `k${i}`, value: bytes('before'), id: `old${i}` })));
    const late: string[] = [];
    await bus.subscribe({ topic: 'jobs', groupId: 'late', startFrom: 'latest', handler: async (m) => void late.push(m.id) });
    await bus.publish('jobs', [{ key: 'k1', value: bytes('after'), id: 'new1' }]);
    await waitFor(() => late.length === 1);
    await delay(50);
    expect(late).toEqual(['new1']);
  });

  it('keeps messages a stopped group has not consumed beyond the retention limit', async () => {
    bus = new InProcessBus({ topics: ['jobs'], partitions: 1, maxRetainedMessages: 2 });
    await bus.start();
    const sub = await bus.subscribe({ topic: 'jobs', groupId: 'slow', handler: async () => {} });
    await sub.stop();
    for (let i = 0; i < 5; i++) await bus.publish('jobs', [{ key: 'k', value: bytes(String(i)) }]);
    const got: string[] = [];
    await bus.subscribe({ topic: 'jobs', groupId: 'slow', handler: async (m) => void got.push(text(m.value)) });
    await waitFor(() => got.length === 5);
    expect(got).toEqual(['0', '1', '2', '3', '4']);
  });

  it('redelivers a message whose handler throws, with backoff, until it succeeds', async () => {
    await startedBus();
    const attempts: { attempt: number; at: number }[] = [];
    await bus.subscribe({
      topic: 'jobs',
      groupId: 'g',
      retry: { attempts: 5, initialBackoffMs: 20, maxBackoffMs: 1000 },
      handler: async ({ attempt }) => {
        attempts.push({ attempt, at: Date.now() });
        if (attempt < 3) throw new Error('transient');
      },
    });
    await bus.publish('jobs', [{ key: 'k', value: bytes('x') }]);
    await waitFor(() => attempts.length === 3);
    await delay(50);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    // Backoff doubles: >= 10 ms then >= 20 ms (jitter keeps at least half of 20 and 40).
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(9);
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(19);
  });

  it('dead-letters after the last attempt, with the original headers plus error headers, and moves on', async () => {
    await startedBus();
    const handled: string[] = [];
    const dead: BusMessage[] = [];
    await bus.subscribe({
      topic: 'jobs',
      groupId: 'g',
      retry: fastRetry,
      handler: async (m) => {
        if (text(m.value) === 'poison') throw new Error('cannot parse\n    at secret/stack/frame.ts:1');
        handled.push(m.id);
      },
    });
    await bus.subscribe({ topic: 'jobs.dlq', groupId: 'ops', handler: async (m) => void dead.push(m) });
    await bus.publish('jobs', [
      { key: 'same', value: bytes('poison'), id: 'bad', headers: { 'x-tenant': 't1' } },
      { key: 'same', value: bytes('fine'), id: 'good' },
    ]);
    await waitFor(() => dead.length === 1 && handled.length === 1);
    const [d] = dead as [BusMessage];
    expect(d).toMatchObject({ id: 'bad', key: 'same', topic: 'jobs.dlq' });
    expect(text(d.value)).toBe('poison');
    expect(d.headers).toMatchObject({
      'x-tenant': 't1',
      [MESSAGE_ID_HEADER]: 'bad',
      [DLQ_HEADERS.error]: 'Error: cannot parse',
      [DLQ_HEADERS.attempts]: '3',
      [DLQ_HEADERS.sourceTopic]: 'jobs',
      [DLQ_HEADERS.consumerGroup]: 'g',
    });
    expect(handled).toEqual(['good']);
  });

  it('redelivers a message whose retries were cut short by stop() when the group resumes', async () => {
    await startedBus();
    let calls = 0;
    const sub = await bus.subscribe({
      topic: 'jobs',
      groupId: 'g',
      retry: { attempts: 10, initialBackoffMs: 60_000, maxBackoffMs: 60_000 },
      handler: async () => {
        calls++;
        throw new Error('down');
      },
    });
    await bus.publish('jobs', [{ key: 'k', value: bytes('x'), id: 'm' }]);
    await waitFor(() => calls === 1);
    const started = Date.now();
    await sub.stop(); // abandons the 30-60 s backoff
    expect(Date.now() - started).toBeLessThan(1000);
    const redelivered: string[] = [];
    await bus.subscribe({ topic: 'jobs', groupId: 'g', handler: async (m) => void redelivered.push(m.id) });
    await waitFor(() => redelivered.length === 1);
    expect(redelivered).toEqual(['m']);
  });

  it('lets an in-flight handler finish on stop, and refuses to publish to undeclared topics or after stop', async () => {
    await startedBus();
    let finished = false;
    await bus.subscribe({
      topic: 'jobs',
      groupId: 'g',
      handler: async () => {
        await delay(100);
        finished = true;
      },
    });
    await expect(bus.publish('nope', [{ key: 'k', value: bytes('x') }])).rejects.toThrow(/unknown topic/);
    await bus.publish('jobs', [{ key: 'k', value: bytes('x') }]);
    await delay(20);
    await bus.stop();
    expect(finished).toBe(true);
    await expect(bus.publish('jobs', [{ key: 'k', value: bytes('x') }])).rejects.toThrow(/stopped/);
  });

  describe('with keyConcurrency', () => {
    async function onePartitionBus(): Promise<InProcessBus> {
      bus = new InProcessBus({ topics: ['jobs'], partitions: 1 });
      await bus.start();
      return bus;
    }

    it("runs one partition's messages of different keys side by side, including one published while others run", async () => {
      await onePartitionBus();
      const running = new Set<string>();
      let most = 0;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      await bus.subscribe({
        topic: 'jobs',
        groupId: 'g',
        keyConcurrency: 3,
        handler: async ({ key }) => {
          running.add(key);
          most = Math.max(most, running.size);
          await released;
          running.delete(key);
        },
      });
      await bus.publish('jobs', [{ key: 'a', value: bytes('1') }, { key: 'b', value: bytes('2') }]);
      await waitFor(() => running.size === 2);
      await bus.publish('jobs', [{ key: 'c', value: bytes('3') }, { key: 'd', value: bytes('4') }]);
      await waitFor(() => running.size === 3);
      await delay(20);
      expect([...running].sort()).toEqual(['a', 'b', 'c']); // the limit holds: d waits for a free place
      release();
      await waitFor(() => running.size === 0 && most === 3);
    });

    it('keeps one key in publish order', async () => {
      await onePartitionBus();
      const seen: string[] = [];
      await bus.subscribe({
        topic: 'jobs',
        groupId: 'g',
        keyConcurrency: 4,
        handler: async ({ key, value }) => {
          await delay(key === 'a' ? 5 : 1);
          seen.push(`${key}${text(value)}`);
        },
      });
      await bus.publish('jobs', ['1', '2', '3'].flatMap((n) => [{ key: 'a', value: bytes(n) }, { key: 'b', value: bytes(n) }]));
      await waitFor(() => seen.length === 6);
      expect(seen.filter((s) => s.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
      expect(seen.filter((s) => s.startsWith('b'))).toEqual(['b1', 'b2', 'b3']);
    });

    it('on stop, redelivers from the first unfinished message: later ones that finished come again, none is lost', async () => {
      await onePartitionBus();
      const firstRun: string[] = [];
      const sub = await bus.subscribe({
        topic: 'jobs',
        groupId: 'g',
        keyConcurrency: 3,
        handler: async ({ id, signal }) => {
          if (id === 'm1') {
            // A handler waiting for a turn gives up when its consumer stops.
            await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopping'))));
          }
          firstRun.push(id);
        },
      });
      await bus.publish('jobs', [
        { key: 'a', value: bytes('1'), id: 'm1' },
        { key: 'b', value: bytes('2'), id: 'm2' },
        { key: 'c', value: bytes('3'), id: 'm3' },
      ]);
      await waitFor(() => firstRun.length === 2);
      await sub.stop();
      expect(firstRun.sort()).toEqual(['m2', 'm3']);
      const again: string[] = [];
      await bus.subscribe({ topic: 'jobs', groupId: 'g', handler: async ({ id }) => void again.push(id) });
      await waitFor(() => again.length === 3);
      expect(again).toEqual(['m1', 'm2', 'm3']);
      // Nothing went to the dead-letter topic: giving up on stop is not a failure.
      const dead: string[] = [];
      await bus.subscribe({ topic: 'jobs.dlq', groupId: 'dlq', handler: async ({ id }) => void dead.push(id) });
      await delay(30);
      expect(dead).toEqual([]);
    });
  });
});
