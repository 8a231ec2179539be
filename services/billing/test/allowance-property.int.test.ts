// Property test (fast-check) of the grading allowance: over random interleavings of grade reservations,
// commits, refunds and period boundaries (a renewal paid, or a period lapsing unpaid), run against the real
// use cases on PGlite and on Postgres with a fake clock:
// - in every period, used + reserved <= granted;
// - each grade id is reserved at most once, and counted once: a period's `used` is the number of its committed
//   reservations and `reserved` the number still reserved (refunded grades count nowhere, and a refund returns
//   the grade to the period it was taken from even after a new period began);
// - a reservation draws on the period current at the time it was made (by the fake clock), and is refused
//   exactly when the period is full (grading_allowance_exhausted) or there is none (subscription_required).
// - a refund by grade id that comes before the grade's reservation leaves a refunded marker that counts nowhere,
//   and the reservation that comes later is refused (grade_refunded), as is reserving a refunded grade again.
// - a reader that keeps GET /v1/subscriptions/me's view (as the gateway does) is never left stale: whenever the
//   view changes, billing announced a change for the agent (SubscriptionChanged or BalanceChanged in its outbox)
//   or the view's holdsForMs had run out by the clock.
// A batch of one op is sequential; a batch of 2-6 ops runs concurrently.
import { isDeepStrictEqual } from 'node:util';
import { expect, it } from '@jest/globals';
import fc from 'fast-check';
import { billingEventsV1, events, timestampFromDate } from '@cardlens/contracts';
import { isAppError } from '@cardlens/errors';
import { createLogger } from '@cardlens/telemetry';
import { describeOnPgliteAndPostgres } from '@cardlens/testing';
import { addMonthUtc, FakeClock } from '../src/clock';
import { PrismaClient } from '../src/db';
import { defaultPricing, type Pricing } from '../src/domain/pricing';
import { applySubscriptionConfirmation } from '../src/use-cases/apply-subscription-event';
import { commitGrade, refundGrade, reserveGrade } from '../src/use-cases/grade-allowance';
import { getSubscription } from '../src/use-cases/get-subscription';
import { openBillingDatabase } from './purchase-fixture';

const logger = createLogger('allowance-property', { write: () => {} });
const GRANT = 4;
const GRADE_IDS = 12;
const pricing: Pricing = { ...defaultPricing, plans: [{ key: 'grading_5000', displayName: 'Test', gradesPerMonth: GRANT, priceCents: 25000 }] };

type Op =
  | { type: 'reserve'; grade: number }
  | { type: 'commit'; grade: number }
  | { type: 'refund'; grade: number }
  /** The period ends; `paid`: the next period's invoice is paid (a renewal), else the account lapses. */
  | { type: 'boundary'; paid: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ type: fc.constant('reserve' as const), grade: fc.nat({ max: GRADE_IDS - 1 }) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('commit' as const), grade: fc.nat({ max: GRADE_IDS - 1 }) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('refund' as const), grade: fc.nat({ max: GRADE_IDS - 1 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('boundary' as const), paid: fc.nat({ max: 3 }).map((n) => n > 0) }) },
);
const batchesArb = fc.array(
  fc.oneof(
    fc.array(opArb, { minLength: 1, maxLength: 1 }),
    fc.array(opArb.filter((op) => op.type !== 'boundary'), { minLength: 2, maxLength: 6 }),
  ),
  { minLength: 1, maxLength: 14 },
);

function allowanceProperty(prisma: () => PrismaClient, numRuns: number) {
  let nextAgent = 1;

  it('used + reserved <= granted in every period, each grade counted once, in the period current when reserved; a kept view is never stale unannounced', async () => {
    await fc.assert(
      fc.asyncProperty(batchesArb, async (batches) => {
        const agentId = nextAgent++;
        const db = prisma();
        const clock = new FakeClock(new Date(Date.UTC(2031, 0, 31, 12)));
        const subscriptionId = `sub_prop_${agentId}`;
        const deps = { prisma: db, clock };
        let invoices = 0;
        const apply = (c: Partial<billingEventsV1.PaymentConfirmationReceived>) =>
          db.$transaction((tx) =>
            applySubscriptionConfirmation(tx, { pricing, clock, logger }, billingEventsV1.PaymentConfirmationReceived.fromPartial({ agentId, subscriptionId, kind: billingEventsV1.PaymentKind.SUBSCRIPTION, ...c })),
          );
        const pay = (start: Date) =>
          apply({
            providerEventId: `evt_${agentId}_${++invoices}`,
            providerEventType: 'invoice.paid',
            invoiceId: `in_${agentId}_${invoices}`,
            plan: 'grading_5000',
            amountCents: 25000,
            periodStart: timestampFromDate(start),
            periodEnd: timestampFromDate(addMonthUtc(start)),
            occurredAt: timestampFromDate(clock.now()),
          });
        let periodStart = clock.now();
        await apply({
          providerEventId: `evt_${agentId}_created`,
          providerEventType: 'customer.subscription.created',
          providerStatus: 'active',
          plan: 'grading_5000',
          periodStart: timestampFromDate(periodStart),
          periodEnd: timestampFromDate(addMonthUtc(periodStart)),
          subscriptionCreatedAt: timestampFromDate(periodStart),
          occurredAt: timestampFromDate(periodStart),
        });
        await pay(periodStart);
        let kept = await keptView(db, clock, agentId);

        const reservations = new Map<number, bigint>();
        /** Grades a refund was asked for, in an earlier batch or this one. */
        const refundAsked = new Set<number>();
        /** Whether a paid period is current (a lapse leaves none until... never, in this run). */
        let paidNow = true;
        for (const batch of batches) {
          const at = clock.now();
          for (const op of batch) if (op.type === 'refund') refundAsked.add(op.grade);
          const rows = await db.gradeReservation.findMany({ where: { agentId }, select: { id: true, gradeId: true, state: true } });
          const before = new Set(rows.map((r) => r.id));
          const refundedBefore = new Set(rows.filter((r) => r.state === 'refunded').map((r) => Number(r.gradeId) - agentId * 1000));
          const outcomes = await Promise.allSettled(
            batch.map(async (op) => {
              switch (op.type) {
                case 'reserve': {
                  const r = await reserveGrade(deps, { agentId, gradeId: BigInt(agentId * 1000 + op.grade) });
                  reservations.set(op.grade, r.reservationId);
                  return r;
                }
                case 'commit': {
                  const id = reservations.get(op.grade);
                  if (id === undefined) return undefined;
                  return commitGrade(deps, { agentId, reservationId: id });
                }
                case 'refund': {
                  // Odd grades are refunded by grade id, as grading settles them (also when never reserved: a no-op).
                  if (op.grade % 2 === 1) return refundGrade(deps, { agentId, gradeId: BigInt(agentId * 1000 + op.grade), reason: 'grader_unavailable' });
                  const id = reservations.get(op.grade);
                  if (id === undefined) return undefined;
                  return refundGrade(deps, { agentId, reservationId: id, reason: 'grader_unavailable' });
                }
                case 'boundary': {
                  const end = addMonthUtc(periodStart);
                  clock.set(new Date(end.getTime() + 60_000));
                  periodStart = end;
                  paidNow = op.paid;
                  if (op.paid) await pay(end);
                  return undefined;
                }
              }
            }),
          );
          for (const [i, outcome] of outcomes.entries()) {
            const op = batch[i]!;
            // A grade refunded in an earlier batch (reserved or not) can never be reserved again.
            if (op.type === 'reserve' && refundedBefore.has(op.grade)) expect(outcome.status).toBe('rejected');
            if (outcome.status === 'fulfilled') continue;
            const error = outcome.reason as unknown;
            // The only refusals: a full period, no paid period, or reserving or completing a refunded grade.
            expect(isAppError(error)).toBe(true);
            const code = isAppError(error) ? error.code : '';
            if (op.type === 'reserve' && code !== 'grade_refunded') expect(paidNow ? code === 'grading_allowance_exhausted' : code === 'subscription_required').toBe(true);
            else expect(code).toBe('grade_refunded');
            if (op.type === 'reserve' && code === 'grade_refunded') expect(refundAsked.has(op.grade)).toBe(true);
          }
          await checkDatabase(db, agentId, at, before);
          const fresh = await keptView(db, clock, agentId);
          if (!isDeepStrictEqual(fresh.view, kept.view)) {
            expect(fresh.announcements > kept.announcements || (kept.holdsUntil !== null && clock.now() >= kept.holdsUntil)).toBe(true);
          }
          kept = fresh;
        }
      }),
      {
        numRuns,
        // A refund by grade id that comes first (grading gave up on a ReserveGrade that then lands late).
        examples: [[[[{ type: 'refund', grade: 1 }], [{ type: 'reserve', grade: 1 }], [{ type: 'reserve', grade: 3 }], [{ type: 'refund', grade: 3 }], [{ type: 'reserve', grade: 3 }]]]],
      },
    );
  });
}

/** What a reader keeps of the agent's subscription view, with the announcements made so far and how long it holds. */
async function keptView(db: PrismaClient, clock: FakeClock, agentId: number) {
  const { holdsForMs, ...view } = await getSubscription({ prisma: db, clock, pricing }, agentId);
  const [row] = await db.$queryRawUnsafe<{ n: bigint }[]>(
    `SELECT count(*) AS n FROM "billing"."outbox" WHERE key = $1 AND topic IN ($2, $3)`,
    String(agentId),
    events.subscriptionChanged.topic,
    events.balanceChanged.topic,
  );
  return { view, announcements: Number(row?.n ?? 0), holdsUntil: holdsForMs > 0 ? new Date(clock.now().getTime() + holdsForMs) : null };
}

async function checkDatabase(db: PrismaClient, agentId: number, batchTime: Date, before: Set<bigint>): Promise<void> {
  const periods = await db.allowancePeriod.findMany({ where: { agentId } });
  const reservations = await db.gradeReservation.findMany({ where: { agentId } });
  expect(new Set(reservations.map((r) => r.gradeId)).size).toBe(reservations.length);
  for (const p of periods) {
    expect(p.used + p.reserved).toBeLessThanOrEqual(p.granted);
    expect(p.used).toBe(reservations.filter((r) => r.allowanceId === p.id && r.state === 'committed').length);
    expect(p.reserved).toBe(reservations.filter((r) => r.allowanceId === p.id && r.state === 'reserved').length);
  }
  // A reservation made in this batch drew on the period current (by the fake clock) when it was made.
  const current = periods.find((p) => p.periodStart <= batchTime && batchTime < p.periodEnd);
  for (const r of reservations.filter((x) => !before.has(x.id))) {
    if (r.source === 'none') {
      // A refund by grade id that found nothing reserved: a marker, refunded, counted nowhere.
      expect(r).toMatchObject({ state: 'refunded', allowanceId: null, subscriptionId: null });
      continue;
    }
    expect(r.source).toBe('allowance');
    expect(r.allowanceId).toBe(current?.id);
  }
}

describeOnPgliteAndPostgres('grading allowance properties', { label: 'billing_allowance_prop', open: openBillingDatabase }, (prisma) => allowanceProperty(prisma, 40));
