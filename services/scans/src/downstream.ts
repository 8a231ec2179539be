import { billingV1, inferenceV1, valuationV1 } from '@cardlens/contracts';
import { callUnary, createClient } from '@cardlens/grpc-kit';

/** The services scans calls, over gRPC: one function per call it makes. */
export type Downstream = ReturnType<typeof createDownstream>;

export function createDownstream(options: {
  billingAddress: string;
  inferenceAddress: string;
  valuationAddress: string;
  deadlineMs: number;
  inferenceDeadlineMs: number;
  valuationDeadlineMs: number;
}) {
  const billing = createClient(billingV1.BillingServiceClient, options.billingAddress);
  const inference = createClient(inferenceV1.InferenceServiceClient, options.inferenceAddress);
  const valuation = createClient(valuationV1.ValuationServiceClient, options.valuationAddress);
  const deadline = { deadlineMs: options.deadlineMs };
  const valuationDeadline = { deadlineMs: options.valuationDeadlineMs };

  return {
    billing: {
      modulePrices: async () => (await callUnary(billing, 'getPricing', {}, deadline)).modules,
      balance: async (agentId: number) => (await callUnary(billing, 'getBalance', { agentId }, deadline)).credits,
      /** Idempotent by key: a repeat returns the first debit (replayed) and charges nothing. */
      debit: (request: billingV1.DebitCreditsRequest) => callUnary(billing, 'debitCredits', request, deadline),
      /** Refunds a debit in full, at most once. */
      refund: (request: billingV1.RefundCreditsRequest) => callUnary(billing, 'refundCredits', request, deadline),
    },
    analyzeCard: (request: inferenceV1.AnalyzeCardRequest) => callUnary(inference, 'analyzeCard', request, { deadlineMs: options.inferenceDeadlineMs }),
    identifyCard: (request: valuationV1.IdentifyCardRequest) => callUnary(valuation, 'identifyCard', request, valuationDeadline),
    analyzeMarket: (request: valuationV1.AnalyzeMarketRequest) => callUnary(valuation, 'analyzeMarket', request, valuationDeadline),
    close(): void {
      billing.close();
      inference.close();
      valuation.close();
    },
  };
}
