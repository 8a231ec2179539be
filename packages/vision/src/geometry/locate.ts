import { chooseDecodeShrink, decodeScaled, downsampleRgb, probeImage, type ImageInfo } from '../image/decode';
import type { Point, Quad, RgbImage } from '../image/types';
import { assertCardFound, detectCardCoarse, refineQuad, type CoarseDetection, type HoughVotes, type RefinedQuad } from './detect';
import type { SideName } from './centering';
import { CARD_ASPECT, CARD_HEIGHT_MM, CARD_WIDTH_MM } from './homography';
import { lineThrough } from './lines';
import { outlineAspect, quadArea, scaleQuad } from './quad';
import { resolveCardEdges, type ResolveResult } from './resolve';
import { orientQuad, type OrientationDecision } from './orientation';

export interface LocateOptions {
  /** Long side (px) the detection image is reduced to (integer box factor, so 1-2x this). Default 480. */
  detectLongSide?: number;
  /** Card height (px) wanted in the working image for a card filling 25% of the frame. Default 760. */
  minCardPx?: number;
  /**
   * A coarse quad from another source (e.g. the keypoint model), TL,TR,BR,BL in original (EXIF-oriented) image
   * pixels; skips the classical detector and goes straight to refinement.
   */
  coarseQuad?: Quad;
  /** How the classical detector's edge pixels vote for lines (HoughVotes). Default narrow. */
  houghVotes?: HoughVotes;
}

export interface LocatedCard {
  info: ImageInfo;
  /** The working image: the photo decoded once at 1/scale of its size (shrink-on-load for JPEG). */
  work: RgbImage;
  /** Original px per working px (x and y). */
  scaleX: number;
  scaleY: number;
  /** Refined corners TL,TR,BR,BL in working-image pixels. */
  quadWork: Quad;
  /** Refined corners TL,TR,BR,BL in original (EXIF-oriented) image pixels. */
  quadPx: Quad;
  /** 0..1: detection score x refinement confidence. */
  confidence: number;
  coarse: CoarseDetection | null;
  refined: RefinedQuad;
  resolved: ResolveResult;
  /** Whether the corner order was turned by 180 degrees by the layout model, and its margin. */
  orientation: OrientationDecision;
  timingsMs: { probe: number; decode: number; detect: number; refine: number };
}

const turn = <T>(a: [T, T, T, T]): [T, T, T, T] => [a[2], a[3], a[0], a[1]];

/** Turns a refined outline by 180 degrees (TL <-> BR, TR <-> BL), with its per-side fits. */
function turnRefined(refined: RefinedQuad): void {
  refined.quad = turn(refined.quad);
  refined.lines = turn(refined.lines);
  refined.sigmaPx = turn(refined.sigmaPx);
  refined.inlierFraction = turn(refined.inlierFraction);
}

/**
 * The located card turned by 180 degrees: when something surer than the layout model says which way is up (a graded
 * slab's label is always above the card).
 */
export function turnLocated(located: LocatedCard): LocatedCard {
  const refined = { ...located.refined };
  turnRefined(refined);
  return {
    ...located,
    quadWork: refined.quad,
    quadPx: turn(located.quadPx),
    refined,
    orientation: { ...located.orientation, quad: refined.quad, flipped: !located.orientation.flipped },
  };
}

/**
 * Per side of the card as it is turned, how far inside its outline (mm) the printed frame may begin: past a strip
 * the edge resolution took the card across (ResolvedSide.beyondEndsPx). The resolution's sides run from the
 * outline's first corner as it was before any turn (top, right, bottom, left), so a turned card reads them the other
 * way round.
 */
export function frameBeyondMm(located: LocatedCard): Partial<Record<SideName, number>> {
  const names: SideName[] = located.orientation.flipped ? ['bottom', 'left', 'top', 'right'] : ['top', 'right', 'bottom', 'left'];
  const out: Partial<Record<SideName, number>> = {};
  located.resolved.sides.forEach((side, k) => {
    if (side.beyondEndsPx <= 0) return;
    const a = located.resolved.quad[k]!;
    const b = located.resolved.quad[(k + 1) % 4]!;
    out[names[k]!] = side.beyondEndsPx / (Math.hypot(b[0] - a[0], b[1] - a[1]) / (k % 2 === 0 ? CARD_WIDTH_MM : CARD_HEIGHT_MM));
  });
  return out;
}

/** A photo with a card's proportions (either way up): a scan or a shop's photo cropped to the card. */
export const CROPPED_PHOTO_ASPECT = [0.69, 0.74] as const;

/** Whether a photo has a card's proportions, either way up (CROPPED_PHOTO_ASPECT). */
export function hasCardProportions(info: { width: number; height: number }): boolean {
  const aspect = Math.min(info.width, info.height) / Math.max(info.width, info.height);
  return aspect >= CROPPED_PHOTO_ASPECT[0] && aspect <= CROPPED_PHOTO_ASPECT[1];
}

/** The confidence of an outline taken from a cropped photo's frame: assumed, not measured on an edge. */
export const CROPPED_PHOTO_CONFIDENCE = 0.7;

/**
 * A photo cropped to the card (the scans of card shops and listing sites) shows no background, so there is no edge
 * around the card to find. When the photo has a card's proportions, its own frame is taken for the card's outline
 * (no refinement: with nothing outside the card, a refinement could only drift to a printed frame further in), with
 * the layout model deciding which way is up. `photo` is the photo as decodePhoto decoded it (or an outline found in
 * it), so it is not decoded again; its probe and decode timings are carried over. Returns null for a photo of other
 * proportions, or a blank one.
 */
export function locateCroppedPhoto(photo: DecodedPhoto): LocatedCard | null {
  const { info, work } = photo;
  if (!hasCardProportions(info) || isBlank(work)) return null;
  const t = performance.now();
  // Portrait: TL, TR, BR, BL of the frame; landscape: the card lies sideways, its top at the photo's left.
  const { width: w, height: h } = work;
  const quad: Quad = w <= h ? [[0, 0], [w, 0], [w, h], [0, h]] : [[0, h], [0, 0], [w, 0], [w, h]];
  const refined: RefinedQuad = {
    quad,
    lines: [0, 1, 2, 3].map((k) => lineThrough(quad[k]!, quad[(k + 1) % 4]!)) as RefinedQuad['lines'],
    sigmaPx: [0, 0, 0, 0],
    inlierFraction: [0, 0, 0, 0],
    confidence: CROPPED_PHOTO_CONFIDENCE,
  };
  const orientation = orientQuad(work, refined.quad);
  if (orientation.flipped) turnRefined(refined);
  return locatedOn(info, { image: work, scaleX: photo.scaleX, scaleY: photo.scaleY }, refined, {
    confidence: CROPPED_PHOTO_CONFIDENCE,
    coarse: null,
    resolved: { quad: refined.quad, sides: [], score: 0 },
    orientation,
    timingsMs: { ...photo.timingsMs, detect: 0, refine: performance.now() - t },
  });
}

/** Luminance spread (standard deviation, levels) under which a photo has nothing in it: a blank is no card. */
export const BLANK_PHOTO_MAX_SPREAD = 8;

function isBlank(image: RgbImage): boolean {
  const d = image.data;
  let n = 0;
  let sum = 0;
  let sumSq = 0;
  // Every 5th pixel is plenty for a spread.
  for (let i = 0; i < d.length; i += 15) {
    const y = 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;
    sum += y;
    sumSq += y * y;
    n++;
  }
  const mean = sum / n;
  return Math.sqrt(Math.max(0, sumSq / n - mean * mean)) < BLANK_PHOTO_MAX_SPREAD;
}

/** The located card: the decoded working image and its refined outline, in working and original pixels. */
function locatedOn(
  info: ImageInfo,
  decoded: { image: RgbImage; scaleX: number; scaleY: number },
  refined: RefinedQuad,
  rest: Pick<LocatedCard, 'confidence' | 'coarse' | 'resolved' | 'orientation' | 'timingsMs'>,
): LocatedCard {
  return {
    info,
    work: decoded.image,
    scaleX: decoded.scaleX,
    scaleY: decoded.scaleY,
    quadWork: refined.quad,
    quadPx: scaleQuad(refined.quad, decoded.scaleX, decoded.scaleY),
    refined,
    ...rest,
  };
}

/** Detection scores below this are reported as card_not_found. */
export const MIN_DETECTION_SCORE = 0.12;

/** A photo probed (limits, EXIF) and decoded once at the scale a card needs (decodePhoto). */
export interface DecodedPhoto {
  info: ImageInfo;
  /** The working image (LocatedCard.work). */
  work: RgbImage;
  scaleX: number;
  scaleY: number;
  timingsMs: { probe: number; decode: number };
}

/**
 * Probes the photo (limits, EXIF) and decodes it once at the scale a card needs: one entropy decode is the dominant
 * cost for a 12-MP JPEG, so every later look at the photo (locateOnWork) works on this one.
 * Throws AppError invalid_image / image_too_large.
 */
export async function decodePhoto(bytes: Uint8Array, options: Pick<LocateOptions, 'minCardPx'> = {}): Promise<DecodedPhoto> {
  let t = performance.now();
  const info = await probeImage(bytes);
  const probe = performance.now() - t;
  t = performance.now();
  const decoded = await decodeScaled(bytes, info, chooseDecodeShrink(info, options.minCardPx));
  return { info, work: decoded.image, scaleX: decoded.scaleX, scaleY: decoded.scaleY, timingsMs: { probe, decode: performance.now() - t } };
}

/**
 * The card's outline on a decoded photo: found on a box-reduced copy (or given as `coarseQuad`), refined there and
 * then on the working image to subpixel accuracy. Null when nothing scores MIN_DETECTION_SCORE or the outline is
 * too small to be a card. Its timings carry the photo's probe and decode.
 */
export function locateOnWork(photo: DecodedPhoto, options: Omit<LocateOptions, 'minCardPx'> = {}): LocatedCard | null {
  const { work } = photo;
  let t = performance.now();
  let coarse: CoarseDetection | null = null;
  let coarseWork: Quad;
  let searchPx: number;
  if (options.coarseQuad) {
    coarseWork = scaleQuad(options.coarseQuad, 1 / photo.scaleX, 1 / photo.scaleY);
    searchPx = 0; // refineQuad's default: 2% of the card's short side
  } else {
    const detected = detectOn(work, options.detectLongSide, options.houghVotes);
    if (!detected) return null;
    coarse = detected.coarse;
    coarseWork = detected.quad;
    searchPx = detected.searchPx;
  }
  const detect = performance.now() - t;
  t = performance.now();
  const { refined, resolved, orientation } = refineOnWork(work, coarseWork, searchPx);
  const refine = performance.now() - t;
  const area = quadArea(refined.quad);
  if (!Number.isFinite(area) || area < 0.01 * work.width * work.height) return null;
  const confidence = (coarse ? Math.min(1, coarse.score * 1.5) : 1) * refined.confidence;
  return locatedOn(photo.info, { image: work, scaleX: photo.scaleX, scaleY: photo.scaleY }, refined, {
    confidence,
    coarse,
    resolved,
    orientation,
    timingsMs: { ...photo.timingsMs, detect, refine },
  });
}

/**
 * From photo bytes to a located card (decodePhoto, then locateOnWork).
 * Throws AppError invalid_image / image_too_large / card_not_found.
 */
export async function locateCard(bytes: Uint8Array, options: LocateOptions = {}): Promise<LocatedCard> {
  return assertCardFound(locateOnWork(await decodePhoto(bytes, options), options));
}

/**
 * The classical detector on a box-reduced copy of `image` (its long side 1-2x `detectLongSide`): the best outline,
 * refined once at that scale (to a fraction of a detection pixel), in `image` pixels, with the search width the
 * refinement on `image` needs. Null when nothing scores MIN_DETECTION_SCORE.
 */
function detectOn(image: RgbImage, detectLongSide = 480, votes: HoughVotes = 'narrow'): { coarse: CoarseDetection; quad: Quad; searchPx: number } | null {
  const k = Math.max(1, Math.floor(Math.max(image.width, image.height) / detectLongSide));
  const det = downsampleRgb(image, k, 4);
  const coarse = detectCardCoarse(det, votes);
  if (!coarse || coarse.score < MIN_DETECTION_SCORE) return null;
  const r0 = refineQuad(det, coarse.quad, { passes: 2 });
  return { coarse, quad: scaleQuad(r0.confidence > 0.2 ? r0.quad : coarse.quad, k), searchPx: Math.max(3, 1.5 * k) };
}

/** A coarse quad on the working image to the card's subpixel outline, turned the way its layout reads. */
function refineOnWork(work: RgbImage, coarseWork: Quad, searchPx: number): { refined: RefinedQuad; resolved: ResolveResult; orientation: OrientationDecision } {
  const start = refineQuad(work, coarseWork, searchPx > 0 ? { searchPx, passes: 1 } : { passes: 2 }).quad;
  // the coarse quad may sit on the print frame or on a sleeve outline: move each side to the card edge
  const resolved = resolveCardEdges(work, start);
  const refined = refineQuad(work, resolved.quad, { searchPx: 3, passes: 2 });
  // geometry leaves a 180-degree ambiguity (upside-down or sideways photos): decide it from the layout
  const orientation = orientQuad(work, refined.quad);
  if (orientation.flipped) turnRefined(refined);
  return { refined, resolved, orientation };
}

/**
 * The whole working image of `found` looked at again with wide Hough votes (HoughVotes), for when the first outline
 * does not have a card's proportions (its probe and decode are not counted again). Null when nothing is found. The
 * caller decides whether to take it.
 */
export function locateWithWideVotes(found: LocatedCard, options: Pick<LocateOptions, 'detectLongSide'> = {}): LocatedCard | null {
  return locateOnWork({ ...found, timingsMs: { probe: 0, decode: 0 } }, { ...options, houghVotes: 'wide' });
}

/**
 * The card inside an outline that is not the card's own: a graded slab's outer walls or its well, found where the
 * card's edges scored lower than the holder's. The detector runs again on the outline's bounding box only, where
 * the holder's walls are no longer candidates (the caller decides whether what it finds is the card: card-shaped
 * and, in a slab, with the label beside it). Null when nothing is found there.
 */
export function locateCardWithin(found: LocatedCard, options: Pick<LocateOptions, 'detectLongSide'> & { insetShare?: number } = {}): LocatedCard | null {
  const t = performance.now();
  const { work } = found;
  const xs = found.quadWork.map((p) => p[0]);
  const ys = found.quadWork.map((p) => p[1]);
  // By default 1 % of its width in from the outline, so that its own edges are not found again (a well's gap is
  // 0.5-4 mm, 1-6 %); a slab's compartment, wider than its well, may need more (WITHIN_COMPARTMENT_INSET).
  const inset = (options.insetShare ?? 0.01) * (Math.max(...xs) - Math.min(...xs));
  const x0 = Math.max(0, Math.floor(Math.min(...xs) + inset));
  const y0 = Math.max(0, Math.floor(Math.min(...ys) + inset));
  const x1 = Math.min(work.width, Math.ceil(Math.max(...xs) - inset));
  const y1 = Math.min(work.height, Math.ceil(Math.max(...ys) - inset));
  if (x1 - x0 < 32 || y1 - y0 < 32) return null;
  const crop = cropRgb(work, x0, y0, x1 - x0, y1 - y0);
  const detected = detectOn(crop, options.detectLongSide);
  if (!detected) return null;
  const { coarse } = detected;
  const detectMs = performance.now() - t;
  // Refined on the crop too: on the whole photo the edge resolution would prefer the holder's outer wall again.
  const inCrop = refineOnWork(crop, detected.quad, detected.searchPx);
  const shift = (q: Quad): Quad => q.map(([x, y]) => [x + x0, y + y0]) as Quad;
  const refined: RefinedQuad = {
    ...inCrop.refined,
    quad: shift(inCrop.refined.quad),
    lines: inCrop.refined.lines.map((l) => ({ ...l, c: l.c + l.nx * x0 + l.ny * y0 })) as RefinedQuad['lines'],
  };
  const resolved: ResolveResult = { ...inCrop.resolved, quad: shift(inCrop.resolved.quad) };
  const orientation: OrientationDecision = { ...inCrop.orientation, quad: shift(inCrop.orientation.quad) };
  const confidence = Math.min(1, coarse.score * 1.5) * refined.confidence;
  return locatedOn(found.info, { image: work, scaleX: found.scaleX, scaleY: found.scaleY }, refined, {
    confidence,
    coarse,
    resolved,
    orientation,
    timingsMs: { probe: 0, decode: 0, detect: detectMs, refine: performance.now() - t - detectMs },
  });
}

/**
 * The card at `quadWork`, an outline found by other means on `found`'s working image (the card in a slab's well,
 * walked to from its walls): refined to subpixel on its own edges only (no edge resolution, which would move it back
 * out to the well's), turned the way `found` is.
 */
export function locateAt(found: LocatedCard, quadWork: Quad): LocatedCard {
  const t = performance.now();
  const refined = refineQuad(found.work, quadWork, { searchPx: 3, passes: 2 });
  return locatedOn(found.info, { image: found.work, scaleX: found.scaleX, scaleY: found.scaleY }, refined, {
    confidence: found.confidence * refined.confidence,
    coarse: null,
    resolved: { quad: quadWork, sides: [], score: 0 },
    orientation: { quad: refined.quad, flipped: false, margin: found.orientation.margin },
    timingsMs: { probe: 0, decode: 0, detect: 0, refine: performance.now() - t },
  });
}

/**
 * The card-proportioned end of an outline too tall for a card (a slab's label and card outlined together, the
 * label's width being the card's): the part of it at `end` whose height is its width over 63/88, refined to subpixel
 * on the edges near it (locateAt). The caller decides whether it is the card (a slab's label beyond its other end).
 */
export function locateEndOf(found: LocatedCard, end: 'top' | 'bottom'): LocatedCard {
  const [tl, tr, br, bl] = found.quadWork;
  // The share of the outline's height a card as wide as it takes.
  const share = Math.min(1, outlineAspect(found.quadWork) / CARD_ASPECT);
  const along = (a: Point, b: Point, t: number): Point => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
  const quad: Quad = end === 'bottom' ? [along(tl, bl, 1 - share), along(tr, br, 1 - share), br, bl] : [tl, tr, along(tr, br, share), along(tl, bl, share)];
  return locateAt(found, quad);
}

function cropRgb(src: RgbImage, x0: number, y0: number, w: number, h: number): RgbImage {
  const data = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) data.set(src.data.subarray(((y0 + y) * src.width + x0) * 3, ((y0 + y) * src.width + x0 + w) * 3), y * w * 3);
  return { width: w, height: h, data };
}
