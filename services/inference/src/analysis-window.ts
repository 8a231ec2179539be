import { AppError } from '@cardlens/errors';

/**
 * How long before its caller's deadline an analysis must have answered: time for the answer to travel back (and
 * for a killed engine process to be reported), so the caller hears what happened instead of its own
 * DEADLINE_EXCEEDED.
 */
export const ANSWER_MARGIN_MS = 2000;

/** The answer to a call whose analysis found no engine within its start window: never analysed, safe to retry. */
export function notStartedInTime(): AppError {
  return new AppError('grader_busy', 'No engine was free in time for this request, so the photo was not analysed. Retry in a few seconds.', { retryAfterSeconds: 2 });
}

/** When an analysis may start on the engine and how long it may run there, for one call. */
export interface AnalysisWindow {
  /** Engine time the analysis gets: the full budget, or less for a caller whose deadline is sooner. */
  runMs: number;
  /** How long it may wait for an engine slot (queue, process start) and still get runMs and answer in time. */
  startWithinMs: number;
  /** Whether runMs is the full configured budget (only then does a cut analysis say the photo is too complex). */
  fullBudget: boolean;
}

/**
 * The rule that keeps every answer ahead of the caller's deadline, so a caller can tell the two ways an analysis
 * can miss it: an analysis not started on the engine within `startWithinMs` is not started at all and answers
 * grader_busy (the engine never saw the photo: safe to retry); one that started runs at most `runMs` and answers
 * with its result or image_too_complex before the deadline. A bare DEADLINE_EXCEEDED at the caller therefore means
 * the photo was on the engine (or the service is wedged), never that it only waited. Null: too little time left
 * to analyse and answer at all (the call is not started).
 */
export function analysisWindow(remainingMs: number, budgetMs: number, marginMs = ANSWER_MARGIN_MS): AnalysisWindow | null {
  if (!Number.isFinite(remainingMs)) return { runMs: budgetMs, startWithinMs: Infinity, fullBudget: true };
  const usable = remainingMs - marginMs;
  if (usable <= 0) return null;
  const runMs = Math.min(budgetMs, usable);
  return { runMs, startWithinMs: usable - runMs, fullBudget: runMs >= budgetMs };
}

/**
 * One call's start window as a state: 'waiting' until the engine starts its analysis (begin() returns true) or
 * the window closes first (the call is answered grader_busy and begin() returns false from then on, so the work,
 * still queued, never reaches the engine). One or the other, never both.
 */
export class StartWindow {
  private state: 'waiting' | 'started' | 'missed' = 'waiting';
  private timer: NodeJS.Timeout | undefined;
  private readonly missedPromise: Promise<never>;

  constructor(startWithinMs: number) {
    this.missedPromise = new Promise<never>((_, reject) => {
      if (!Number.isFinite(startWithinMs)) return;
      this.timer = setTimeout(() => {
        if (this.state !== 'waiting') return;
        this.state = 'missed';
        reject(notStartedInTime());
      }, Math.max(0, startWithinMs));
    });
    this.missedPromise.catch(() => {});
  }

  /** Called as the engine is about to run the analysis: true (it starts) unless the window has closed. */
  begin(): boolean {
    if (this.state === 'missed') return false;
    this.state = 'started';
    return true;
  }

  /** True once the window closed before the analysis started. */
  get missed(): boolean {
    return this.state === 'missed';
  }

  /** The work's outcome, or grader_busy as soon as the window closes with the work not started. */
  race<T>(work: Promise<T>): Promise<T> {
    work.catch(() => {}); // a dropped job's late rejection has no listener any more
    return Promise.race([work, this.missedPromise]);
  }

  close(): void {
    clearTimeout(this.timer);
  }
}
