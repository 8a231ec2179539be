import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { generateSample } from '@cardlens/card-synth';
import { isAppError } from '@cardlens/errors';
import { EngineProcesses } from '../src/engine-processes';

// The engine in a child process under a hard budget, with the real engine. An analysis still running at its budget
// (a card given a budget shorter than any analysis takes) is cut there; a runaway analysis (the engine process
// frozen with SIGSTOP mid-analysis: work that never yields, on any machine speed) is ended at the budget by killing
// its process. The caller gets image_too_complex; a fresh process takes the slot and the request queued behind
// completes. The pool's own budget is generous, so a normal card is analysed on a slow or busy machine; the cut
// analyses are given short budgets of their own. (No photo we know of runs past the real budget any more: the
// identification OCR's work is bounded, packages/vision/src/evidence/ocrWork.ts.)

const BUDGET_MS = 30_000;
const CUT_BUDGET_MS = 2500;
/** Shorter than any analysis: decoding and locating the card alone take longer. */
const TOO_SHORT_BUDGET_MS = 100;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('engine processes: a runaway analysis is killed at its budget', () => {
  let pool: EngineProcesses;
  let photo: { front: Uint8Array; back: Uint8Array };
  beforeAll(async () => {
    pool = await EngineProcesses.start({ size: 1, budgetMs: BUDGET_MS, maxHeapMb: 1024, logger: pino({ level: 'silent' }) });
    const sample = await generateSample(1_000_050, { photo: { megapixels: 1 } });
    photo = { front: sample.frontJpeg, back: sample.backJpeg };
  }, 180_000);
  afterAll(async () => {
    await pool?.close();
  });

  it('analyses a card in its process', async () => {
    const analysis = await pool.analyzeCard(photo, { evidence: true });
    expect(analysis.sides.front.quadPx).toHaveLength(4);
    expect(analysis.grading.grade).toBeGreaterThanOrEqual(1);
    expect(pool.pids).toHaveLength(1);
  }, 60_000);

  it('an analysis still running at its budget answers image_too_complex, and a normal card right behind it is analysed', async () => {
    const started = Date.now();
    const cut = await pool.analyzeCard(photo, { evidence: true }, TOO_SHORT_BUDGET_MS).catch((error: unknown) => error);
    expect(isAppError(cut) && cut.code).toBe('image_too_complex');
    expect(Date.now() - started).toBeLessThan(TOO_SHORT_BUDGET_MS + 1500);
    const next = await pool.analyzeCard(photo, { evidence: true });
    expect(next.sides.front.quadPx).toHaveLength(4);
  }, 120_000);

  it('kills the process past the budget, answers image_too_complex, and the request behind it completes in a fresh process', async () => {
    const [frozen] = pool.pids;
    const runaway = pool.analyzeCard(photo, {}, CUT_BUDGET_MS).catch((error: unknown) => error);
    await wait(50);
    process.kill(frozen!, 'SIGSTOP');
    const started = Date.now();
    const behind = pool.analyzeCard(photo, {});
    const error = await runaway;
    expect(isAppError(error) && error.code).toBe('image_too_complex');
    expect(Date.now() - started).toBeLessThan(CUT_BUDGET_MS + 1500);
    const next = await behind;
    expect(next.sides.front.quadPx).toHaveLength(4);
    expect(pool.pids).toHaveLength(1);
    expect(pool.pids[0]).not.toBe(frozen);
    // The frozen process is gone, not left stopped.
    expect(() => process.kill(frozen!, 0)).toThrow();
  }, 120_000);
});

describe('engine processes: one kept warm, more started under load and stopped when idle', () => {
  let pool: EngineProcesses;
  let photo: { front: Uint8Array; back: Uint8Array };
  beforeAll(async () => {
    pool = await EngineProcesses.start({ size: 2, warm: 1, idleMs: 1500, budgetMs: BUDGET_MS, maxHeapMb: 1024, logger: pino({ level: 'silent' }) });
    const sample = await generateSample(1_000_051, { photo: { megapixels: 1 } });
    photo = { front: sample.frontJpeg, back: sample.backJpeg };
  }, 180_000);
  afterAll(async () => {
    await pool?.close();
  });

  it('starts with one process; a second analysis while the first runs starts a second; idle, it stops again', async () => {
    expect(pool.pids).toHaveLength(1);
    const results = await Promise.all([pool.analyzeCard(photo, {}), pool.analyzeCard(photo, {})]);
    expect(results.map((r) => r.sides.front.quadPx.length)).toEqual([4, 4]);
    const both = pool.pids;
    expect(both).toHaveLength(2);
    const until = Date.now() + 15_000;
    while (pool.pids.length > 1 && Date.now() < until) await wait(200);
    // The one idle longest stopped; the other stays warm and serves.
    expect(pool.pids).toHaveLength(1);
    expect(both).toContain(pool.pids[0]);
    const again = await pool.analyzeCard(photo, {});
    expect(again.sides.front.quadPx).toHaveLength(4);
  }, 180_000);
});
