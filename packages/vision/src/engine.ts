/**
 * The grading engine: photo bytes in, a graded and explained card out. Composition only — every number is
 * computed by the modules it calls:
 *   locate (decode at the scale the card needs, classical detection with the learned corner model as the
 *   fallback, subpixel corners) → centering on the photo through the card homography → rectify to 630 x 880
 *   (10 px/mm) → corners, edges, surface → the learned calibration of those measurements for the photo's
 *   conditions → the rubric (@cardlens/grading-rubric) → the learned severity models as a cross-check → optional
 *   overlay. The optional identification evidence (OCR on its own worker thread) starts from the rectified sides
 *   and overlaps everything after the rectification.
 */
import { gradeCard, gradeSide, type CardMeasurements, type RubricResult, type SideMeasurements } from '@cardlens/grading-rubric';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import { measureCondition, sideMeasurements, type ConditionAnalysis } from './defects';
import { createOcr, type OcrPool } from './evidence/ocr';
import { extractEvidence, type IdentificationEvidence } from './evidence/extract';
import type { OcrWork } from './evidence/ocrWork';
import { slabLabelImage } from './evidence/slabLabel';
import { measureCentering, type CenteringResult } from './geometry/centering';
import { assertCardFound } from './geometry/detect';
import { applyHomography, CANONICAL_PX_PER_MM, CARD_HEIGHT_MM, CARD_WIDTH_MM, homographyFromCanonical, rectify, type Homography } from './geometry/homography';
import { findCardInWell, findSlabLabel, hasDarkRim, isCardInWell, SLAB_LIMITS, type SlabLabel } from './geometry/holder';
import { orderCardCorners, outlineAspect, quadArea } from './geometry/quad';
import { CROPPED_PHOTO_CONFIDENCE, decodePhoto, frameBeyondMm, hasCardProportions, locateAt, locateCardWithin, locateCroppedPhoto, locateEndOf, locateOnWork, locateWithWideVotes, turnLocated, type DecodedPhoto, type LocatedCard } from './geometry/locate';
import { decodeScaled } from './image/decode';
import type { Quad, RgbImage } from './image/types';
import { predictCorners } from './models/keypoints';
import { calibrateSide } from './models/calibration';
import { createModelRuntime, type ModelRuntime } from './models/runtime';
import { predictSeverities, type SeverityPrediction } from './models/severity';
import { renderOverlay, type OverlaySide } from './overlay';
import { cornersAtPhotoEdge, isCardShapedOutline, PHOTO_SUPPORT_LIMITS, photoSupport, sidesAtPhotoEdge, type PhotoSupport } from './photo-support';

export const ENGINE_VERSION = 'cardlens-vision-29';
export type { IdentificationEvidence } from './evidence/extract';

/** Corner-model detections below this confidence are not trusted as a starting quad. */
const MIN_KEYPOINT_CONFIDENCE = 0.25;
/** Long side of the image the corner model looks at (it letterboxes to 128 px itself). */
const KEYPOINT_DETECT_LONG_SIDE = 512;

export interface SideAnalysis {
  /** Card corners TL,TR,BR,BL in the photo's (EXIF-oriented) pixels. */
  quadPx: Quad;
  /** The photo's (EXIF-oriented) size in pixels. */
  imageSize: { width: number; height: number };
  detectionConfidence: number;
  /**
   * Which detector found the card: the classical edge detector, the learned corner model (when the classical one
   * finds nothing), or the photo's own frame (a photo cropped to the card).
   */
  detector: 'classical' | 'keypoint-model' | 'cropped-photo';
  centering: CenteringResult;
  rectified: RgbImage;
  /** The working photo and the card quad in it (for the overlay thumbnail). */
  photo: { image: RgbImage; quad: Quad };
  condition: ConditionAnalysis;
  measurements: SideMeasurements;
  /** What this photo can support: resolution on the card, blur, and the aspects it cannot (with reasons). */
  support: PhotoSupport;
  /** The slab's label above the card, rectified, when the card is in a slab and the label is in the photo. */
  slabLabel: RgbImage | null;
}

/**
 * The learned severity models' view of one side next to the rubric's severities from the measurements, and
 * their largest disagreement (0..1). A large disagreement lowers the confidence of that sub-grade.
 */
export interface SeverityCrossCheck {
  learned: SeverityPrediction;
  disagreement: { corners: number; edges: number; surface: number };
}

export interface CardAnalysis {
  sides: { front: SideAnalysis; back?: SideAnalysis };
  grading: RubricResult;
  crossCheck: { front: SeverityCrossCheck; back?: SeverityCrossCheck };
  overlayPng?: Buffer;
  evidence?: IdentificationEvidence;
  /** The identification OCR's work, when evidence was asked for (EvidenceResult.ocrWork). */
  ocrWork?: OcrWork;
  timingsMs: Record<string, number>;
}

export interface AnalyzeOptions {
  overlay?: boolean;
  evidence?: boolean;
}

export interface CardEngine {
  readonly backend: string;
  readonly version: string;
  warmUp(): Promise<{ ms: number }>;
  analyzeCard(input: { front: Uint8Array; back?: Uint8Array }, options?: AnalyzeOptions): Promise<CardAnalysis>;
  close(): Promise<void>;
}

/**
 * Finds an outline on the decoded photo: the classical detector first (subpixel, explainable); when it finds
 * nothing, the learned corner model proposes a coarse quad that the same refinement then snaps to the card's edges;
 * when that is not confident either, the classical detector looks once more with wide votes. Null when none of them
 * finds one.
 */
async function locateOutline(
  bytes: Uint8Array,
  photo: DecodedPhoto,
  runtime: ModelRuntime | undefined,
): Promise<{ located: LocatedCard; detector: SideAnalysis['detector']; secondLook?: boolean } | null> {
  const classical = locateOnWork(photo);
  if (classical) return { located: classical, detector: 'classical' };
  if (runtime) {
    // The corner model reads its own small decode of the photo.
    const small = await decodeScaled(bytes, photo.info, Math.max(1, Math.max(photo.info.width, photo.info.height) / KEYPOINT_DETECT_LONG_SIDE));
    const corners = await predictCorners(runtime, small.image);
    if (corners.confidence >= MIN_KEYPOINT_CONFIDENCE) {
      const coarseQuad = corners.quad.map(([x, y]) => [x * small.scaleX, y * small.scaleY]) as Quad;
      const located = locateOnWork(photo, { coarseQuad });
      if (!located) return null;
      located.confidence *= corners.confidence;
      return { located, detector: 'keypoint-model' };
    }
  }
  // A last look with wide Hough votes (a dim, noisy photo's card edges: HoughVotes).
  const wide = locateOnWork(photo, { houghVotes: 'wide' });
  return wide ? { located: wide, detector: 'classical', secondLook: true } : null;
}

/** The graded slab's label beside a located card, looked for only around a card-shaped outline. */
function slabBeside(located: LocatedCard): SlabLabel | null {
  return isCardShapedOutline(located.quadPx) ? findSlabLabel(located.work, homographyFromCanonical(located.quadWork)) : null;
}

/**
 * A card-shaped outline with a slab's label beside it, or found inside a holder's outline, may be the slab's well,
 * which has a card's proportions too: the card inside it (found by the classical detector), where one lies in the
 * well (isCardInWell); else the card walked to from the well's walls (findCardInWell); else the outline as it is.
 * One level only: looking further in with the detector (the walls' inner lines, then the well) changed 13 slab scans
 * on bench:real, 8 of them for the worse.
 */
function cardOfSlab(located: LocatedCard, detector: SideAnalysis['detector'], slab: SlabLabel | null): LocatedAndHow {
  const well = homographyFromCanonical(located.quadWork);
  const inner = locateCardWithin(located);
  if (inner && isCardShapedOutline(inner.quadPx) && isCardInWell(located.work, well, homographyFromCanonical(inner.quadWork))) {
    return { located: inner, detector: 'classical', slab: slabBeside(inner) ?? slab };
  }
  // The detector's pick may be a box of the card's print: walk in from the well's walls to the card's edge instead
  // (each side's line already has the well's dark backing outside it and one colour inside).
  const walked = findCardInWell(located.work, well);
  if (walked) {
    const card = locateAt(located, walked);
    if (isCardShapedOutline(card.quadPx)) return { located: card, detector: 'classical', slab: slabBeside(card) ?? slab };
  }
  return { located, detector, slab };
}

interface LocatedAndHow {
  located: LocatedCard;
  detector: SideAnalysis['detector'];
  slab: SlabLabel | null;
  /** The card was found inside a larger outline that is not a card's, with no slab label in view beside it. */
  withinHolder?: boolean;
  /** The outline came from the detector's second look with wide votes (HoughVotes): found on weaker evidence. */
  secondLook?: boolean;
}

/**
 * A card found inside a holder's outline is taken without a label beside it only when it is clearly smaller than
 * that outline: a card fills 0.72 of a top-loader's area and about half of a slab's, while the printed frame inside
 * a card that was outlined badly fills 0.84 of it (57 x 82 mm of 63 x 88) and must not be taken for the card.
 */
export const MAX_CARD_SHARE_OF_HOLDER = 0.78;

/**
 * How far out (mm of the outline taken for a card) a slab's label is looked for around a card-shaped outline with
 * none beside it: the outline may be only the lower part of the card and the well below it (a holo card's dark upper
 * half against the dark well), with the label the rest of the card's height further out. Such an outline is often
 * sideways, so its mm are a sideways card's: the real set's two such labels lie 66.5 and 77.5 of them out.
 */
const FAR_LABEL_MM = 100;

/** How far short of a slab's label its well begins (mm): the extended outline stops there. */
const LABEL_TO_WELL_MM = 3;

/**
 * Where the card is not found in that extended outline, the well is walked from its walls instead (findCardInWell):
 * from the label's near edge, and from this far outside the outline's other sides (mm), which may lie on the card's
 * own edges; walked in up to FAR_WELL_WALK_MM, since a PSA slab may leave 10 mm of plastic between its label and its
 * well.
 */
const FAR_WELL_PAD_MM = 2;
const FAR_WELL_WALK_MM = 15;

/**
 * The outline `toCanonical` extended towards a slab's `label` to `reachMm` out (its canonical mm), and `padMm` out
 * on its other three sides: the image quad, ordered as a portrait outline again (the outline may have been found
 * sideways).
 */
function outlineTowardLabel(toCanonical: Homography, label: SlabLabel, reachMm: number, padMm: number): Quad {
  const [w, h] = [CARD_WIDTH_MM, CARD_HEIGHT_MM];
  const box: Record<SlabLabel['side'], [number, number, number, number]> = {
    top: [-padMm, -reachMm, w + padMm, h + padMm],
    bottom: [-padMm, -padMm, w + padMm, h + reachMm],
    left: [-reachMm, -padMm, w + padMm, h + padMm],
    right: [-padMm, -padMm, w + reachMm, h + padMm],
  };
  const [x0, y0, x1, y1] = box[label.side].map((mm) => mm * CANONICAL_PX_PER_MM) as [number, number, number, number];
  return orderCardCorners(([[x0, y0], [x1, y0], [x1, y1], [x0, y1]] as const).map((p) => applyHomography(toCanonical, p)));
}

/**
 * A slab's well outlined in part: where a slab's label is found further out than beside a card (up to
 * FAR_LABEL_MM), the outline is extended to LABEL_TO_WELL_MM short of the label (the well and the card in it) and
 * the card is looked for in there (cardOfSlab); failing that, the card is walked to from the label's near edge and
 * from just outside the outline's other sides (FAR_WELL_PAD_MM). Null when no such label is found, or no card with a
 * card's proportions and the label beside it.
 */
function cardBelowFarLabel(located: LocatedCard): LocatedAndHow | null {
  const toCanonical = homographyFromCanonical(located.quadWork);
  const label = findSlabLabel(located.work, toCanonical, FAR_LABEL_MM);
  if (!label) return null;
  const extended = locateAt(located, outlineTowardLabel(toCanonical, label, Math.max(0, label.fromMm - LABEL_TO_WELL_MM), 0));
  const inWell = cardOfSlab(extended, 'classical', slabBeside(extended));
  if (inWell.located !== extended && isCardShapedOutline(inWell.located.quadPx) && inWell.slab) return inWell;
  const walls = outlineTowardLabel(toCanonical, label, label.fromMm, FAR_WELL_PAD_MM);
  const walked = findCardInWell(located.work, homographyFromCanonical(walls), FAR_WELL_WALK_MM);
  if (!walked) return null;
  const card = locateAt(located, walked);
  const slab = slabBeside(card);
  return slab && isCardShapedOutline(card.quadPx) ? { located: card, detector: 'classical', slab } : null;
}

/**
 * How far in from a slab compartment's outline (share of its width) the card is looked for once more where it is not
 * found at locateCardWithin's default 1 %: on the real set, a BGS slab photographed at an angle showed its card to the
 * detector from 2-3 % in, not from 1 % or 5 % (its walls and their reflections, or the card's own edge, at the crop).
 */
const WITHIN_COMPARTMENT_INSET = 0.03;

/**
 * A slab's label right against a card-shaped outline: the outline is the slab's compartment, not the card, which lies
 * apart from its label (on the real set, a BGS slab photographed at an angle: its compartment's corners were read as
 * four worn corners and its walls as four worn edges). The card is the card-shaped outline inside it with the label
 * beside it, looked for at the default inset and once more further in. It is taken without looking further in for a
 * well (cardOfSlab): the compartment was that level already. Null when no label lies against the outline or no such
 * card is in it: on the real set, a full-bleed sports card outlined inside its art had its printed pattern of numbers
 * right against the outline, white and inked like a label.
 */
function cardInCompartment(found: { located: LocatedCard; detector: SideAnalysis['detector'] }): LocatedAndHow | null {
  const label = findSlabLabel(found.located.work, homographyFromCanonical(found.located.quadWork), SLAB_LIMITS.farMm, { againstOutline: true });
  if (!label) return null;
  for (const options of [{}, { insetShare: WITHIN_COMPARTMENT_INSET }]) {
    const inner = locateCardWithin(found.located, options);
    const slab = inner ? slabBeside(inner) : null;
    if (inner && slab) return { located: inner, detector: 'classical', slab };
  }
  return null;
}

/** A card-shaped outline: the card, or a slab's well (label beside it, or dark all round inside) with the card in it. */
function ofCardShapedOutline(found: { located: LocatedCard; detector: SideAnalysis['detector']; secondLook?: boolean }): LocatedAndHow {
  const slab = slabBeside(found.located);
  if (slab) return cardOfSlab(found.located, found.detector, slab);
  const belowLabel = cardBelowFarLabel(found.located);
  if (belowLabel) return belowLabel;
  const inCompartment = cardInCompartment(found);
  if (inCompartment) return inCompartment;
  // A slab's well with its label out of view: dark all round just inside, and a card lying in it.
  if (!hasDarkRim(found.located.work, homographyFromCanonical(found.located.quadWork))) return { ...found, slab: null };
  const inWell = cardOfSlab(found.located, found.detector, null);
  return inWell.located === found.located ? { ...found, slab: null } : { ...inWell, withinHolder: true };
}

/**
 * Decodes the photo once and finds the card (locateOutline). Where the outline found is not a card's, or lies across
 * a photo of a card's proportions or spans it but stops short of its ends (isPartOfCardInCardShapedPhoto), the
 * photo is cropped to the card (locateCroppedPhoto):
 * what was found is printed inside it. In any other photo the outline may be a holder's (a slab's walls): the card
 * is looked for inside it (cardWithinHolder). In a slab, the card is looked for inside its well too (cardOfSlab).
 * Where none of this gives a card's proportions, the photo is looked at once more with wide Hough votes
 * (locateWithWideVotes): a dim, noisy photo's card edges. A photo of a card's proportions in which no outline was
 * found at all is taken as cropped to the card, unless it is blank: a blank photo is not a card.
 */
async function locateWithFallback(bytes: Uint8Array, runtime: ModelRuntime | undefined): Promise<LocatedAndHow> {
  const photo = await decodePhoto(bytes);
  const found = await locateOutline(bytes, photo, runtime);
  if (!found) {
    // No outline anywhere: a full-bleed card scanned edge to edge shows none. Its frame is the card where the photo
    // has a card's proportions and something in it.
    const cropped = assertCardFound(locateCroppedPhoto(photo));
    return { located: cropped, detector: 'cropped-photo', slab: slabBeside(cropped) };
  }
  if (isCardShapedOutline(found.located.quadPx) && !isPartOfCardInCardShapedPhoto(found.located)) return found.secondLook ? ofSecondLook(found.located) : ofCardShapedOutline(found);
  const cropped = locateCroppedPhoto(found.located);
  if (cropped) return { located: cropped, detector: 'cropped-photo', slab: slabBeside(cropped) };
  const within = cardWithinHolder(found.located);
  if (within) return within;
  const slabEnd = slabCardAtEndOf(found.located);
  if (slabEnd) return slabEnd;
  // Nothing card-shaped there or inside it: a second look at the whole photo with wide votes (a dim, noisy photo).
  const wide = found.secondLook ? null : locateWithWideVotes(found.located);
  return wide && isCardShapedOutline(wide.quadPx) ? ofSecondLook(wide) : { ...found, slab: null };
}

/**
 * The share of a photo's short side that a card-shaped outline lying across it (its long side along the photo's
 * short side) spans at least, where the photo itself has a card's proportions, for the outline to be taken for part
 * of the card rather than the card. On the real set, two phone photos cropped to a card (a Honchkrow, a Glimmet)
 * were outlined from the card's top edge to a rule across its middle (0.96-0.97 of the photo's width, a card's
 * proportions sideways), and the card was read turned on its side. A whole card lying sideways in such a photo spans
 * at most 0.72 of its height, so it is either small in the photo or nearly fills it end to end.
 */
export const ACROSS_PHOTO_MIN_SHARE = 0.85;

/**
 * How much wider than the photo (short over long side, as a ratio) a card-shaped outline spanning the short side of
 * a photo of a card's proportions (ACROSS_PHOTO_MIN_SHARE) is, at least, for it to be taken for the card cut short
 * along its length rather than the card. On the real set, a silver-bordered Glaceon photographed cropped to the card
 * (0.70) was outlined from its top down to the rule above its weakness row (0.79, 1.13 times the photo's). A card as
 * wide as such a photo is about as long as it, so its outline is at most a few per cent wider (perspective).
 */
export const SHORT_OF_PHOTO_MIN_WIDENING = 1.05;

/**
 * Whether a card-shaped outline in a photo of a card's proportions is part of the card the photo is cropped to: it
 * lies across the photo, its long side spanning the photo's short side (ACROSS_PHOTO_MIN_SHARE), or it lies along
 * the photo spanning its short side but stops short of its ends (SHORT_OF_PHOTO_MIN_WIDENING).
 */
function isPartOfCardInCardShapedPhoto(located: LocatedCard): boolean {
  if (!hasCardProportions(located.info)) return false;
  const { width, height } = located.info;
  const photoShort = Math.min(width, height);
  // The card's long sides run TL -> BL and TR -> BR: their extent across the photo's long way and along it.
  const [tl, tr, br, bl] = located.quadPx;
  const photoIsPortrait = height >= width;
  const extent = (a: Quad[number], b: Quad[number]): [number, number] => {
    const [dx, dy] = [Math.abs(b[0] - a[0]), Math.abs(b[1] - a[1])];
    return photoIsPortrait ? [dx, dy] : [dy, dx];
  };
  const [across1, along1] = extent(tl, bl);
  const [across2, along2] = extent(tr, br);
  const longAcross = (across1 + across2) / 2;
  const longAlong = (along1 + along2) / 2;
  if (longAcross > longAlong) return longAcross >= ACROSS_PHOTO_MIN_SHARE * photoShort;
  const span = (a: Quad[number], b: Quad[number]): number => Math.hypot(b[0] - a[0], b[1] - a[1]);
  const short = (span(tl, tr) + span(bl, br)) / 2;
  return short >= ACROSS_PHOTO_MIN_SHARE * photoShort && outlineAspect(located.quadPx) >= SHORT_OF_PHOTO_MIN_WIDENING * (photoShort / Math.max(width, height));
}

/**
 * The card inside an outline that may be a holder's (locateCardWithin): taken where a slab's label lies beside it,
 * or, without one (a slab whose label is out of view or unreadable: dim light, a tinted label; a top-loader; what
 * the card lies on), where it fills at most MAX_CARD_SHARE_OF_HOLDER of the outline; the rest of the outline then
 * says its edges may be seen through plastic (withinHolder). Null when neither holds.
 */
function cardWithinHolder(outline: LocatedCard): LocatedAndHow | null {
  const inner = locateCardWithin(outline);
  if (!inner || !isCardShapedOutline(inner.quadPx)) return null;
  const label = slabBeside(inner);
  if (label) return cardOfSlab(inner, 'classical', label);
  if (quadArea(inner.quadPx) <= MAX_CARD_SHARE_OF_HOLDER * quadArea(outline.quadPx)) return { ...cardOfSlab(inner, 'classical', null), withinHolder: true };
  return null;
}

/**
 * An outline from the second look with wide votes: as a card-shaped outline (ofCardShapedOutline), and, since the
 * looser look also lines up a slab's walls (a phone photo of a PSA slab under dim light, its label unread), the card
 * inside it as in any holder's outline (cardWithinHolder).
 */
function ofSecondLook(wide: LocatedCard): LocatedAndHow {
  const outline = ofCardShapedOutline({ located: wide, detector: 'classical' });
  if (outline.slab || outline.withinHolder) return { ...outline, secondLook: true };
  return { ...(cardWithinHolder(wide) ?? outline), secondLook: true };
}

/**
 * An outline too tall for a card may be a slab's label and card outlined together (a scan, the label as wide as the
 * card): the card is the end of it with a card's proportions, where the slab's label lies beyond its other end.
 */
function slabCardAtEndOf(found: LocatedCard): LocatedAndHow | null {
  if (outlineAspect(found.quadPx) >= PHOTO_SUPPORT_LIMITS.outlineAspectRange[0]) return null;
  for (const end of ['bottom', 'top'] as const) {
    const card = locateEndOf(found, end);
    if (!isCardShapedOutline(card.quadPx)) continue;
    const label = slabBeside(card);
    if (label?.side === (end === 'bottom' ? 'top' : 'bottom')) return cardOfSlab(card, 'classical', label);
  }
  return null;
}

/** What one side's photo gives before its condition is measured: the card located, its centering, the card rectified. */
type LocatedSide = Omit<SideAnalysis, 'condition' | 'measurements' | 'support'> & {
  finishSide(): SideAnalysis & { timingsMs: Record<string, number> };
};

/**
 * One side up to its rectified card: locate, measure centering on the photo, rectify, cut out the slab's label.
 * The condition is measured by `finishSide()`, so that a caller can start reading the rectified card (OCR, on
 * its own thread) before the condition's measurement takes this thread.
 */
export async function locateSide(bytes: Uint8Array, runtime?: ModelRuntime): Promise<LocatedSide> {
  const t0 = performance.now();
  const found = await locateWithFallback(bytes, runtime);
  const { detector, withinHolder, secondLook } = found;
  let { located, slab } = found;
  if (slab?.side === 'bottom') {
    // A slab's label is above the card: the layout model's up was the card's down.
    located = turnLocated(located);
    slab = { ...slab, side: 'top' };
  }
  const t1 = performance.now();
  // Centering is measured through the homography on the working image (no resampling of the border bands).
  const cardToWork = homographyFromCanonical(located.quadWork);
  const centering = measureCentering(located.work, cardToWork, {
    frameBeyondMm: frameBeyondMm(located),
    ...(detector === 'cropped-photo' ? { assumedOutlineConfidence: CROPPED_PHOTO_CONFIDENCE } : {}),
  });
  const t2 = performance.now();
  const rectified = rectify(located.work, located.quadWork);
  const t3 = performance.now();
  const slabLabel = slab ? slabLabelImage(located.work, cardToWork, slab) : null;
  const tLabel = performance.now();
  const side = {
    quadPx: located.quadPx,
    imageSize: { width: located.info.width, height: located.info.height },
    detectionConfidence: located.confidence,
    detector,
    centering,
    rectified,
    photo: { image: located.work, quad: located.quadWork },
    slabLabel,
  };
  return {
    ...side,
    finishSide() {
      const t4 = performance.now();
      const frame = { leftMm: centering.leftMm, rightMm: centering.rightMm, topMm: centering.topMm, bottomMm: centering.bottomMm };
      const condition = measureCondition(rectified, { frame });
      const t5 = performance.now();
      return {
        ...side,
        condition,
        measurements: sideMeasurements(condition, frame),
        support: photoSupport({ quadPx: located.quadPx, blurPx: condition.quality.blurPx, centering, slab, croppedPhoto: detector === 'cropped-photo', cornersAtPhotoEdge: cornersAtPhotoEdge(located.quadPx, located.info), sidesAtPhotoEdge: sidesAtPhotoEdge(located.quadPx, located.info), withinHolder, secondLook, sidesInsideStrongerEdge: located.resolved.sides.filter((s) => s.strongerStepOutside).length }),
        timingsMs: { ...prefix('locate.', located.timingsMs), locate: t1 - t0, centering: t2 - t1, rectify: t3 - t2, slabLabel: tLabel - t3, condition: t5 - t4 },
      };
    },
  };
}

/** One side: locate, measure centering on the photo, rectify, measure condition. */
export async function analyzeSide(
  bytes: Uint8Array,
  runtime?: ModelRuntime,
): Promise<SideAnalysis & { timingsMs: Record<string, number> }> {
  return (await locateSide(bytes, runtime)).finishSide();
}

/** Grades measured sides with the rubric; a missing back is reported as not assessed by the rubric itself. */
export function gradeSides(front: SideAnalysis, back?: SideAnalysis): RubricResult {
  const measurements: CardMeasurements = { front: front.measurements, ...(back ? { back: back.measurements } : {}) };
  const quality = (s: SideAnalysis) => ({ detectionConfidence: s.detectionConfidence, surfaceVisibility: s.condition.surfaceVisibility, notAssessed: s.support.notAssessed });
  return gradeCard(measurements, { quality: { front: quality(front), ...(back ? { back: quality(back) } : {}) } });
}

/** The learned severities of one side against the rubric's, per sub-grade: the largest absolute difference. */
export function crossCheckSide(learned: SeverityPrediction, rubricSide: NonNullable<RubricResult['sides']['front']>): SeverityCrossCheck {
  const sev = rubricSide.severities;
  const worst = (xs: number[]) => Math.max(0, ...xs);
  const corners = worst((Object.keys(learned.corners) as (keyof typeof learned.corners)[]).map((c) => Math.abs(learned.corners[c].severity - (sev.corners[c] ?? 0))));
  const edges = worst((Object.keys(learned.edges) as (keyof typeof learned.edges)[]).map((e) => Math.abs(learned.edges[e].severity - (sev.edges[e] ?? 0))));
  const surface = Math.abs(learned.surface.max - Math.max(0, ...sev.surface));
  const r3 = (v: number) => Math.round(v * 1000) / 1000;
  return { learned, disagreement: { corners: r3(corners), edges: r3(edges), surface: r3(surface) } };
}

/**
 * Lowers a sub-grade's confidence where the learned models disagree with the measurements: confidence x
 * (1 - 0.5 x disagreement), disagreement being the larger of the two sides'. The grade itself stays the
 * rubric's, computed from the measurements, so every number remains explainable.
 */
function applyCrossCheck(grading: RubricResult, checks: { front: SeverityCrossCheck; back?: SeverityCrossCheck }): RubricResult {
  const conf = { ...grading.subGradeConfidences };
  for (const k of ['corners', 'edges', 'surface'] as const) {
    const d = Math.max(checks.front.disagreement[k], checks.back?.disagreement[k] ?? 0);
    conf[k] = Math.round(conf[k] * (1 - 0.5 * d) * 1000) / 1000;
  }
  const overall = Math.min(...Object.values(conf));
  return { ...grading, subGradeConfidences: conf, confidence: Math.min(grading.confidence, Math.round(overall * 1000) / 1000) };
}

function overlaySide(side: SideAnalysis, which: 'front' | 'back', grading: RubricResult): OverlaySide {
  const c = side.centering;
  // No frame or ratios drawn where the side's centering was not assessed: a drawn share would read as a measurement.
  const centeringAssessed = !grading.notAssessed.includes(`${which}_centering`);
  return {
    rectified: side.rectified,
    ...(centeringAssessed ? { centering: { leftMm: c.leftMm, rightMm: c.rightMm, topMm: c.topMm, bottomMm: c.bottomMm } } : {}),
    defects: grading.defects.filter((d) => d.side === which).map((d) => ({ kind: d.kind, severity: d.severity, xMm: d.xMm, yMm: d.yMm, wMm: d.wMm, hMm: d.hMm })),
    photo: side.photo,
    glare: side.condition.glare,
  };
}

export async function createCardEngine(options: { logger?: Logger } = {}): Promise<CardEngine> {
  const runtime: ModelRuntime = await createModelRuntime(options.logger ? { logger: options.logger } : {});
  let ocr: OcrPool | undefined;
  const ocrPool = async (): Promise<OcrPool> => (ocr ??= await createOcr({ workers: 1 }));

  return {
    backend: runtime.backend,
    version: ENGINE_VERSION,
    async warmUp() {
      const t = performance.now();
      // OCR workers, and the models compiled once on a blank input so the first real card pays nothing extra.
      await ocrPool();
      const blank: RgbImage = { width: 630, height: 880, data: new Uint8Array(630 * 880 * 3).fill(200) };
      await Promise.all([predictSeverities(runtime, blank), predictCorners(runtime, { width: 128, height: 128, data: new Uint8Array(128 * 128 * 3) })]);
      return { ms: performance.now() - t };
    },
    async analyzeCard(input, analyzeOptions = {}) {
      const t0 = performance.now();
      // The two sides are independent; decoding runs on libuv threads, so they overlap.
      const [frontLocated, backLocated] = await Promise.all([locateSide(input.front, runtime), input.back ? locateSide(input.back, runtime) : Promise.resolve(undefined)]);
      // OCR runs on tesseract's worker thread and needs only the rectified sides, so it starts now and overlaps
      // the condition's measurement, the grading and the overlay on this thread.
      const evidencePromise = analyzeOptions.evidence
        ? (async () => {
            const started = performance.now();
            const mayLieSideways = { front: !isCardShapedOutline(frontLocated.quadPx), back: backLocated !== undefined && !isCardShapedOutline(backLocated.quadPx) };
            const { frontTurn: _f, backTurn: _b, finish: _finish, timingsMs: evidenceTimings, ocrWork, ...fields } = await extractEvidence(frontLocated.rectified, backLocated?.rectified, await ocrPool(), { slabLabel: frontLocated.slabLabel, frontPhoto: frontLocated.photo, mayLieSideways });
            return { fields, ocrWork, ms: performance.now() - started, timings: evidenceTimings };
          })()
        : undefined;
      // Settled even if grading throws first, so a failed OCR is never an unhandled rejection.
      evidencePromise?.catch(() => undefined);
      // Lets the evidence find the front's text lines and hand them to the OCR worker before the condition's
      // measurement holds this thread.
      if (evidencePromise) await nextTurn();
      const front = frontLocated.finishSide();
      const back = backLocated?.finishSide();
      const t1 = performance.now();
      // The learned calibration reads each side's measurements in the light of its photo conditions.
      await Promise.all([front, ...(back ? [back] : [])].map(async (side, i) => {
        side.measurements.calibrated = await calibrateSide(runtime, side, gradeSide(i === 0 ? 'front' : 'back', side.measurements).severities);
      }));
      const rubric = gradeSides(front, back);
      const [frontLearned, backLearned] = await Promise.all([predictSeverities(runtime, front.rectified), back ? predictSeverities(runtime, back.rectified) : undefined]);
      const crossCheck = {
        front: crossCheckSide(frontLearned, rubric.sides.front),
        ...(back && backLearned && rubric.sides.back ? { back: crossCheckSide(backLearned, rubric.sides.back) } : {}),
      };
      const grading = applyCrossCheck(rubric, crossCheck);
      const t2 = performance.now();
      let overlayPng: Buffer | undefined;
      if (analyzeOptions.overlay) {
        overlayPng = await renderOverlay({
          front: overlaySide(front, 'front', grading),
          ...(back ? { back: overlaySide(back, 'back', grading) } : {}),
          title: grading.predictedGrade === null
            ? 'No grade: nothing on the card could be assessed from the photos'
            : `Grade ${grading.grade} · predicted ${grading.predictedGrade} · AI estimate`,
        });
      }
      const t3 = performance.now();
      const extracted = await evidencePromise;
      const evidence: IdentificationEvidence | undefined = extracted?.fields;
      const t4 = performance.now();
      return {
        sides: { front, ...(back ? { back } : {}) },
        grading,
        crossCheck,
        ...(evidence ? { evidence } : {}),
        ...(extracted ? { ocrWork: extracted.ocrWork } : {}),
        ...(overlayPng ? { overlayPng } : {}),
        timingsMs: {
          sides: t1 - t0,
          grade: t2 - t1,
          // Overlapping grade and overlay; the wait after them is total - sides - grade - overlay.
          evidence: extracted?.ms ?? 0,
          overlay: t3 - t2,
          total: t4 - t0,
          ...(extracted ? prefix('evidence.', extracted.timings) : {}),
          ...prefix('front.', front.timingsMs),
          ...(back ? prefix('back.', back.timingsMs) : {}),
        },
      };
    },
    async close() {
      await ocr?.terminate();
    },
  };
}

function prefix(p: string, record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [p + k, v]));
}
