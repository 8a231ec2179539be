import { billingSandboxV1, timestampFromDate } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { unaryHandler, type GrpcService } from '@cardlens/grpc-kit';
import { PaymentProviderError } from '../payments/provider';
import type { SandboxProvider } from '../payments/sandbox-provider';

/** The sandbox checkout page's RPCs; without the sandbox (a Stripe key is configured) every call is not_found. */
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
        },
      };
    }),
    completeSandboxCheckout: unaryHandler<billingSandboxV1.CompleteSandboxCheckoutRequest, billingSandboxV1.CompleteSandboxCheckoutResponse>(async (request) => {
      const provider = active();
      const pay = request.action === billingSandboxV1.SandboxCheckoutAction.PAY;
      if (!pay && request.action !== billingSandboxV1.SandboxCheckoutAction.CANCEL) throw new AppError('invalid_body', 'action must be PAY or CANCEL');
      const redirectUrl = await (pay ? provider.pay(request.checkoutSessionId) : provider.cancel(request.checkoutSessionId)).catch(notFound);
      return { redirectUrl };
    }),
  };
  return { definition: billingSandboxV1.SandboxCheckoutServiceService, implementation };
}
