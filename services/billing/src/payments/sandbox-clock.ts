import type { Clock } from '../clock';
import type { Prisma, PrismaClient } from '../db';
import { announceSubscriptionChange } from '../domain/subscription-changes';

const CLOCK_ID = 'sandbox_clock';

/**
 * The sandbox's clock, like a Stripe test clock: real time plus an offset that only moves forward. It is
 * billing's clock whenever the sandbox runs, so trials, periods and checkout lifetimes all follow it. The
 * offset is kept in billing.sandbox_objects, so an advanced clock survives a restart.
 */
export class SandboxClock implements Clock {
  private offsetMs = 0;

  constructor(private readonly prisma: PrismaClient) {}

  async load(): Promise<void> {
    const row = await this.prisma.sandboxObject.findUnique({ where: { id: CLOCK_ID } });
    this.offsetMs = row ? Number((row.data as { offset_ms?: number }).offset_ms ?? 0) : 0;
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  get offsetSeconds(): number {
    return Math.floor(this.offsetMs / 1000);
  }

  async advance(ms: number): Promise<void> {
    this.offsetMs += ms;
    const data = { offset_ms: this.offsetMs } as Prisma.InputJsonValue;
    // Deadlines passed by the jump change agents' derived status with no row written, so readers drop every copy.
    await this.prisma.$transaction(async (tx) => {
      await tx.sandboxObject.upsert({ where: { id: CLOCK_ID }, create: { id: CLOCK_ID, type: 'test_clock', data }, update: { data } });
      await announceSubscriptionChange(tx, 'every-agent');
    });
  }
}
