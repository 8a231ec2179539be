import { billingV1, inferenceV1 } from '@cardlens/contracts';
import { callUnary, createClient } from '@cardlens/grpc-kit';

/** The services grading calls, over gRPC: billing's grade allowance and the inference engine. */
export type Downstream = ReturnType<typeof createDownstream>;

export function createDownstream(options: { billingAddress: string; inferenceAddress: string; deadlineMs: number }) {
  const billing = createClient(billingV1.BillingServiceClient, options.billingAddress);
  const inference = createClient(inferenceV1.InferenceServiceClient, options.inferenceAddress);
  const deadline = { deadlineMs: options.deadlineMs };
  return {
    billing: {
      /** One grade of the trial or the current period, for this grade id (idempotent per grade id). */
      reserve: (agentId: number, gradeId: bigint) => callUnary(billing, 'reserveGrade', { agentId, gradeId: Number(gradeId) }, deadline),
      /** The grade completed: its reservation becomes a use. Idempotent. */
      commit: (agentId: number, gradeId: bigint) => callUnary(billing, 'commitGrade', { agentId, reservationId: 0, gradeId: Number(gradeId) }, deadline),
      /** The grade failed: back to the period it came from; nothing when it was never reserved. Idempotent. */
      refund: (agentId: number, gradeId: bigint, reason: string) =>
        callUnary(billing, 'refundGrade', { agentId, reservationId: 0, gradeId: Number(gradeId), reason }, deadline),
    },
    /** Grading only: no identification evidence, no overlay. */
    analyze: (photos: { front: Uint8Array; back: Uint8Array }, deadlineMs: number) =>
      callUnary(
        inference,
        'analyzeCard',
        { front: Buffer.from(photos.front), back: Buffer.from(photos.back), wantGrading: true, wantEvidence: false, wantOverlay: false },
        { deadlineMs },
      ),
    close(): void {
      billing.close();
      inference.close();
    },
  };
}
