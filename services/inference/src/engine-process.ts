// The card engine in a child process of the inference service (forked by EngineProcesses). An analysis that runs
// past its budget is stopped by killing this process: SIGKILL ends a busy loop, frees its memory and any native
// (GPU) state at once, which no in-process cancellation can promise. A process rather than a worker thread
// because tfjs-node's native binding cannot be loaded again in a second thread of one process.
import { isAppError } from '@cardlens/errors';
import { createLogger } from '@cardlens/telemetry';
import { createCardEngine, type CardAnalysis, type SideAnalysis } from '@cardlens/vision';
import type { EngineReply, EngineRequest, SideSummary } from './engine-protocol';

const send = (reply: EngineReply) => process.send?.(reply);
// The parent going away (stopped, or killed itself) ends this process too.
process.on('disconnect', () => process.exit(0));

const logger = createLogger('inference-engine');
const engine = await createCardEngine({ logger });
const warm = await engine.warmUp();
send({ type: 'ready', backend: engine.backend, version: engine.version, warmUpMs: warm.ms });

process.on('message', (request: EngineRequest) => {
  void analyze(request);
});

async function analyze(request: EngineRequest): Promise<void> {
  try {
    const analysis = await engine.analyzeCard(request.input, request.options);
    // For operators: a face read only in part (the photo itself is never logged).
    if (analysis.ocrWork?.capped) logger.info({ ocrEms: Math.round(analysis.ocrWork.ems) }, 'identification OCR cut at its work allowance');
    send({ type: 'result', id: request.id, analysis: summarise(analysis) });
  } catch (error) {
    send({
      type: 'error',
      id: request.id,
      error: isAppError(error) ? { code: error.code, detail: error.detail } : { message: error instanceof Error ? error.message : String(error) },
    });
  }
}

/** What the service answers with; the rectified images and working photos stay here. */
function summarise(analysis: CardAnalysis) {
  const side = (s: SideAnalysis): SideSummary => ({
    quadPx: s.quadPx,
    imageSize: s.imageSize,
    detectionConfidence: s.detectionConfidence,
    detector: s.detector,
    centering: s.centering,
  });
  return {
    sides: { front: side(analysis.sides.front), ...(analysis.sides.back ? { back: side(analysis.sides.back) } : {}) },
    grading: analysis.grading,
    ...(analysis.evidence ? { evidence: analysis.evidence } : {}),
    ...(analysis.ocrWork ? { ocrWork: analysis.ocrWork } : {}),
    ...(analysis.overlayPng ? { overlayPng: new Uint8Array(analysis.overlayPng) } : {}),
  };
}
