// Every analysis answers ahead of its caller's deadline: it starts on the engine within its start window (else
// grader_busy, the engine never sees it) and runs at most its run time, so a caller's own DEADLINE_EXCEEDED means
// the photo was on the engine.
import { describe, expect, it, jest } from '@jest/globals';
import { AppError } from '@cardlens/errors';
import { analysisWindow, ANSWER_MARGIN_MS, StartWindow } from '../src/analysis-window';

describe('analysisWindow', () => {
  it('gives a scan (60 s deadline, 20 s budget) the full budget and the rest, less the margin, to start in', () => {
    expect(analysisWindow(60_000, 20_000)).toEqual({ runMs: 20_000, startWithinMs: 60_000 - ANSWER_MARGIN_MS - 20_000, fullBudget: true });
  });

  it('gives a caller with a shorter deadline what it has left, to start at once, and not as a full budget', () => {
    expect(analysisWindow(12_000, 20_000, 2000)).toEqual({ runMs: 10_000, startWithinMs: 0, fullBudget: false });
  });

  it('starts nothing for a caller with no time left to analyse and answer', () => {
    expect(analysisWindow(2000, 20_000, 2000)).toBeNull();
    expect(analysisWindow(50, 20_000, 2000)).toBeNull();
  });

  it('without a deadline: the full budget, no start window', () => {
    expect(analysisWindow(Infinity, 20_000)).toEqual({ runMs: 20_000, startWithinMs: Infinity, fullBudget: true });
  });

  it('always ends the run ahead of the deadline by the margin', () => {
    for (const remaining of [2001, 5000, 21_999, 22_000, 60_000, 600_000]) {
      const window = analysisWindow(remaining, 20_000, 2000)!;
      expect(window.startWithinMs + window.runMs).toBe(remaining - 2000);
      expect(window.startWithinMs).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('StartWindow', () => {
  it('an analysis that begins within the window runs, and the window closing later changes nothing', async () => {
    jest.useFakeTimers();
    try {
      const start = new StartWindow(1000);
      let finish: (value: string) => void = () => {};
      const outcome = start.race(new Promise<string>((resolve) => (finish = resolve)));
      expect(start.begin()).toBe(true);
      jest.advanceTimersByTime(5000);
      expect(start.missed).toBe(false);
      finish('analysed');
      await expect(outcome).resolves.toBe('analysed');
    } finally {
      jest.useRealTimers();
    }
  });

  it('one not begun when the window closes answers grader_busy at once and can no longer begin', async () => {
    jest.useFakeTimers();
    try {
      const start = new StartWindow(1000);
      let drop: (error: Error) => void = () => {};
      const outcome = start.race(new Promise<string>((_, reject) => (drop = reject)));
      jest.advanceTimersByTime(1000);
      const error = await outcome.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('grader_busy');
      expect(start.missed).toBe(true);
      expect(start.begin()).toBe(false); // the queued work, reaching the engine later, is not started
      drop(new Error('dropped')); // its own late failure goes nowhere
    } finally {
      jest.useRealTimers();
    }
  });
});
