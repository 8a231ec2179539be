// The same photo sent several times at once reaches the engine once: the copies wait for the first analysis, then
// are answered from memory when the engine gave up on it; different photos never wait for each other.
import { describe, expect, it } from '@jest/globals';
import { AppError } from '@cardlens/errors';
import { AnalysisQueue } from '../src/analysis-queue';
import { TooComplexPhotos } from '../src/too-complex-photos';

const bytes = (text: string) => new TextEncoder().encode(text);
const deferred = () => {
  let resolve: () => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('TooComplexPhotos.onePerPhoto', () => {
  it('copies of a photo the engine gives up on wait for it and are answered from memory, without the engine', async () => {
    const memory = new TooComplexPhotos(60_000);
    const key = TooComplexPhotos.keyOf(bytes('poison'));
    const engine = deferred();
    let runs = 0;
    const analyse = () => {
      runs++;
      return engine.promise;
    };
    const remembered = () => {
      if (memory.has(key)) throw new AppError('image_too_complex');
    };
    const first = memory.onePerPhoto(key, analyse, remembered).catch((e: unknown) => (e as AppError).code);
    const copies = [1, 2].map(() => memory.onePerPhoto(key, analyse, remembered).catch((e: unknown) => (e as AppError).code));
    await tick();
    expect(runs).toBe(1);
    memory.remember(key);
    engine.reject(new AppError('image_too_complex'));
    expect(await Promise.all([first, ...copies])).toEqual(['image_too_complex', 'image_too_complex', 'image_too_complex']);
    expect(runs).toBe(1);
  });

  it('a copy runs once the first is done when that one was not given up on; other photos do not wait', async () => {
    const memory = new TooComplexPhotos(60_000);
    const first = deferred();
    const order: string[] = [];
    const a = memory.onePerPhoto('a', async () => { order.push('a1'); await first.promise; return 'a1'; });
    const again = memory.onePerPhoto('a', async () => { order.push('a2'); return 'a2'; });
    const other = memory.onePerPhoto('b', async () => { order.push('b'); return 'b'; });
    expect(await other).toBe('b');
    expect(order).toEqual(['a1', 'b']);
    first.resolve();
    expect(await Promise.all([a, again])).toEqual(['a1', 'a2']);
    expect(order).toEqual(['a1', 'b', 'a2']);
  });

  it('a waiting copy takes a place in the analysis queue: beyond it, copies are refused with grader_busy', async () => {
    const memory = new TooComplexPhotos(60_000);
    const queue = new AnalysisQueue({ concurrency: 1, maxQueued: 1 });
    const engine = deferred();
    const analyse = () => queue.run(() => engine.promise.then(() => 'done'));
    const hold = () => queue.hold();
    const first = memory.onePerPhoto('a', analyse, undefined, hold);
    const copy = memory.onePerPhoto('a', analyse, undefined, hold);
    await tick();
    expect(queue.stats).toEqual({ running: 1, queued: 1 });
    const refused = await memory.onePerPhoto('a', analyse, undefined, hold).catch((e: unknown) => (e as AppError).code);
    expect(refused).toBe('grader_busy');
    engine.resolve();
    expect(await Promise.all([first, copy])).toEqual(['done', 'done']);
    expect(queue.stats).toEqual({ running: 0, queued: 0 });
  });
});
