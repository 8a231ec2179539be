import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import sharp from 'sharp';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { generateSample } from '@cardlens/card-synth';
import { inferenceV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { callUnary, createClient } from '@cardlens/grpc-kit';
import { loadInferenceConfig } from '../src/config';
import { startInferenceService, type RunningService } from '../src/service';

// The inference service over real gRPC with the real engine, on generated photos whose truth is known.
describe('inference service over gRPC', () => {
  let service: RunningService;
  let client: inferenceV1.InferenceServiceClient;
  const deadline = { deadlineMs: 120_000 };

  beforeAll(async () => {
    service = await startInferenceService({
      config: loadInferenceConfig({ INFERENCE_GRPC_PORT: '0', INFERENCE_CONCURRENCY: '1', INFERENCE_MAX_QUEUED: '1' }),
      logger: pino({ level: 'silent' }),
    });
    client = createClient(inferenceV1.InferenceServiceClient, `127.0.0.1:${service.grpcPort}`);
  }, 180_000);
  afterAll(async () => {
    client?.close();
    await service?.stop();
  });

  it('analyses a front/back pair: detection, centering, sub-grades, justification, overlay', async () => {
    const sample = await generateSample(1_000_006);
    const response = await callUnary(client, 'analyzeCard', { front: sample.frontJpeg, back: sample.backJpeg, wantGrading: true, wantEvidence: false, wantOverlay: false }, deadline);
    expect(response.frontDetection?.found).toBe(true);
    expect(response.frontDetection?.detector).toBe('classical');
    // corners normalised to the photo size, within 5 px of the truth
    const { quadPx: truthQuad, widthPx, heightPx } = sample.label.photo.front;
    response.frontDetection!.quad.forEach((p, i) => {
      expect(Math.abs(p.x * widthPx - truthQuad[i]![0])).toBeLessThan(5);
      expect(Math.abs(p.y * heightPx - truthQuad[i]![1])).toBeLessThan(5);
    });
    const grading = response.grading!;
    expect(Math.abs(grading.frontCentering!.leftRight - sample.label.centering.front.leftRight)).toBeLessThan(2);
    // A plain back has no printed up: its centering is compared as the larger share, which is what grades it.
    const larger = (share: number) => Math.max(share, 100 - share);
    expect(Math.abs(larger(grading.backCentering!.topBottom) - larger(sample.label.centering.back.topBottom))).toBeLessThan(2);
    expect(Math.abs(larger(grading.backCentering!.leftRight) - larger(sample.label.centering.back.leftRight))).toBeLessThan(2);
    expect(grading.subGradeConfidences!.corners).toBeGreaterThan(0);
    expect(grading.subGradeConfidences!.corners).toBeLessThanOrEqual(1);
    expect(grading.grade).toBeGreaterThanOrEqual(1);
    expect(grading.grade).toBeLessThanOrEqual(10);
    expect(grading.justification).toMatch(/AI estimate/i);
    expect(grading.notAssessed).toEqual([]);
    expect(response.modelVersion).toMatch(/^cardlens-vision/);
  }, 180_000);

  it('without a back, says what it could not assess', async () => {
    const sample = await generateSample(1_000_003);
    const response = await callUnary(client, 'analyzeCard', { front: sample.frontJpeg, wantGrading: true, wantEvidence: false, wantOverlay: false }, deadline);
    expect(response.backDetection).toBeUndefined();
    expect(response.grading!.notAssessed).toEqual(expect.arrayContaining(['back_centering', 'back_corners', 'back_edges', 'back_surface']));
  }, 180_000);

  it('predicts no professional grade from a photo on which nothing could be assessed, and says why', async () => {
    // The card's long side at about 300 px: under 5 px per mm, too few for centering, corners, edges or surface.
    const sample = await generateSample(1_000_003);
    const small = await sharp(sample.frontJpeg).resize({ height: 360 }).jpeg({ quality: 92 }).toBuffer();
    const response = await callUnary(client, 'analyzeCard', { front: small, wantGrading: true, wantEvidence: false, wantOverlay: false }, deadline);
    expect(response.frontDetection?.found).toBe(true);
    const grading = response.grading!;
    expect(grading.notAssessed).toEqual(expect.arrayContaining(['front_centering', 'front_corners', 'front_edges', 'front_surface']));
    expect(grading.predictedGrade).toBeUndefined();
    expect(grading.gradeDistribution).toEqual([]);
    expect(grading.summary).toMatch(/^No grade: nothing could be assessed/);
    // No centering share is sent for a side whose centering was not assessed.
    expect(grading.frontCentering).toBeUndefined();
    expect(grading.notAssessedReasons.find((r) => r.item === 'front_corners')?.reason).toMatch(/pixels per mm/);
  }, 180_000);

  it.each([
    ['not an image', Buffer.from('hello, this is not a photo'), 'invalid_image'],
    ['a truncated JPEG', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46]), 'invalid_image'],
    ['no front', Buffer.alloc(0), 'missing_front_image'],
  ])('refuses %s with a typed error', async (_label, front, code) => {
    const error = await callUnary(client, 'analyzeCard', { front, wantGrading: true, wantEvidence: false, wantOverlay: false }, deadline).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(code);
  });

  it('returns the overlay PNG and the identification evidence when asked', async () => {
    const sample = await generateSample(1_000_002);
    const response = await callUnary(client, 'analyzeCard', { front: sample.frontJpeg, back: sample.backJpeg, wantGrading: true, wantEvidence: true, wantOverlay: true }, deadline);
    expect(response.grading!.overlayAvailable).toBe(true);
    const png = Buffer.from(response.overlayPng!);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const meta = await sharp(png).metadata();
    expect(meta.width).toBeGreaterThan(600);
    const evidence = response.evidence!;
    // the art fingerprint is L2-normalised; the border colour family and text come from the rectified card
    expect(Math.abs(Math.hypot(...evidence.fingerprint) - 1)).toBeLessThan(1e-3);
    expect(evidence.borderColor.length).toBeGreaterThan(0);
    expect(evidence.titleText.length + evidence.numberText.length + evidence.copyrightText.length).toBeGreaterThan(0);
  }, 180_000);

  it('answers card_not_found for a photo with no card in it', async () => {
    const empty = await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 90, g: 110, b: 95 } } }).jpeg().toBuffer();
    const error = await callUnary(client, 'analyzeCard', { front: empty, wantGrading: true, wantEvidence: false, wantOverlay: false }, deadline).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('card_not_found');
  }, 60_000);

  it('refuses work beyond the queue with grader_busy (one running, one queued)', async () => {
    const sample = await generateSample(1_000_005, { photo: { megapixels: 2 } });
    const request = { front: sample.frontJpeg, back: sample.backJpeg, wantGrading: true, wantEvidence: false, wantOverlay: false };
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => callUnary(client, 'analyzeCard', request, deadline)));
    const busy = results.filter((r) => r.status === 'rejected' && (r.reason as AppError).code === 'grader_busy');
    expect(busy.length).toBeGreaterThanOrEqual(1);
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThanOrEqual(2);
  }, 180_000);

  it('honours the caller deadline', async () => {
    const sample = await generateSample(1_000_006);
    const error = await callUnary(client, 'analyzeCard', { front: sample.frontJpeg, back: sample.backJpeg, wantGrading: true, wantEvidence: false, wantOverlay: false }, { deadlineMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('service_unavailable');
    expect(((error as AppError).cause as { code?: number }).code).toBe(GrpcStatus.DEADLINE_EXCEEDED);
  }, 60_000);
});
