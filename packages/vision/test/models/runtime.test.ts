import { describe, it, expect } from '@jest/globals';
import { createModelRuntime } from '../../src/models/runtime';

describe('model runtime', () => {
  it('falls back from tfjs-node-gpu and tfjs-node to wasm here, logs the choice and reuses it', async () => {
    const lines: { obj: Record<string, unknown>; msg?: string }[] = [];
    const logger = {
      info: (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
      warn: (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
    };
    const rt = await createModelRuntime({ logger });
    expect(rt.backend).toBe('wasm');
    expect(rt.tf.getBackend()).toBe('wasm');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toBe('tfjs backend: wasm');
    expect(lines[0]!.obj.backend).toBe('wasm');
    // the native packages are not installed in this image: both were tried and skipped with a reason
    const skipped = lines[0]!.obj.skipped as Record<string, string>;
    expect(Object.keys(skipped).sort()).toEqual(['tfjs-node', 'tfjs-node-gpu']);

    const again = await createModelRuntime({ logger });
    expect(again.backend).toBe('wasm');
    expect(lines).toHaveLength(1); // chosen once per process
  });

  it('reports a missing model clearly', async () => {
    const rt = await createModelRuntime();
    await expect(rt.loadModel('no-such-model')).rejects.toThrow(/no-such-model/);
  });
});
