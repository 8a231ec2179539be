import { describe, it, expect, beforeAll } from '@jest/globals';
import * as tf from '@tensorflow/tfjs';
import { createModelRuntime } from '../../src/models/runtime';
import { registerFastWasmConvGrads } from '../../train/wasm-conv-grads';

// [input shape, filter shape, stride, padding]
const CASES: [[number, number, number, number], [number, number, number, number], number | [number, number], 'same' | 'valid'][] = [
  [[2, 6, 12, 3], [3, 3, 3, 4], [1, 2], 'same'],
  [[2, 9, 9, 3], [3, 3, 3, 4], 2, 'same'],
  [[2, 8, 8, 5], [3, 3, 5, 6], 1, 'same'],
  [[1, 10, 7, 2], [5, 5, 2, 3], 2, 'valid'],
  [[2, 8, 8, 3], [3, 3, 3, 4], 2, 'same'],
  [[2, 6, 6, 4], [1, 1, 4, 5], 1, 'same'],
  [[1, 11, 9, 2], [3, 3, 2, 2], 1, 'valid'],
];

function grads(backend: string): number[][][] {
  return CASES.map(([xs, fs, s, p]) =>
    tf.tidy(() => {
      const x = tf.tensor(Array.from({ length: xs.reduce((a, b) => a * b) }, (_, i) => Math.sin(i * 1.3)), xs) as tf.Tensor4D;
      const f = tf.tensor(Array.from({ length: fs.reduce((a, b) => a * b) }, (_, i) => Math.cos(i * 0.7)), fs) as tf.Tensor4D;
      const g = tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.conv2d(a as tf.Tensor4D, b as tf.Tensor4D, s, p).square().sum());
      const [gx, gf] = g([x, f]);
      if (tf.getBackend() !== backend) throw new Error('backend switched');
      return [Array.from(gx!.dataSync()), Array.from(gf!.dataSync())];
    }),
  );
}

describe('fast wasm conv gradients (training helper)', () => {
  let cpu: number[][][];
  beforeAll(async () => {
    const rt = await createModelRuntime();
    expect(rt.backend).toBe('wasm');
    await tf.setBackend('cpu');
    cpu = grads('cpu');
    await tf.setBackend('wasm');
    registerFastWasmConvGrads(rt.tf);
  });

  it('match the cpu backend for strided, 1x1, same and valid convolutions', () => {
    const wasm = grads('wasm');
    CASES.forEach((_, i) => {
      for (let j = 0; j < 2; j++) {
        const a = cpu[i]![j]!;
        const b = wasm[i]![j]!;
        expect(b.length).toBe(a.length);
        let worst = 0;
        a.forEach((v, k) => (worst = Math.max(worst, Math.abs(v - b[k]!) / (1 + Math.abs(v)))));
        expect(worst).toBeLessThan(1e-4);
      }
    });
  });
});
