import { describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { generateSample, type SampleLabel } from '@cardlens/card-synth';
import { AppError } from '@cardlens/errors';
import { analyzeSide, type CardAnalysis } from '../src/engine';
import { engineForTests } from './engine-for-tests';
import { encodeJpeg, renderScene } from './synthetic';
import { CROPPED_PHOTO_CONFIDENCE, decodePhoto, locateCroppedPhoto } from '../src/geometry/locate';
import { measureCentering } from '../src/geometry/centering';
import { homographyFromCanonical } from '../src/geometry/homography';

// The engine on a small fixed set of generated pairs from the validation range (never trained on, never the
// benchmark's), with tolerances. Accuracy over hundreds of pairs is `npm run bench:vision`'s job; these pin
// behaviour on cases the engine handles today so a change that breaks them is seen at once.
const engine = engineForTests();

const cornerErrorPct = (label: SampleLabel, analysis: CardAnalysis): number => {
  const truth = label.photo.front.quadPx;
  const diag = Math.hypot(truth[2]![0] - truth[0]![0], truth[2]![1] - truth[0]![1]);
  return Math.max(...analysis.sides.front.quadPx.map(([x, y], i) => Math.hypot(x - truth[i]![0], y - truth[i]![1]))) / diag * 100;
};

describe('engine on fixed generated pairs', () => {
  // Grade tolerance per case: faint surface marks (900603: a 6-level scuff) and fine edge wear (900606) are still
  // missed or over-read at times, which the benchmark reports; the rest are within one grade.
  it.each([
    [900_610, 'clean photo', 1],
    [900_603, 'card small in the frame', 2],
    [900_606, 'EXIF-rotated photo', 2],
  ])('seed %i (%s): corners, centering and the grade within tolerance', async (seed, _what, gradeTolerance) => {
    const { frontJpeg, backJpeg, label } = await generateSample(seed);
    const analysis = await engine().analyzeCard({ front: frontJpeg, back: backJpeg });
    expect(analysis.sides.front.detector).toBe('classical');
    expect(cornerErrorPct(label, analysis)).toBeLessThan(1);
    const front = analysis.sides.front.centering;
    expect(Math.abs(front.leftRight - label.centering.front.leftRight)).toBeLessThan(1);
    expect(Math.abs(front.topBottom - label.centering.front.topBottom)).toBeLessThan(1);
    expect(analysis.grading.subGrades.centering).toBe(label.truth.subGrades.centering);
    expect(Math.abs(analysis.grading.grade - label.truth.grade)).toBeLessThanOrEqual(gradeTolerance);
    // every sub-grade confidence is a probability, the distribution sums to 1
    for (const c of Object.values(analysis.grading.subGradeConfidences)) expect(c).toBeGreaterThan(0);
    expect(analysis.grading.gradeDistribution.reduce((a, g) => a + g.probability, 0)).toBeCloseTo(1, 3);
  }, 60_000);

  it('finds heavy damage: a truth-3 card grades 4 or lower, and the justification names the numbers', async () => {
    const { frontJpeg, backJpeg, label } = await generateSample(900_748);
    expect(label.truth.grade).toBeLessThanOrEqual(3);
    const analysis = await engine().analyzeCard({ front: frontJpeg, back: backJpeg });
    expect(analysis.grading.notAssessed).toEqual([]);
    expect(analysis.grading.grade).toBeLessThanOrEqual(4);
    expect(analysis.grading.justification).toMatch(/\d+(\.\d+)? mm/);
  }, 60_000);

  // Seed 900615's back is outlined with its right side about 5 mm inside the card's (3 % of the diagonal off): 0.676
  // as wide as tall with opposite sides equal within 0.7 %, which no tilt of a card gives. Until cardlens-vision-27 the
  // back's wear was read along that outline; now the back supports nothing, and says why.
  it("sets aside a side whose outline has no perspective and not a card's proportions, rather than grade wear along it", async () => {
    const { frontJpeg, backJpeg } = await generateSample(900_615);
    const analysis = await engine().analyzeCard({ front: frontJpeg, back: backJpeg });
    expect(analysis.grading.notAssessed).toEqual(['back_centering', 'back_corners', 'back_edges', 'back_surface']);
    expect(analysis.sides.back!.support.notAssessed.corners).toMatch(/with its opposite sides equal, so not a bare card's 0.72 seen at an angle/);
    expect(analysis.sides.front.support.notAssessed).toEqual({});
  }, 60_000);

  it('without a back, grades the front and says what it could not assess', async () => {
    const { frontJpeg } = await generateSample(900_610);
    const analysis = await engine().analyzeCard({ front: frontJpeg });
    expect(analysis.sides.back).toBeUndefined();
    expect(analysis.grading.notAssessed).toEqual(expect.arrayContaining(['back_centering', 'back_corners', 'back_edges', 'back_surface']));
  }, 60_000);

  it('a photo with too few pixels on the card: wear is not assessed, with the reason, and never lowers the grade', async () => {
    // The heavily damaged card of the test above, photographed at 0.3 MP (about 5 px per mm on the card).
    const { frontJpeg, backJpeg } = await generateSample(900_615, { photo: { megapixels: 0.3 } });
    const analysis = await engine().analyzeCard({ front: frontJpeg, back: backJpeg });
    const { grading } = analysis;
    expect(analysis.sides.front.support.pxPerMm).toBeLessThan(8);
    expect(grading.notAssessed).toEqual(expect.arrayContaining(['front_corners', 'front_edges', 'front_surface']));
    const reason = grading.notAssessedReasons.find((r) => r.item === 'front_corners')!.reason;
    expect(reason).toMatch(/^the card spans \d+(\.\d)? pixels per mm in the photo; 8 are needed/);
    expect(grading.defects.filter((d) => d.side === 'front')).toEqual([]);
    expect(grading.subGradeConfidences.corners).toBeLessThanOrEqual(0.3);
    expect(grading.justification).toContain('Not assessed, so graded as nothing seen');
  }, 60_000);

  it('draws the overlay and reads the identification evidence', async () => {
    const { frontJpeg, backJpeg, label } = await generateSample(900_603);
    const analysis = await engine().analyzeCard({ front: frontJpeg, back: backJpeg }, { overlay: true, evidence: true });
    const meta = await sharp(analysis.overlayPng!).metadata();
    expect(meta.format).toBe('png');
    expect(meta.width).toBeGreaterThan(600);
    const evidence = analysis.evidence!;
    expect(evidence.fingerprint.length).toBeGreaterThan(16);
    expect(evidence.borderColor.length).toBeGreaterThan(0);
    // the printed number is read (OCR may differ in spacing and the leading #)
    const digits = (s: string) => s.replace(/[^0-9/]/g, '');
    expect(digits(evidence.numberText)).toContain(digits(label.card.printedNumber).split('/')[0]);
    // The OCR starts once the sides are rectified, before their condition is measured: the two overlap, so the
    // whole analysis takes less than the sides and the evidence one after the other.
    const t = analysis.timingsMs;
    expect(t['evidence.ocrFront']).toBeGreaterThan(0);
    expect(t.total!).toBeLessThan(t.sides! + t.evidence!);
  }, 120_000);
});

describe('engine on bad inputs', () => {
  it('refuses a photo with no card as card_not_found', async () => {
    const empty = await sharp({ create: { width: 1200, height: 900, channels: 3, background: { r: 120, g: 100, b: 90 } } }).jpeg().toBuffer();
    const error = await engine().analyzeCard({ front: empty }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('card_not_found');
  });

  it.each([
    ['text', Buffer.from('not a photo at all')],
    ['a truncated JPEG', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46])],
  ])('refuses %s as invalid_image', async (_what, bytes) => {
    const error = await engine().analyzeCard({ front: bytes }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('invalid_image');
  });
});

describe('engine on a photo cropped to the card', () => {
  it("takes the photo's own frame for the card's outline when the photo has a card's proportions", async () => {
    // A scan cropped to the card's edges (a shop's or listing's photo): no background around the card, and the frame
    // printed inside it (a 20 mm name plate at the bottom) has no card's proportions.
    const width = 630;
    const height = 880;
    const scene = renderScene({
      width,
      height,
      quad: [[0, 0], [width, 0], [width, height], [0, height]],
      card: { leftMm: 3, rightMm: 3, topMm: 3, bottomMm: 22, border: [235, 235, 230], cornerRadiusMm: 0.3 },
      clutter: false,
    });
    const side = await analyzeSide(await encodeJpeg(scene));
    expect(side.detector).toBe('cropped-photo');
    // The corners are the photo's, in either order (which way is up is the layout model's decision).
    const frame = [[0, 0], [width, 0], [width, height], [0, height]];
    const offBy = (turn: number) => Math.max(...side.quadPx.map(([x, y], i) => Math.hypot(x - frame[(i + turn) % 4]![0]!, y - frame[(i + turn) % 4]![1]!)));
    expect(Math.min(offBy(0), offBy(2))).toBeLessThan(0.02 * width);
  }, 60_000);

  it("measures centering from the photo's frame: the borders of a cropped card", async () => {
    const width = 630;
    const height = 880;
    const card = { leftMm: 2.5, rightMm: 4, topMm: 3, bottomMm: 3.5, border: [235, 235, 230] as [number, number, number], cornerRadiusMm: 0.3 };
    const jpeg = await encodeJpeg(renderScene({ width, height, quad: [[0, 0], [width, 0], [width, height], [0, height]], card, clutter: false }));
    const located = locateCroppedPhoto(await decodePhoto(jpeg));
    expect(located).not.toBeNull();
    const c = measureCentering(located!.work, homographyFromCanonical(located!.quadWork), { assumedOutlineConfidence: CROPPED_PHOTO_CONFIDENCE });
    const turned = located!.orientation.flipped;
    const [l, r, t, b] = turned ? [c.rightMm, c.leftMm, c.bottomMm, c.topMm] : [c.leftMm, c.rightMm, c.topMm, c.bottomMm];
    expect(Math.abs(l - 2.5)).toBeLessThan(0.2);
    expect(Math.abs(r - 4)).toBeLessThan(0.2);
    expect(Math.abs(t - 3)).toBeLessThan(0.2);
    expect(Math.abs(b - 3.5)).toBeLessThan(0.2);
    expect(c.confidence).toBeGreaterThan(0.5);
    // a photo of other proportions is not taken for a cropped card
    const wide = await sharp({ create: { width: 1200, height: 900, channels: 3, background: { r: 235, g: 235, b: 230 } } }).jpeg().toBuffer();
    expect(locateCroppedPhoto(await decodePhoto(wide))).toBeNull();
  }, 60_000);

  it('a photo of a card\'s proportions with no outline anywhere (print running off every edge, as on a full-bleed card scanned edge to edge) is taken as cropped to the card', async () => {
    const w = 630;
    const h = 880;
    const data = new Uint8Array(w * h * 3);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        // Smooth colour waves: print everywhere, and not one straight line for the detector.
        data.set([128 + 90 * Math.sin(x / 37 + y / 53), 128 + 80 * Math.sin(Math.hypot(x - 300, y - 400) / 41), 128 + 70 * Math.cos(y / 29 - x / 71)], (y * w + x) * 3);
      }
    }
    const jpeg = await sharp(Buffer.from(data), { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
    const side = await analyzeSide(jpeg);
    expect(side.detector).toBe('cropped-photo');
    expect(side.support.notAssessed.edges).toMatch(/cropped to the card/);
  });

  it('a blank photo of a card\'s proportions is still no card', async () => {
    const blank = await sharp({ create: { width: 630, height: 880, channels: 3, background: { r: 235, g: 235, b: 230 } } }).jpeg().toBuffer();
    const error = await analyzeSide(blank).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('card_not_found');
  });
});
