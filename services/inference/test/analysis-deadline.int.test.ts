// Every analysis answers ahead of its caller's deadline, over real gRPC (the engine is a stand-in that takes its
// whole budget, like a poison photo): an analysis still waiting for the engine when its start window closes is
// answered grader_busy and never reaches the engine; one on the engine answers image_too_complex at its budget,
// before the deadline, and is remembered; a caller with no time left gets its own DEADLINE_EXCEEDED, with no engine
// work. So a scan can tell "the photo was on the engine" (not retried) from "it only waited" (retried).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { inferenceV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { callUnary, createClient, startGrpcServer, type GrpcServer } from '@cardlens/grpc-kit';
import { AnalysisQueue } from '../src/analysis-queue';
import type { EngineProcesses } from '../src/engine-processes';
import { inferenceGrpcService } from '../src/grpc/inference-grpc';
import { TooComplexPhotos } from '../src/too-complex-photos';

const BUDGET_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('inference answers ahead of the caller deadline', () => {
  let server: GrpcServer;
  let client: inferenceV1.InferenceServiceClient;
  const engineRuns: string[] = [];
  beforeAll(async () => {
    // Runs every photo for its whole budget, then gives up on it, as the engine does with a poison photo.
    const engine = {
      version: 'stand-in',
      async analyzeCard(input: { front: Uint8Array }, _options: unknown, budgetMs: number, begin: () => boolean = () => true) {
        if (!begin()) throw new AppError('grader_busy', 'not started');
        engineRuns.push(Buffer.from(input.front).toString());
        await sleep(budgetMs);
        throw new AppError('image_too_complex', 'cut at its budget');
      },
    } as unknown as EngineProcesses;
    server = await startGrpcServer({
      port: 0,
      services: [inferenceGrpcService({ engine, queue: new AnalysisQueue({ concurrency: 1, maxQueued: 4 }), tooComplex: new TooComplexPhotos(60_000), budgetMs: BUDGET_MS })],
      logger: pino({ level: 'silent' }),
    });
    client = createClient(inferenceV1.InferenceServiceClient, `127.0.0.1:${server.port}`);
  });
  afterAll(async () => {
    client?.close();
    await server?.shutdown();
  });

  const analyze = (photo: string, deadlineMs: number) => {
    const started = Date.now();
    return callUnary(client, 'analyzeCard', { front: Buffer.from(photo), wantGrading: false, wantEvidence: true, wantOverlay: false }, { deadlineMs }).then(
      () => ({ code: 'ok', ms: Date.now() - started, cause: undefined as unknown }),
      (error: unknown) => ({ code: (error as AppError).code, ms: Date.now() - started, cause: ((error as AppError).cause as { code?: number } | undefined)?.code }),
    );
  };

  it('one on the engine answers image_too_complex at its budget; one only waiting answers grader_busy, never analysed', async () => {
    // 3.5 s deadline: 1.5 s usable before the 2 s answer margin, 1 s of it the run, so 0.5 s to start.
    const [onEngine, waiting] = await Promise.all([analyze('poison', 3500), sleep(20).then(() => analyze('other', 3500))]);
    expect(onEngine.code).toBe('image_too_complex');
    expect(onEngine.ms).toBeLessThan(3500 - 1000);
    expect(waiting.code).toBe('grader_busy');
    expect(waiting.ms).toBeLessThan(1500);
    expect(engineRuns).toEqual(['poison']);

    // The poison again, and twice at once: answered from memory, without the engine.
    const again = await Promise.all([analyze('poison', 60_000), analyze('poison', 60_000)]);
    expect(again.map((r) => r.code)).toEqual(['image_too_complex', 'image_too_complex']);
    expect(engineRuns).toEqual(['poison']);
  });

  it('copies of a new photo sent at once reach the engine once', async () => {
    const copies = await Promise.all([analyze('twin', 60_000), analyze('twin', 60_000), analyze('twin', 60_000)]);
    expect(copies.map((r) => r.code)).toEqual(['image_too_complex', 'image_too_complex', 'image_too_complex']);
    expect(engineRuns.filter((photo) => photo === 'twin')).toHaveLength(1);
  });

  it('a caller with no time to analyse and answer gets its own DEADLINE_EXCEEDED, and the engine does no work', async () => {
    const late = await analyze('late', 500);
    expect(late.code).toBe('service_unavailable');
    expect(late.cause).toBe(GrpcStatus.DEADLINE_EXCEEDED);
    expect(engineRuns).not.toContain('late');
  });
});
