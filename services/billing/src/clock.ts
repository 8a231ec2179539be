/**
 * Billing's one clock. Trial deadlines, period boundaries and checkout lifetimes are kept by it, never by the
 * order in which payment events arrive. Production uses the system clock; the sandbox provider's clock (which
 * `npm run billing:sandbox-clock` advances, like a Stripe test clock) and tests' fake clocks replace it.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests move by hand. */
export class FakeClock implements Clock {
  private current: number;

  constructor(start: Date = new Date()) {
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(to: Date): void {
    this.current = to.getTime();
  }
}

export const DAY_MS = 86_400_000;

/** One calendar month later in UTC, clamped to the month's last day (Jan 31 → Feb 28/29), as Stripe bills. */
export function addMonthUtc(date: Date): Date {
  const next = new Date(date.getTime());
  const day = next.getUTCDate();
  next.setUTCDate(1);
  next.setUTCMonth(next.getUTCMonth() + 1);
  const lastDay = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(day, lastDay));
  return next;
}
