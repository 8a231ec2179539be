import { billingSandboxV1, timestampFromDate } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { unaryHandler, type GrpcService } from '@cardlens/grpc-kit';
import { PaymentProviderError } from '../payments/provider';
import type { SandboxProvider } from '../payments/sandbox-provider';

/**
 * The sandbox provider's RPCs (checkout page, billing portal page, test clock); without the sandbox (a Stripe
 * key is configured) every call is not_found.
 */
export function sandboxCheckoutGrpcService(sandbox: SandboxProvider | undefined): GrpcService {
  const active = (): SandboxProvider => {
    if (!sandbox) throw new AppError('not_found', 'There is no sandbox checkout on this server.');
    return sandbox;
  };
  const notFound = (error: unknown): never => {
    if (error instanceof PaymentProviderError && error.kind === 'not_found') throw new AppError('checkout_not_found', 'No sandbox checkout session with this id.');
    if (error instanceof PaymentProviderError) throw new AppError('invalid_body', `This checkout cannot be paid: ${error.message}.`);
    throw error;
  };
  const implementation: billingSandboxV1.SandboxCheckoutServiceServer = {
    getSandboxCheckout: unaryHandler<billingSandboxV1.GetSandboxCheckoutRequest, billingSandboxV1.GetSandboxCheckoutResponse>(async (request) => {
      const view = await active().getCheckout(request.checkoutSessionId);
      if (!view) throw new AppError('checkout_not_found', 'No sandbox checkout session with this id.');
      return {
        checkout: {
          checkoutSessionId: view.id,
          status: view.status,
          description: view.description,
          amountCents: view.amountCents,
          currency: view.currency,
          expiresAt: timestampFromDate(view.expiresAt),
          successUrl: view.successUrl,
          cancelUrl: view.cancelUrl,
          mode: view.mode,
          trialDays: view.trialDays,
        },
      };
    }),
    completeSandboxCheckout: unaryHandler<billingSandboxV1.CompleteSandboxCheckoutRequest, billingSandboxV1.CompleteSandboxCheckoutResponse>(async (request) => {
      const provider = active();
      const pay = request.action === billingSandboxV1.SandboxCheckoutAction.PAY;
      if (!pay && request.action !== billingSandboxV1.SandboxCheckoutAction.CANCEL) throw new AppError('invalid_body', 'action must be PAY or CANCEL');
      const redirectUrl = await (pay ? provider.pay(request.checkoutSessionId, request.cardNumber || undefined) : provider.cancel(request.checkoutSessionId)).catch(notFound);
      return { redirectUrl };
    }),
    getSandboxPortal: unaryHandler<billingSandboxV1.GetSandboxPortalRequest, billingSandboxV1.GetSandboxPortalResponse>(async (request) => {
      const view = await active().getPortal(request.portalSessionId);
      if (!view) throw new AppError('not_found', 'No sandbox portal session with this id.');
      return {
        portal: {
          portalSessionId: view.id,
          subscriptionId: view.subscriptionId,
          plan: view.plan,
          status: view.status,
          cancelAtPeriodEnd: view.cancelAtPeriodEnd,
          cardLast4: view.cardLast4,
          renewsOrEndsAt: view.renewsOrEndsAt ? timestampFromDate(view.renewsOrEndsAt) : undefined,
          returnUrl: view.returnUrl,
          priceCents: view.priceCents,
        },
      };
    }),
    actOnSandboxPortal: unaryHandler<billingSandboxV1.ActOnSandboxPortalRequest, billingSandboxV1.ActOnSandboxPortalResponse>(async (request) => {
      const action =
        request.action === billingSandboxV1.SandboxPortalAction.UPDATE_CARD ? 'update_card' : request.action === billingSandboxV1.SandboxPortalAction.CANCEL_AT_PERIOD_END ? 'cancel_at_period_end' : undefined;
      if (!action) throw new AppError('invalid_body', 'action must be UPDATE_CARD or CANCEL_AT_PERIOD_END');
      const redirectUrl = await active()
        .portalAct(request.portalSessionId, action, request.cardNumber || undefined)
        .catch((error: unknown) => {
          if (error instanceof PaymentProviderError && error.kind === 'not_found') throw new AppError('not_found', 'No sandbox portal session with this id.');
          return notFound(error);
        });
      return { redirectUrl };
    }),
    getSandboxClock: unaryHandler<billingSandboxV1.GetSandboxClockRequest, billingSandboxV1.GetSandboxClockResponse>(() => {
      const { clock } = active();
      return { clock: { now: timestampFromDate(clock.now()), offsetSeconds: clock.offsetSeconds } };
    }),
    advanceSandboxClock: unaryHandler<billingSandboxV1.AdvanceSandboxClockRequest, billingSandboxV1.AdvanceSandboxClockResponse>(async (request) => {
      const moved = await active().advanceClock(Number(request.seconds)).catch(notFound);
      return { clock: { now: timestampFromDate(moved.now), offsetSeconds: moved.offsetSeconds }, eventsEmitted: moved.eventsEmitted };
    }),
  };
  return { definition: billingSandboxV1.SandboxCheckoutServiceService, implementation };
}
