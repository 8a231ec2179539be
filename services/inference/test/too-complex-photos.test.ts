// The inference service's memory of photos the engine gave up on: by content (front and back), for a while, bounded.
import { describe, expect, it } from '@jest/globals';
import { TooComplexPhotos } from '../src/too-complex-photos';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('TooComplexPhotos', () => {
  it('remembers a pair by its bytes until the time runs out', () => {
    const memory = new TooComplexPhotos(60_000);
    const key = TooComplexPhotos.keyOf(bytes('front'), bytes('back'));
    expect(memory.has(key, 0)).toBe(false);
    memory.remember(key, 0);
    expect(memory.has(TooComplexPhotos.keyOf(bytes('front'), bytes('back')), 59_999)).toBe(true);
    expect(memory.has(key, 60_000)).toBe(false);
  });

  it('tells pairs apart by either side, and a front alone from the same front with a back', () => {
    const keys = [
      TooComplexPhotos.keyOf(bytes('front'), bytes('back')),
      TooComplexPhotos.keyOf(bytes('front'), bytes('other back')),
      TooComplexPhotos.keyOf(bytes('front')),
      TooComplexPhotos.keyOf(bytes('frontback')),
    ];
    expect(new Set(keys).size).toBe(4);
  });

  it('keeps at most its bound, dropping the oldest; with no time to keep, remembers nothing', () => {
    const memory = new TooComplexPhotos(60_000, 2);
    for (const name of ['a', 'b', 'c']) memory.remember(TooComplexPhotos.keyOf(bytes(name)), 0);
    expect(['a', 'b', 'c'].map((name) => memory.has(TooComplexPhotos.keyOf(bytes(name)), 1))).toEqual([false, true, true]);
    const off = new TooComplexPhotos(0);
    off.remember('k', 0);
    expect(off.has('k', 0)).toBe(false);
  });
});
