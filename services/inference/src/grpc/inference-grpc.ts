import type { ServerUnaryCall } from '@grpc/grpc-js';
import { inferenceV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { unaryHandler, type GrpcService } from '@cardlens/grpc-kit';
import { histogram, inServerSpan, inSpan } from '@cardlens/telemetry';
import type { AnalysisQueue } from '../analysis-queue';
import { analysisWindow, notStartedInTime, StartWindow } from '../analysis-window';
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
      const answerIfRemembered = () => {
        if (!deps.tooComplex.has(photoKey)) return;
        analysisSeconds.startTimer()({ outcome: 'image_too_complex_remembered' });
        throw new AppError('image_too_complex', 'This photo was already found too complex to analyse within the time or memory an analysis may use; it is not analysed again. Photograph the card alone, flat and filling most of the frame, on a plain background.');
      };
      answerIfRemembered();
      // Every answer goes out before the caller's deadline (analysis-window.ts): not started on the engine in time,
      // grader_busy (never analysed: safe to retry); started, its result or image_too_complex.
      const window = analysisWindow(remainingMs(call), deps.budgetMs);
      if (!window) {
        // Too little time left to analyse and answer: not started; the caller's own deadline answers it.
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, remainingMs(call))));
        throw new AppError('service_unavailable', "The caller's deadline left no time for an analysis.");
      }
      const start = new StartWindow(window.startWithinMs);
      const abandoned = callerGaveUp(call);
      const queued = queueWaitSeconds.startTimer();
      const analyse = () => {
        if (start.missed) return Promise.reject(notStartedInTime());
        return deps.queue.run(async () => {
          queued();
          const analysed = analysisSeconds.startTimer();
          try {
            const result = await inSpan('inference engine analysis', () => deps.engine.analyzeCard(
              { front: request.front, ...(request.back && request.back.length > 0 ? { back: request.back } : {}) },
              { overlay: request.wantOverlay, evidence: request.wantEvidence },
              // No work for a caller that is gone: the analysis ends ahead of the caller's deadline if that comes first.
              window.runMs,
              () => start.begin(),
            ));
            analysed({ outcome: 'ok' });
            return result;
          } catch (error) {
            analysed({ outcome: error instanceof AppError ? error.code : 'error' });
            if (error instanceof AppError && error.code === 'image_too_complex' && window.fullBudget) deps.tooComplex.remember(photoKey);
            throw error;
          }
        }, () => abandoned() || start.missed);
      };
      // The analysis is its own span (waiting for a slot, then the engine), in the caller's trace. The same bytes
      // already being analysed (a poison photo sent several times at once): this call waits for that analysis (within
      // its start window) and is then answered from memory if the engine gave up on it: the photo reaches the engine once.
      const analysis = await inServerSpan('inference AnalyzeCard', call.metadata.getMap(), () =>
        start.race(deps.tooComplex.onePerPhoto(photoKey, analyse, answerIfRemembered, () => deps.queue.hold())),
      ).finally(() => start.close());
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
