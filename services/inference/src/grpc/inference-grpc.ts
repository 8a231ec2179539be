import type { ServerUnaryCall } from '@grpc/grpc-js';
import { inferenceV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { unaryHandler, type GrpcService } from '@cardlens/grpc-kit';
import { histogram, inServerSpan, inSpan } from '@cardlens/telemetry';
import type { AnalysisQueue } from '../analysis-queue';
import type { EngineProcesses } from '../engine-processes';
import { TooComplexPhotos } from '../too-complex-photos';
import { gradingToProto } from './to-proto';

const queueWaitSeconds = histogram('cardlens_inference_queue_wait_seconds', 'Time an analysis waited for an engine slot.', []);
const analysisSeconds = histogram('cardlens_inference_analysis_seconds', 'Engine analyses: duration by outcome (ok, image_too_complex, ...).', ['outcome']);

/** Thin transport: validate, queue one engine analysis (honouring the caller's deadline), map the result. */
export function inferenceGrpcService(deps: { engine: EngineProcesses; queue: AnalysisQueue; tooComplex: TooComplexPhotos; budgetMs: number }): GrpcService {
  const implementation: inferenceV1.InferenceServiceServer = {
    analyzeCard: unaryHandler<inferenceV1.AnalyzeCardRequest, inferenceV1.AnalyzeCardResponse>(async (request, call) => {
      if (!request.front || request.front.length === 0) throw new AppError('missing_front_image', 'The front image is required.');
      // A photo the engine already gave up on is not sent to it again for a while.
      const photoKey = TooComplexPhotos.keyOf(request.front, request.back);
      if (deps.tooComplex.has(photoKey)) {
        analysisSeconds.startTimer()({ outcome: 'image_too_complex_remembered' });
        throw new AppError('image_too_complex', 'This photo was already found too complex to analyse within the time or memory an analysis may use; it is not analysed again. Photograph the card alone, flat and filling most of the frame, on a plain background.');
      }
      const fullBudget = remainingMs(call) >= deps.budgetMs;
      const abandoned = callerGaveUp(call);
      const queued = queueWaitSeconds.startTimer();
      // The analysis is its own span (waiting for a slot, then the engine), in the caller's trace.
      const analysis = await inServerSpan('inference AnalyzeCard', call.metadata.getMap(), () => deps.queue.run(async () => {
        queued();
        const analysed = analysisSeconds.startTimer();
        try {
          const result = await inSpan('inference engine analysis', () => deps.engine.analyzeCard(
            { front: request.front, ...(request.back && request.back.length > 0 ? { back: request.back } : {}) },
            { overlay: request.wantOverlay, evidence: request.wantEvidence },
            // No work for a caller that is gone: the analysis ends with the caller's deadline if that comes first.
            remainingMs(call),
          ));
          analysed({ outcome: 'ok' });
          return result;
        } catch (error) {
          analysed({ outcome: error instanceof AppError ? error.code : 'error' });
          if (error instanceof AppError && error.code === 'image_too_complex' && fullBudget) deps.tooComplex.remember(photoKey);
          throw error;
        }
      }, abandoned));
      // Corners normalised to the photo's displayed (EXIF-oriented) size, as the contract defines them.
      const detection = (side: typeof analysis.sides.front | undefined): inferenceV1.CardDetection | undefined =>
        side
          ? {
              found: true,
              quad: side.quadPx.map(([x, y]) => ({ x: x / side.imageSize.width, y: y / side.imageSize.height })),
              confidence: side.detectionConfidence,
              detector: side.detector,
            }
          : undefined;
      return {
        frontDetection: detection(analysis.sides.front),
        backDetection: detection(analysis.sides.back),
        grading: request.wantGrading
          ? gradingToProto(
              analysis.grading,
              { front: analysis.sides.front.centering, ...(analysis.sides.back ? { back: analysis.sides.back.centering } : {}) },
              Boolean(analysis.overlayPng),
              deps.engine.version,
            )
          : undefined,
        evidence: analysis.evidence,
        ...(analysis.overlayPng ? { overlayPng: Buffer.from(analysis.overlayPng.buffer, analysis.overlayPng.byteOffset, analysis.overlayPng.byteLength) } : {}),
        modelVersion: deps.engine.version,
      };
    }),
  };
  return { definition: inferenceV1.InferenceServiceService, implementation };
}

/** Time left before the caller's deadline (Infinity without one). */
function remainingMs(call: ServerUnaryCall<unknown, unknown>): number {
  const deadline = call.getDeadline();
  const deadlineMs = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  return Number.isFinite(deadlineMs) && deadlineMs > 0 ? deadlineMs - Date.now() : Infinity;
}

/** True once the caller cancelled or its deadline passed: queued work for it is dropped. */
function callerGaveUp(call: ServerUnaryCall<unknown, unknown>): () => boolean {
  const deadline = call.getDeadline();
  const deadlineMs = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  return () => call.cancelled || (Number.isFinite(deadlineMs) && deadlineMs > 0 && Date.now() > deadlineMs);
}
