import { AppError } from '@cardlens/errors';
import type { Clock } from '../clock';
import type { PrismaClient } from '../db';
import { retryOnIdempotencyRace } from '../domain/ledger';
import { announceSubscriptionChange } from '../domain/subscription-changes';
import { loadSubscriptionState } from './load-subscription-state';

export interface GradeAllowanceDeps {
  prisma: PrismaClient;
  clock: Clock;
}

export interface Reservation {
  reservationId: bigint;
  source: 'trial' | 'allowance';
  /** 0 in the trial, 1 on a paid allowance. */
  gradesCharged: number;
  /** null in the trial (unlimited). */
  gradesRemaining: number | null;
}

/**
 * Reserves one grade for grade_id from the trial (nothing counted) or the current paid period. The period's
 * counter moves with one conditional UPDATE (used + reserved < granted), so concurrent reservations can never
 * overdraw it (the CHECK constraint would refuse it anyway). Idempotent per grade id.
 */
export async function reserveGrade(deps: GradeAllowanceDeps, request: { agentId: number; gradeId: bigint }): Promise<Reservation> {
  return retryOnIdempotencyRace(() =>
    deps.prisma.$transaction(async (tx) => {
      const existing = await tx.gradeReservation.findUnique({ where: { gradeId: request.gradeId }, include: { allowance: true } });
      if (existing) {
        if (existing.agentId !== request.agentId) throw new AppError('invalid_body', 'The grade id belongs to another account.');
        // Refunded already (possibly before this call arrived): the grade must not take anything now.
        if (existing.state === 'refunded') throw new AppError('grade_refunded', 'This grade was refunded; it cannot reserve a grade again.');
        const a = existing.allowance;
        return {
          reservationId: existing.id,
          source: existing.source as Reservation['source'],
          gradesCharged: existing.source === 'allowance' ? 1 : 0,
          gradesRemaining: a ? a.granted - a.used - a.reserved : null,
        };
      }
      const { state, subscription } = await loadSubscriptionState(tx, deps.clock, request.agentId);
      if (state.unlimitedGrading && subscription) {
        const r = await tx.gradeReservation.create({ data: { agentId: request.agentId, gradeId: request.gradeId, source: 'trial', subscriptionId: subscription.id, state: 'reserved' } });
        return { reservationId: r.id, source: 'trial', gradesCharged: 0, gradesRemaining: null };
      }
      if (!state.period || !subscription) {
        const why: Record<string, string> = {
          none: 'This account has no grading subscription. Start the trial with POST /v1/subscriptions/checkout.',
          checkout_pending: 'The subscription checkout has not been completed yet.',
          past_due: 'No payment has been confirmed for the current period (the trial or period ended). Grading resumes as soon as it is.',
          cancelled: 'The subscription has ended. Subscribe again with POST /v1/subscriptions/checkout.',
          expired: 'The subscription ended because payment did not succeed. Subscribe again with POST /v1/subscriptions/checkout.',
        };
        throw new AppError('subscription_required', why[state.status] ?? why.none!);
      }
      const periodId = state.period.id;
      const taken = await tx.$executeRaw`
        UPDATE "billing"."allowance_periods" SET "reserved" = "reserved" + 1
        WHERE "id" = ${periodId} AND "used" + "reserved" < "granted"`;
      if (taken === 0) {
        throw new AppError('grading_allowance_exhausted', `All ${state.period.granted} grades of this period are used; unused grades do not roll over. The allowance resets at ${state.period.periodEnd.toISOString()}.`);
      }
      const r = await tx.gradeReservation.create({
        data: { agentId: request.agentId, gradeId: request.gradeId, source: 'allowance', allowanceId: periodId, subscriptionId: subscription.id, state: 'reserved' },
      });
      await announceSubscriptionChange(tx, request.agentId);
      const period = await tx.allowancePeriod.findUniqueOrThrow({ where: { id: periodId } });
      return { reservationId: r.id, source: 'allowance', gradesCharged: 1, gradesRemaining: period.granted - period.used - period.reserved };
    }),
  );
}

/** The grade completed: the reservation becomes a use of its period. Idempotent; a refunded grade stays refunded. */
export async function commitGrade(deps: GradeAllowanceDeps, request: { agentId: number } & ReservationRef): Promise<void> {
  await deps.prisma.$transaction(async (tx) => {
    const reservation = await ownedReservation(tx, request);
    if (!reservation) throw new AppError('not_found', 'No such grade reservation for this account.');
    if (reservation.state === 'committed') return;
    if (reservation.state === 'refunded') throw new AppError('grade_refunded', 'The grade was refunded; it cannot be completed.');
    const { count } = await tx.gradeReservation.updateMany({ where: { id: reservation.id, state: 'reserved' }, data: { state: 'committed', settledAt: deps.clock.now() } });
    if (count === 1 && reservation.allowanceId !== null) {
      await tx.$executeRaw`UPDATE "billing"."allowance_periods" SET "reserved" = "reserved" - 1, "used" = "used" + 1 WHERE "id" = ${reservation.allowanceId}`;
      await announceSubscriptionChange(tx, request.agentId);
    }
  });
}

/**
 * The grade failed: its grade goes back to the period it was taken from (even if a new period has begun since).
 * Idempotent: a second refund returns the same count and changes nothing.
 */
export async function refundGrade(deps: GradeAllowanceDeps, request: { agentId: number; reason: string } & ReservationRef): Promise<{ gradesRefunded: number }> {
  return retryOnIdempotencyRace(() => deps.prisma.$transaction(async (tx) => {
    const reservation = await ownedReservation(tx, request);
    if (!reservation) {
      if (!('gradeId' in request)) throw new AppError('not_found', 'No such grade reservation for this account.');
      // Named by grade id and not reserved (yet): nothing to return, but the grade's ReserveGrade may still be on
      // its way (a call that timed out for the caller can land later). A refunded marker makes it refused then,
      // so no grade is ever held by a grade its service has already settled.
      await tx.gradeReservation.create({
        data: { agentId: request.agentId, gradeId: request.gradeId, source: 'none', state: 'refunded', reason: request.reason.slice(0, 64) || 'refunded', settledAt: deps.clock.now() },
      });
      return { gradesRefunded: 0 };
    }
    const refunded = reservation.allowanceId !== null ? 1 : 0;
    if (reservation.state === 'refunded') return { gradesRefunded: refunded };
    const from = reservation.state;
    const { count } = await tx.gradeReservation.updateMany({
      where: { id: reservation.id, state: from },
      data: { state: 'refunded', reason: request.reason.slice(0, 64) || 'refunded', settledAt: deps.clock.now() },
    });
    if (count === 1 && reservation.allowanceId !== null) {
      if (from === 'reserved') await tx.$executeRaw`UPDATE "billing"."allowance_periods" SET "reserved" = "reserved" - 1 WHERE "id" = ${reservation.allowanceId}`;
      else await tx.$executeRaw`UPDATE "billing"."allowance_periods" SET "used" = "used" - 1 WHERE "id" = ${reservation.allowanceId}`;
      await announceSubscriptionChange(tx, request.agentId);
    }
    return { gradesRefunded: refunded };
  }));
}

/** A reservation by its own id, or by the grade id it was made for (grading settles by grade id). */
export type ReservationRef = { reservationId: bigint } | { gradeId: bigint };

/** The account's reservation, row-locked so a commit and a refund of the same grade at once settle it once. */
async function ownedReservation(tx: Parameters<Parameters<PrismaClient['$transaction']>[0]>[0], request: { agentId: number } & ReservationRef) {
  const locked = 'reservationId' in request
    ? await tx.$queryRaw<{ id: bigint }[]>`SELECT "id" FROM "billing"."grade_reservations" WHERE "id" = ${request.reservationId} FOR UPDATE`
    : await tx.$queryRaw<{ id: bigint }[]>`SELECT "id" FROM "billing"."grade_reservations" WHERE "grade_id" = ${request.gradeId} FOR UPDATE`;
  const id = locked[0]?.id;
  const reservation = id === undefined ? null : await tx.gradeReservation.findUnique({ where: { id } });
  if (reservation && reservation.agentId !== request.agentId) throw new AppError('not_found', 'No such grade reservation for this account.');
  return reservation;
}
