import { billingV1, commonV1, timestampFromDate } from '@cardlens/contracts';
import { unaryHandler, type GrpcService } from '@cardlens/grpc-kit';
import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';
import type { Pricing } from '../domain/pricing';
import { debitCredits } from '../use-cases/debit-credits';
import { getBalance } from '../use-cases/get-balance';
import type { Clock } from '../clock';
import { cancelSubscription } from '../use-cases/cancel-subscription';
import { changePlan } from '../use-cases/change-plan';
import { createPortalSession } from '../use-cases/create-portal-session';
import { createSubscriptionCheckout } from '../use-cases/create-subscription-checkout';
import { commitGrade, refundGrade, reserveGrade, type ReservationRef } from '../use-cases/grade-allowance';
import { getSubscription, type SubscriptionStatus, type SubscriptionView } from '../use-cases/get-subscription';
import { grantTrialCredits } from '../use-cases/grant-trial-credits';
import { refundCredits } from '../use-cases/refund-credits';
import { confirmCheckoutSession, type CheckoutState } from '../use-cases/confirm-checkout-session';
import { createCreditPurchase } from '../use-cases/create-credit-purchase';
import { handlePaymentWebhook } from '../use-cases/handle-payment-webhook';
import type { PurchaseDeps } from '../use-cases/purchase-deps';
import { purchaseWithToken } from '../use-cases/purchase-with-token';

export interface BillingGrpcDeps {
  prisma: PrismaClient;
  pricing: Pricing;
  dailyPoolCredits: number;
  checkoutAvailable: boolean;
  clock: Clock;
  purchases: PurchaseDeps;
}

const checkoutStateToProto: Record<CheckoutState, billingV1.CheckoutState> = {
  open: billingV1.CheckoutState.OPEN,
  processing: billingV1.CheckoutState.PROCESSING,
  paid: billingV1.CheckoutState.PAID,
  expired: billingV1.CheckoutState.EXPIRED,
  failed: billingV1.CheckoutState.FAILED,
};

const statusToProto: Record<SubscriptionStatus, billingV1.SubscriptionStatus> = {
  none: billingV1.SubscriptionStatus.NONE,
  checkout_pending: billingV1.SubscriptionStatus.CHECKOUT_PENDING,
  trialing: billingV1.SubscriptionStatus.TRIALING,
  active: billingV1.SubscriptionStatus.ACTIVE,
  past_due: billingV1.SubscriptionStatus.PAST_DUE,
  cancelled: billingV1.SubscriptionStatus.CANCELLED,
  expired: billingV1.SubscriptionStatus.EXPIRED,
};

const ts = (d: Date | null) => (d ? timestampFromDate(d) : undefined);

function balanceToProto(s: SubscriptionView): billingV1.SubscriptionBalance {
  return {
    prepaidCredits: s.prepaidCredits,
    ...(s.plan ? { plan: s.plan } : {}),
    status: statusToProto[s.status],
    unlimitedGrading: s.unlimitedGrading,
    trialEndsAt: ts(s.trialEndsAt),
    ...(s.gradesRemaining !== null ? { gradesRemaining: s.gradesRemaining } : {}),
    ...(s.monthlyAllowance !== null ? { monthlyAllowance: s.monthlyAllowance } : {}),
    currentPeriodStart: ts(s.currentPeriodStart),
    currentPeriodEnd: ts(s.currentPeriodEnd),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    ...(s.pendingPlan ? { pendingPlan: s.pendingPlan } : {}),
    pendingPlanEffectiveAt: ts(s.pendingPlanEffectiveAt),
    hasPurchased: s.hasPurchased,
    ...(s.gradesUsed !== null ? { gradesUsed: s.gradesUsed } : {}),
    ...(s.gradesReserved !== null ? { gradesReserved: s.gradesReserved } : {}),
    accessEndsAt: ts(s.accessEndsAt),
    trialRefusal: s.trialRefusal ?? undefined,
  };
}

/** Thin transport: each RPC validates, calls one use case and maps the result. */
export function billingGrpcService(deps: BillingGrpcDeps): GrpcService {
  const { pricing } = deps;
  const packs = (): billingV1.CreditPack[] =>
    pricing.packs.map((p) => ({ key: p.key, displayName: p.displayName, credits: p.credits, priceCents: p.priceCents }));

  const implementation: billingV1.BillingServiceServer = {
    getPricing: unaryHandler<billingV1.GetPricingRequest, billingV1.GetPricingResponse>(() => ({
      modules: pricing.modules.map((m) => ({ key: m.key, credits: m.credits, description: m.description, available: m.available })),
      packs: packs(),
      trial: { anonymous: pricing.trial.anonymous, registered: pricing.trial.registered },
      currencyNote: pricing.currencyNote,
    })),
    listCreditPacks: unaryHandler<billingV1.ListCreditPacksRequest, billingV1.ListCreditPacksResponse>(() => ({
      packs: packs(),
      currencyNote: pricing.currencyNote,
    })),
    listSubscriptionPlans: unaryHandler<billingV1.ListSubscriptionPlansRequest, billingV1.ListSubscriptionPlansResponse>(() => ({
      plans: pricing.plans.map((p) => ({
        key: p.key,
        displayName: p.displayName,
        monthlyGrades: p.gradesPerMonth,
        priceCents: p.priceCents,
        trialDays: pricing.trialDays,
        description: `${p.gradesPerMonth.toLocaleString('en-US')} grading-only grades per month; unused grades expire at period end.`,
      })),
      checkoutAvailable: deps.checkoutAvailable,
    })),
    getBalance: unaryHandler<billingV1.GetBalanceRequest, billingV1.GetBalanceResponse>(async (request) => getBalance(deps, request.agentId)),
    grantTrialCredits: unaryHandler<billingV1.GrantTrialCreditsRequest, billingV1.GrantTrialCreditsResponse>(async (request) => {
      const tier = request.tier === commonV1.Tier.REGISTERED ? 'registered' : request.tier === commonV1.Tier.ANONYMOUS ? 'anonymous' : undefined;
      if (!tier) throw new AppError('invalid_body', 'tier must be ANONYMOUS or REGISTERED');
      const grant = await grantTrialCredits(deps, { agentId: request.agentId, tier, commercialOnly: request.commercialOnly });
      const balance = await getBalance(deps, request.agentId);
      return { ...grant, balance: balance.credits };
    }),
    debitCredits: unaryHandler<billingV1.DebitCreditsRequest, billingV1.DebitCreditsResponse>(async (request) => {
      const entry = await debitCredits(deps, request);
      return { entryId: Number(entry.entryId), balance: entry.balanceAfter, replayed: entry.replayed };
    }),
    refundCredits: unaryHandler<billingV1.RefundCreditsRequest, billingV1.RefundCreditsResponse>(async (request) => {
      const entry = await refundCredits(deps, { agentId: request.agentId, debitEntryId: BigInt(request.debitEntryId), reason: request.reason, ...(request.credits !== undefined ? { credits: request.credits } : {}) });
      return { entryId: Number(entry.entryId), balance: entry.balanceAfter };
    }),
    createCreditPurchase: unaryHandler<billingV1.CreateCreditPurchaseRequest, billingV1.CreateCreditPurchaseResponse>(async (request) => {
      if (request.sharedPaymentToken !== undefined) {
        const paid = await purchaseWithToken(deps.purchases, { agentId: request.agentId, pack: request.pack, token: request.sharedPaymentToken });
        return { result: { $case: 'tokenPayment', value: paid } };
      }
      const offer = await createCreditPurchase(deps.purchases, { agentId: request.agentId, pack: request.pack });
      return {
        result: {
          $case: 'checkout',
          value: { checkoutUrl: offer.checkoutUrl, pack: offer.pack, credits: offer.credits, priceCents: offer.priceCents, expiresAt: timestampFromDate(offer.expiresAt) },
        },
      };
    }),
    handlePaymentWebhook: unaryHandler<billingV1.HandlePaymentWebhookRequest, billingV1.HandlePaymentWebhookResponse>(async (request) => {
      const ingested = await handlePaymentWebhook(deps.purchases, Buffer.from(request.payload), request.signature);
      return { providerEventId: ingested.eventId, eventType: ingested.type, duplicate: ingested.duplicate };
    }),
    confirmCheckoutSession: unaryHandler<billingV1.ConfirmCheckoutSessionRequest, billingV1.ConfirmCheckoutSessionResponse>(async (request) => {
      const view = await confirmCheckoutSession(deps.purchases, request.checkoutSessionId);
      return { ...view, state: checkoutStateToProto[view.state] };
    }),
    getSubscription: unaryHandler<billingV1.GetSubscriptionRequest, billingV1.GetSubscriptionResponse>(async (request) => {
      const view = await getSubscription(deps, request.agentId);
      return { subscription: balanceToProto(view), holdsForMs: view.holdsForMs };
    }),
    createSubscriptionCheckout: unaryHandler<billingV1.CreateSubscriptionCheckoutRequest, billingV1.CreateSubscriptionCheckoutResponse>(async (request) => {
      const result = await createSubscriptionCheckout(deps.purchases, { agentId: request.agentId, plan: request.plan, contactEmail: request.contactEmail });
      switch (result.kind) {
        case 'checkout':
          return {
            result: {
              $case: 'checkout',
              value: { checkoutUrl: result.checkoutUrl, plan: result.plan, expiresAt: timestampFromDate(result.expiresAt), includesTrial: result.trialDays > 0, trialDays: result.trialDays, trialRefusal: result.trialRefusal ?? undefined },
            },
          };
        case 'portal':
          return { result: { $case: 'portalUrl', value: result.portalUrl } };
        case 'scheduled':
          return { result: { $case: 'scheduled', value: { plan: result.plan, effectiveAt: timestampFromDate(result.effectiveAt), currentPlan: result.currentPlan } } };
      }
    }),
    createPortalSession: unaryHandler<billingV1.CreatePortalSessionRequest, billingV1.CreatePortalSessionResponse>(async (request) => ({
      portalUrl: await createPortalSession(deps.purchases, request.agentId),
    })),
    changePlan: unaryHandler<billingV1.ChangePlanRequest, billingV1.ChangePlanResponse>(async (request) => {
      const change = await changePlan(deps.purchases, { agentId: request.agentId, plan: request.plan });
      return { scheduled: { plan: change.plan, effectiveAt: timestampFromDate(change.effectiveAt), currentPlan: change.currentPlan } };
    }),
    cancelSubscription: unaryHandler<billingV1.CancelSubscriptionRequest, billingV1.CancelSubscriptionResponse>(async (request) => {
      const { accessEndsAt } = await cancelSubscription(deps.purchases, request.agentId);
      return { accessEndsAt: timestampFromDate(accessEndsAt), subscription: balanceToProto(await getSubscription(deps, request.agentId)) };
    }),
    reserveGrade: unaryHandler<billingV1.ReserveGradeRequest, billingV1.ReserveGradeResponse>(async (request) => {
      const r = await reserveGrade(deps, { agentId: request.agentId, gradeId: BigInt(request.gradeId) });
      return {
        reservationId: Number(r.reservationId),
        billingSource: r.source === 'trial' ? commonV1.BillingSource.TRIAL : commonV1.BillingSource.SUBSCRIPTION,
        gradesCharged: r.gradesCharged,
        ...(r.gradesRemaining !== null ? { gradesRemaining: r.gradesRemaining } : {}),
      };
    }),
    commitGrade: unaryHandler<billingV1.CommitGradeRequest, billingV1.CommitGradeResponse>(async (request) => {
      await commitGrade(deps, { agentId: request.agentId, ...reservationRef(request) });
      return {};
    }),
    refundGrade: unaryHandler<billingV1.RefundGradeRequest, billingV1.RefundGradeResponse>(async (request) =>
      refundGrade(deps, { agentId: request.agentId, ...reservationRef(request), reason: request.reason }),
    ),
  };
  return { definition: billingV1.BillingServiceService, implementation };
}

/** CommitGrade / RefundGrade name the reservation by its id, or (reservation_id 0) by the grade id. */
function reservationRef(request: { reservationId: number; gradeId: number }): ReservationRef {
  if (request.reservationId > 0) return { reservationId: BigInt(request.reservationId) };
  if (request.gradeId > 0) return { gradeId: BigInt(request.gradeId) };
  throw new AppError('invalid_body', 'Name the reservation by reservation_id or grade_id.');
}
