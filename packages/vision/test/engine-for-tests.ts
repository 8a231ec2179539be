import { afterAll, beforeAll } from '@jest/globals';
import { createCardEngine, type CardEngine } from '../src/engine';

/**
 * One engine for a test file: created before its tests (loading the models and OCR once), closed after them. Call
 * at the file's top level; the returned function gives the engine inside the tests.
 */
export function engineForTests(): () => CardEngine {
  let engine: CardEngine | undefined;
  beforeAll(async () => {
    engine = await createCardEngine();
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
  });
  return () => {
    if (!engine) throw new Error('the engine is created in beforeAll: use it inside a test');
    return engine;
  };
}
