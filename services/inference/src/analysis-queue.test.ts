import { describe, expect, it } from '@jest/globals';
import { AppError } from '@cardlens/errors';
import { AnalysisQueue } from './analysis-queue';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('AnalysisQueue', () => {
  it('runs at most `concurrency` jobs and queues the rest in order', async () => {
    const queue = new AnalysisQueue({ concurrency: 2, maxQueued: 5 });
    const gates = Array.from({ length: 4 }, deferred);
    const started: number[] = [];
    const runs = gates.map((g, i) => queue.run(async () => { started.push(i); await g.promise; return i; }));
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    expect(queue.stats).toEqual({ running: 2, queued: 2 });
    gates[0]!.resolve();
    await runs[0];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    gates.slice(1).forEach((g) => g.resolve());
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(queue.stats).toEqual({ running: 0, queued: 0 });
  });

  it('refuses with grader_busy when the queue is full (backpressure)', async () => {
    const queue = new AnalysisQueue({ concurrency: 1, maxQueued: 1 });
    const gate = deferred();
    const first = queue.run(() => gate.promise);
    const second = queue.run(async () => 'second');
    const third = queue.run(async () => 'third').catch((e: unknown) => e);
    const refused = await third;
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('grader_busy');
    gate.resolve();
    await first;
    expect(await second).toBe('second');
  });

  it('drops a waiting job whose caller gave up, and keeps the slot count right', async () => {
    const queue = new AnalysisQueue({ concurrency: 1, maxQueued: 3 });
    const gate = deferred();
    let gaveUp = false;
    const first = queue.run(() => gate.promise);
    const abandoned = queue.run(async () => 'never', () => gaveUp).catch((e: unknown) => (e as AppError).code);
    const later = queue.run(async () => 'later');
    gaveUp = true;
    gate.resolve();
    await first;
    expect(await abandoned).toBe('service_unavailable');
    expect(await later).toBe('later');
    expect(queue.stats).toEqual({ running: 0, queued: 0 });
  });

  it('frees the slot when a job fails', async () => {
    const queue = new AnalysisQueue({ concurrency: 1, maxQueued: 0 });
    await expect(queue.run(async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await queue.run(async () => 'ok')).toBe('ok');
  });
});
