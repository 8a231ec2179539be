/**
 * What one side's photo can support. The measurements assume a sharp photo with enough pixels on the card: below
 * that, small wear and the printed frame are not resolved, and what the detectors report is the photo's own
 * texture (JPEG blocks, print dots, blur) rather than the card's condition. Each aspect the photo cannot support
 * is named with the reason in words; the rubric then grades it as nothing seen and says so (GRADING.md, "Photos
 * that cannot support a measurement"). The limits were set on generated photos rendered at falling resolutions
 * (`npm run bench:vision` with BENCH_MEGAPIXELS), where the sub-grade errors start to grow.
 */
import type { SubGradeName } from '@cardlens/grading-rubric';
import type { BorderMeasurement, CenteringResult } from './geometry/centering';
import type { CardSide, SlabLabel } from './geometry/holder';
import { CANONICAL_PX_PER_MM, CARD_ASPECT, CARD_HEIGHT_MM, CARD_WIDTH_MM } from './geometry/homography';
import { outlineAspect, outlineKeystone } from './geometry/quad';
import { OUTER_STEP } from './geometry/resolve';
import type { Quad } from './image/types';

export const PHOTO_SUPPORT_LIMITS = {
  /** Pixels per mm of card in the photo below which corner, edge and surface wear (0.1-0.5 mm) is not resolved. */
  wearMinPxPerMm: 8,
  /** Blur (gaussian sigma, mm on the card) above which the same wear is smeared away. */
  wearMaxBlurMm: 0.15,
  /** Pixels per mm below which a border (2-4 mm) cannot be measured to a few hundredths of its width. */
  centeringMinPxPerMm: 5,
  /**
   * Share points by which one pixel in the line of an axis's narrower border may move that axis's share, at most
   * (100 x wider / (left + right)^2, borders in pixels). Beyond it a pixel's error in locating a line is most of a
   * step of PSA's centering table (5 points: 55/45, 60/40, ...), and the reading says more about the pixels than the
   * card. Generated borders (2.6-4.6 mm nominal, an axis at least 5.2 mm in all) stay under 3.8 at 5 px per mm; the
   * real set's slab scans and phone photos read on sure frames at 0.6-2.5. On the real set's 350 x 500 scans outlined
   * on a printed line inside the card, borders of 0.6-0.9 mm (3-5 px) read 4.8-16.7 points per pixel: near 50/50 on
   * symmetric designs by chance, 76/24 to 89/11 (grades 4-7.5) on others.
   */
  centeringMaxPointsPerPx: 4,
  /**
   * Centering confidence (the weakest border's frame and outline fits) below which the frame may not have been
   * found; the reason given says so. Anywhere, a frame whose strongest border fits below it was not found at all
   * (generated cards' strongest side: at least 0.95 on 120 sides).
   */
  centeringMinConfidence: 0.5,
  /**
   * A reading worse than this on either axis (60/40: below a 9) is used only when its four lines form a frame;
   * within it, it costs nothing and is always used.
   */
  centeringUnconfirmedMaxShare: 60,
  /**
   * In a slab, a border found narrower than this (mm) is the shadow along the card's edge in the well, not a printed
   * border: on the real set's PSA scans, cards PSA graded 8-10 read 0.27-0.63 mm on one or two sides (75/25 and
   * worse), where a printed Pokemon border is 1.5-4 mm. Generated borders are at least 0.78 mm.
   */
  slabMinBorderMm: 0.7,
  /** Difference (mm) between the two axes' border totals beyond which four found lines are not one frame. */
  centeringFrameMismatchMm: 1.5,
  /**
   * Spread (RGB levels, BorderMeasurement.borderSpread) above which the band taken for a border is artwork, not a
   * printed border; on two or more sides the design has no border to measure. Generated borders: at most 7 (318
   * sides); full-bleed real designs (2016 Topps, Topps Chrome, Prizm): 20-59 on most sides.
   */
  borderMaxSpread: 20,
  /**
   * Width over height of the outline found in the photo outside which it is not a bare card's (63/88 = 0.716;
   * tilted generated photos stay within 0.63-0.86): a slab, a top-loader or a sleeve's outline, or not the card.
   */
  outlineAspectRange: [0.64, 0.82],
  /**
   * An outline without perspective (each pair of opposite sides equal within `flatOutlineMaxKeystone` of their mean)
   * must have a card's proportions within `flatAspectTolerance` (0.676-0.756). Tilting a card far enough to look that
   * narrow or that wide (about 19 degrees) makes its near side at least 2 % longer than its far side unless the camera
   * is over a metre away (1.5 m for a tilt along its 88 mm side), where a phone photo gives the card under 3 pixels per
   * mm, too few to measure anything; a flatbed scan has no perspective at all. Of the real set's 489 outlines, 39
   * are such, and one had anything assessed: a slab scan's (0.80 wide, sides equal within 0.3 %), the lower half of the
   * card taken sideways, whose centering was read (49.5/51.1). No generated photo's true outline is such (400 sides).
   */
  flatOutlineMaxKeystone: 0.02,
  flatAspectTolerance: 0.04,
  /**
   * Distance (mm on the card) from the photo's border within which, or beyond which, a corner of the outline is cut
   * by the photo: its tip and what lies beyond it are not in view. On the real set, a source's own
   * perspective-corrected crop of a Paldean Tauros put its top-right corner 0.05 mm past the photo's right edge (the
   * card's right border runs off the photo there) and the other three within 0.1 mm of its left or bottom edge.
   */
  cornerAtPhotoEdgeMm: 0.25,
  /**
   * Distance (mm on the card) from one border of the photo within which, or beyond which, both ends of a side of the
   * outline lie for that side to be the photo's edge rather than the card's seen against what lies beyond it: the
   * card's edge is looked for 0.3 mm either side of the outline (centering.ts, outerWindowMm), and its step needs a
   * band of background beyond it. On the real set, a phone photo of a Shining Gyarados cut the card's top edge at
   * 0.2-0.35 mm from the photo's top, and its top border was measured from there (the top/bottom share 49.6/50.4).
   */
  sideAtPhotoEdgeMm: 0.5,
  /**
   * In a photo cropped to the card, how far (mm across the card's width, the photo's long side taken as its 88 mm)
   * the photo's proportions may differ from a card's for its frame to be taken for the card's edges when measuring
   * borders. A crop that cut this far into one 2.5 mm border moves a centred card's share by 4.4 points. On the real
   * set, the 290 Twins scans of 350 x 500 are 1.4 mm narrower than a card: a crop into the card or a strip beside it.
   * 80 of them were read, 26 worse than 60/40 (8 at 70/30 to 90/10, graded 4-7.5 on centering alone).
   */
  croppedPhotoMaxMismatchMm: 0.4,
} as const;

export interface PhotoSupport {
  /** Pixels per mm of the card in the photo (mean of its two long sides over 88 mm). */
  pxPerMm: number;
  /** Measured blur of the rectified side as a gaussian sigma in mm on the card. */
  blurMm: number;
  /** Width over height of the outline found (a bare card: 0.72). */
  outlineAspect: number;
  /** The graded slab's label found beside the card, when the card is in one. */
  slab: SlabLabel | null;
  /** Aspects this photo cannot support, with the reason. */
  notAssessed: Partial<Record<SubGradeName, string>>;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;

/** Whether an outline has a bare card's proportions; any other outline is a holder's (or the table's), not the card's edge. */
export function isCardShapedOutline(quad: Quad): boolean {
  const aspect = outlineAspect(quad);
  return aspect >= PHOTO_SUPPORT_LIMITS.outlineAspectRange[0] && aspect <= PHOTO_SUPPORT_LIMITS.outlineAspectRange[1];
}

/**
 * Whether an outline without perspective (flatOutlineMaxKeystone) lacks a card's proportions (flatAspectTolerance):
 * it is then not the card's edge, though its proportions are within the range a card seen at an angle may take. Only
 * what the photo supports asks this; the detector's choice between outlines does not (asked there, it moved the
 * outlines of 45 real photos, and 10 slabs' labels were no longer found beside them).
 */
export function isFlatNonCardOutline(quad: Quad): boolean {
  const L = PHOTO_SUPPORT_LIMITS;
  return outlineKeystone(quad) < L.flatOutlineMaxKeystone && Math.abs(outlineAspect(quad) - CARD_ASPECT) > L.flatAspectTolerance;
}

/** A point's distance (px) from each border of the photo, left, top, right, bottom: negative beyond it. */
function distancesFromPhotoBorders([x, y]: Quad[number], photo: { width: number; height: number }): number[] {
  return [x, y, photo.width - 1 - x, photo.height - 1 - y];
}

/** How many corners of the outline lie at the photo's border or beyond it (cornerAtPhotoEdgeMm): cut by the photo. */
export function cornersAtPhotoEdge(quad: Quad, photo: { width: number; height: number }): number {
  const within = PHOTO_SUPPORT_LIMITS.cornerAtPhotoEdgeMm * cardPxPerMm(quad);
  return quad.filter((p) => Math.min(...distancesFromPhotoBorders(p, photo)) <= within).length;
}

/**
 * The card's sides (its outline's, TL-TR top, TR-BR right, BR-BL bottom, BL-TL left) that lie along one border of the
 * photo: both ends within sideAtPhotoEdgeMm of it, or beyond it.
 */
export function sidesAtPhotoEdge(quad: Quad, photo: { width: number; height: number }): CardSide[] {
  const within = PHOTO_SUPPORT_LIMITS.sideAtPhotoEdgeMm * cardPxPerMm(quad);
  const sides: CardSide[] = ['top', 'right', 'bottom', 'left'];
  return sides.filter((_, k) => {
    const [a, b] = [distancesFromPhotoBorders(quad[k]!, photo), distancesFromPhotoBorders(quad[(k + 1) % 4]!, photo)];
    return a.some((d, border) => d <= within && b[border]! <= within);
  });
}

/** Pixels per mm of the card in the photo: its long sides (TL-BL, TR-BR) in pixels over 88 mm. */
export function cardPxPerMm(quad: Quad): number {
  const len = (a: number, b: number) => Math.hypot(quad[a]![0] - quad[b]![0], quad[a]![1] - quad[b]![1]);
  return (len(0, 3) + len(1, 2)) / 2 / 88;
}

/** The borders whose band varies like artwork rather than a printed border. */
function artBorders(c: CenteringResult): BorderMeasurement[] {
  return Object.values(c.borders).filter((b) => b.borderSpread > PHOTO_SUPPORT_LIMITS.borderMaxSpread);
}

/** The borders narrower than a printed one can be: in a slab, the well's shadow along the card's edge. */
function slabShadowBorders(c: CenteringResult): BorderMeasurement[] {
  return Object.values(c.borders).filter((b) => b.widthMm < PHOTO_SUPPORT_LIMITS.slabMinBorderMm);
}

/**
 * The axis on which one pixel moves the share most (the narrower border's line moved by one pixel, 100 x wider /
 * (sum)^2, borders in pixels), with that figure and its borders in pixels.
 */
function pixelSensitivity(c: CenteringResult, pxPerMm: number): { axis: 'left/right' | 'top/bottom'; pointsPerPx: number; px: [number, number] } {
  const axis = (a: number, b: number) => {
    const [pa, pb] = [a * pxPerMm, b * pxPerMm];
    return { pointsPerPx: pa + pb > 0 ? (100 * Math.max(pa, pb)) / (pa + pb) ** 2 : Infinity, px: [pa, pb] as [number, number] };
  };
  const lr = { axis: 'left/right' as const, ...axis(c.leftMm, c.rightMm) };
  const tb = { axis: 'top/bottom' as const, ...axis(c.topMm, c.bottomMm) };
  return tb.pointsPerPx > lr.pointsPerPx ? tb : lr;
}

/** The border whose frame and outline fit best. */
function strongestBorder(c: CenteringResult): BorderMeasurement {
  return Object.values(c.borders).reduce((a, b) => (b.confidence > a.confidence ? b : a));
}

/** The border whose frame and outline fit worst: what a centering reading's confidence is. */
function weakestBorder(c: CenteringResult): BorderMeasurement {
  return Object.values(c.borders).reduce((a, b) => (b.confidence < a.confidence ? b : a));
}

/** Why an outline with a stronger edge just outside it on `n` sides is taken to lie on the printed face. */
function outlineOnFace(n: number): string {
  return `on ${n} side${n > 1 ? 's' : ''} of the card the outline found has a stronger edge up to ${OUTER_STEP.withinMm} mm outside it, likely the card's own, with the outline on the printed face inside its border`;
}

/** The worse axis of a side's centering folded to 50-100 (70 for 30/70 or 70/30). */
function worseAxisShare(c: CenteringResult): number {
  return Math.max(c.leftRight, 100 - c.leftRight, c.topBottom, 100 - c.topBottom);
}

/** What the engine found on one side and how (engine.ts, analyzeSide), for photoSupport. */
export interface PhotoSupportInput {
  quadPx: Quad;
  blurPx: number;
  centering: CenteringResult;
  slab?: SlabLabel | null;
  croppedPhoto?: boolean;
  cornersAtPhotoEdge?: number;
  sidesAtPhotoEdge?: CardSide[];
  withinHolder?: boolean;
  secondLook?: boolean;
  sidesInsideStrongerEdge?: number;
}

/**
 * What one side's photo can support: nothing where the outline is not a card's; corners, edges and surface unless
 * the first of the wear conditions below holds (resolution, blur, a slab or holder, ...); centering unless one of
 * CENTERING_RULES sets it aside. Each aspect not assessed carries its reason in words.
 */
export function photoSupport(input: PhotoSupportInput): PhotoSupport {
  const L = PHOTO_SUPPORT_LIMITS;
  const pxPerMm = cardPxPerMm(input.quadPx);
  // Blur is measured on the rectified side (CANONICAL_PX_PER_MM); a photo with fewer pixels than that is at least
  // as blurred as its own pixel pitch.
  const blurMm = Math.max(input.blurPx / CANONICAL_PX_PER_MM, 0.5 / pxPerMm);
  const notAssessed: PhotoSupport['notAssessed'] = {};
  const aspect = outlineAspect(input.quadPx);
  const cardShaped = isCardShapedOutline(input.quadPx);
  const flat = cardShaped && isFlatNonCardOutline(input.quadPx);
  if (!cardShaped || flat) {
    // Everything measured relative to that outline would describe the holder (or the table), not the card.
    const reason = flat
      ? `the outline found is ${round2(aspect)} as wide as it is tall with its opposite sides equal, so not a bare card's 0.72 seen at an angle: not the card's own edge (part of the card, or a holder's)`
      : `the outline found is ${round2(aspect)} as wide as it is tall, not a bare card's 0.72: a slab, top-loader or sleeve, or not the card's own edge`;
    return { pxPerMm, blurMm, outlineAspect: aspect, slab: input.slab ?? null, notAssessed: { centering: reason, corners: reason, edges: reason, surface: reason } };
  }
  let wear: string | undefined;
  if (pxPerMm < L.wearMinPxPerMm) {
    wear = `the card spans ${round1(pxPerMm)} pixels per mm in the photo; ${L.wearMinPxPerMm} are needed to see wear of a few tenths of a mm`;
  } else if (blurMm > L.wearMaxBlurMm) {
    wear = `the photo is blurred by about ${round2(blurMm)} mm; at most ${L.wearMaxBlurMm} mm keeps wear of a few tenths of a mm visible`;
  }
  if (wear) {
    notAssessed.corners = wear;
    notAssessed.edges = wear;
    notAssessed.surface = wear;
  } else if (input.slab) {
    // Measured on the real set: PSA slab scans of cards PSA graded 8-10 showed 2-16 mm² of "whitening" and up to
    // 25 mm² of "dings" at their corners, all the well's shadow and walls (packages/vision/CHANGELOG.md).
    const s = input.slab;
    const inSlab = `the card is in a graded slab (its label lies ${round1(s.fromMm)}-${round1(s.toMm)} mm beyond the card's ${s.side} edge)`;
    notAssessed.corners = `${inSlab}: its corners and edges are seen through plastic beside the slab's well, whose shadow and walls cannot be told from whitening and wear`;
    notAssessed.edges = notAssessed.corners;
    // Measured on the real set: over the 68 PSA slab scans sharp enough for the surface, the marks read did not follow
    // PSA's grade (Spearman -0.35 between grade and surface sub-grade; PSA 10s carried 2.3 marks each, PSA 8s 1.0):
    // holo sparkle, print, the well's edge and the plastic's own scratches read through it (packages/vision/CHANGELOG.md).
    notAssessed.surface = `${inSlab}: its surface is seen through the slab's plastic, whose scratches, scuffs and reflections cannot be told from the card's own`;
  } else if (input.withinHolder) {
    // Found inside a larger outline with no slab label beside it (on the real set, a CGC slab photographed under shop
    // light, its label pale blue): the same plastic, walls and shadow may lie along its edges as in a slab.
    const within = "the card was found inside a larger outline (a slab whose label is not in view or not legible, a top-loader, or what it lies on): its corners and edges may be seen through plastic, whose walls and shadow cannot be told from whitening and wear";
    notAssessed.corners = within;
    notAssessed.edges = within;
  } else if (input.secondLook) {
    // On the real set the looser look also outlined a PSA slab photographed in dim light, its label unread: its walls
    // read as 4 worn corners and 3 worn edges, and the label and plastic inside it as 11 surface marks, on a PSA 9.
    // (A slab or holder confirmed around or inside such an outline is graded as one, above.)
    const loose = "the card's outline was found only on the detector's second, looser look (the first found nothing with a card's proportions) and nothing confirms it: it may be a holder's edge rather than the card's, with plastic and a label inside it, so wear along it and marks inside it are not judged";
    notAssessed.corners = loose;
    notAssessed.edges = loose;
    notAssessed.surface = loose;
  } else if (input.sidesInsideStrongerEdge) {
    // On the real set, 2023-24 Pokemon cards with silver foil borders: the outline lay on the face's edge inside the
    // border (resolve.ts, OUTER_STEP), and the printed corner tags and the face's own edge read as 2-4 worn corners
    // and 1-4 worn edges on each near-mint card.
    const inside = `${outlineOnFace(input.sidesInsideStrongerEdge)}: wear along the outline would be read from print, so it is not judged`;
    notAssessed.corners = inside;
    notAssessed.edges = inside;
  } else if (input.croppedPhoto) {
    // Nothing lies outside the card: its edges are the photo's, where a crop may have cut into it or left a strip.
    const cropped = "the photo is cropped to the card, so its edges are the photo's: whitening, chips and rounding along them cannot be told from the crop";
    notAssessed.corners = cropped;
    notAssessed.edges = cropped;
  } else if (input.cornersAtPhotoEdge) {
    // The corner model compares a corner's tip with what lies beyond it; at the photo's edge neither is in view.
    const n = input.cornersAtPhotoEdge;
    const cut = `${n === 1 ? 'a corner of the card lies' : `${n} corners of the card lie`} at the photo's edge or beyond it: the photo may have cut ${n === 1 ? 'it' : 'them'}, so whitening, chips and rounding there and along the edges cannot be told from the crop`;
    notAssessed.corners = cut;
    notAssessed.edges = cut;
  }
  const centering = centeringNotAssessed({ input, c: input.centering, pxPerMm, aspect });
  if (centering) notAssessed.centering = centering;
  return { pxPerMm, blurMm, outlineAspect: aspect, slab: input.slab ?? null, notAssessed };
}

/** One side's centering reading and what it was read on, for the rules below. */
interface CenteringCase {
  input: PhotoSupportInput;
  c: CenteringResult;
  pxPerMm: number;
  /** Width over height of the outline. */
  aspect: number;
}

/** Why the borders cannot be measured at this resolution. */
function tooFewPixelsPerMm({ pxPerMm }: CenteringCase): string | undefined {
  const min = PHOTO_SUPPORT_LIMITS.centeringMinPxPerMm;
  return pxPerMm < min ? `the card spans ${round1(pxPerMm)} pixels per mm in the photo; ${min} are needed to measure its borders` : undefined;
}

/**
 * The borders are measured from the photo's frame; where the frame is not a card's shape, the crop fell off the
 * card's edge on one axis (into the card, or beside it), by an amount no measurement inside the photo can give.
 */
function croppedPhotoNotCardShaped({ input, aspect }: CenteringCase): string | undefined {
  // How far the outline's width, taken at the card's 88 mm length, is from the card's 63 mm.
  const mismatchMm = Math.abs(aspect * CARD_HEIGHT_MM - CARD_WIDTH_MM);
  if (!(input.croppedPhoto && mismatchMm > PHOTO_SUPPORT_LIMITS.croppedPhotoMaxMismatchMm)) return undefined;
  return `the photo is cropped to the card, and its proportions (${round2(aspect)} as wide as tall) are not a card's (${round2(CARD_WIDTH_MM / CARD_HEIGHT_MM)}): ${round1(mismatchMm)} mm off across the card's width, so the crop has cut into the card or left a strip beside it, and its borders cannot be measured from the photo's frame`;
}

/** The border there is measured from where the photo ends, not from the card's edge (cardlens-vision-26). */
function sideAlongPhotoEdge({ input }: CenteringCase): string | undefined {
  const sides = input.sidesAtPhotoEdge ?? [];
  if (input.croppedPhoto || sides.length === 0) return undefined;
  return `the card's ${sides.join(' and ')} ${sides.length === 1 ? 'edge lies' : 'edges lie'} along the photo's edge (within ${PHOTO_SUPPORT_LIMITS.sideAtPhotoEdgeMm} mm of it, or beyond it): the photo may have cut the card there, and a border cannot be measured without the card's edge in view`;
}

/**
 * Borders a few pixels wide: the line found may be the edge's own blur or a printed line along it, and either way one
 * pixel is most of a centering grade (cardlens-vision-23).
 */
function bordersFewPixelsWide({ c, pxPerMm }: CenteringCase): string | undefined {
  const p = pixelSensitivity(c, pxPerMm);
  const max = PHOTO_SUPPORT_LIMITS.centeringMaxPointsPerPx;
  if (!(p.pointsPerPx > max)) return undefined;
  return `the ${p.axis} borders found are ${Math.round(p.px[0])} and ${Math.round(p.px[1])} pixels wide in the photo: one pixel in either line moves the share by up to ${round1(p.pointsPerPx)} points (at most ${max}; a step of PSA's centering table is 5), too few pixels to measure them`;
}

/**
 * The borders are measured from the outline, which lies on the printed face there: on the real set's 2023-24
 * silver-bordered cards, from the face's edge to the art box (5.8 and 4.0 mm "borders" read as 59/41). In a slab or
 * holder the stronger edge outside may be the well's or the plastic's, and the frame tests below hold.
 */
function outlineOnPrintedFace({ input }: CenteringCase): string | undefined {
  if (!input.sidesInsideStrongerEdge || input.slab || input.withinHolder) return undefined;
  return `${outlineOnFace(input.sidesInsideStrongerEdge)}: the borders would be measured from the face, not from the card's edge`;
}

/** A full-bleed design, or lines of its art: the bands taken for borders vary like artwork (cardlens-vision-6). */
function bandsLikeArtwork({ c }: CenteringCase): string | undefined {
  const art = artBorders(c);
  if (art.length < 2) return undefined;
  return `no printed border was found: the band taken for the ${art.map((b) => b.side).join(', ')} border varies like artwork (${art.map((b) => Math.round(b.borderSpread)).join(', ')} levels; a printed border is one colour, within ${PHOTO_SUPPORT_LIMITS.borderMaxSpread}): a full-bleed design, or lines of its art`;
}

/**
 * Not one line of the frame was found surely: generated cards' strongest side fits at 0.95 or better, even where
 * their weakest is poor; on the real set, lines in a Finest refractor's art (fits 0.07-0.22) read 86/14
 * (cardlens-vision-24).
 */
function noSureLine({ c }: CenteringCase): string | undefined {
  const strongest = strongestBorder(c);
  const min = PHOTO_SUPPORT_LIMITS.centeringMinConfidence;
  if (!(strongest.confidence < min)) return undefined;
  return `no line of a printed frame was found with confidence: the surest fit, the ${strongest.side} border's, is ${round2(strongest.confidence)} (at least one side must fit at ${min} or better), so the lines found are likely the design's`;
}

/** In a slab or holder, a line that close to the card's edge is the shadow along it in the well. */
function wellShadow({ input, c }: CenteringCase): string | undefined {
  const shadow = slabShadowBorders(c);
  if (!(input.slab || input.withinHolder) || shadow.length === 0) return undefined;
  return `${input.slab ? 'in a slab' : 'in a holder'}, the line found ${shadow.map((b) => `${round2(b.widthMm)} mm in on the ${b.side}`).join(' and ')} is the shadow along the card's edge in the well, not its printed frame (a printed border is at least ${PHOTO_SUPPORT_LIMITS.slabMinBorderMm} mm wide)`;
}

/**
 * A reading that would cost grade is believed when its four lines make a frame (a shifted print keeps both axes'
 * border totals alike); when they do not, one of them is a line of the design, not the frame.
 */
function costlyReadingWithoutFrame({ c }: CenteringCase): string | undefined {
  const L = PHOTO_SUPPORT_LIMITS;
  const lr = c.leftMm + c.rightMm;
  const tb = c.topMm + c.bottomMm;
  if (!(worseAxisShare(c) > L.centeringUnconfirmedMaxShare && Math.abs(lr - tb) > L.centeringFrameMismatchMm)) return undefined;
  const weakest = weakestBorder(c);
  const unsure = `the printed frame was not found with confidence (weakest fit: the ${weakest.side} border, ${round2(weakest.confidence)})`;
  return (c.confidence < L.centeringMinConfidence ? `${unsure}, and the lines ` : 'the lines ') + `found do not form a frame (left + right ${round1(lr)} mm, top + bottom ${round1(tb)} mm)`;
}

/**
 * In a holder, lines that happen to form a frame are not enough when they were not found surely (the well's walls
 * and shadow lie beside the card's edges): on the real set's PSA slabs, 5 such readings (69/31 to 77/23) were of cards
 * PSA graded 8-10, whose centering is at most 65/35; of the hand-measured slab scans, the three read so within 60/40
 * (fits 0.20-0.44) were 3, 10 and 13 points off on their worse axis, the six read surely a median of 1.2. Out of one,
 * generated off-centre cards fit as weakly and are read right (bench:vision centering MAE 0.053, 0.117 with this rule
 * everywhere). An outline from the detector's second look is as unsure: on a sleeved card under glare it ended at the
 * glare, and the 0.4 mm "border" left there read 94/6.
 */
function unsureFrameInHolder({ input, c }: CenteringCase): string | undefined {
  if (!((input.slab || input.withinHolder || input.secondLook) && c.confidence < PHOTO_SUPPORT_LIMITS.centeringMinConfidence)) return undefined;
  const weakest = weakestBorder(c);
  return `${input.slab ? 'in a slab' : input.withinHolder ? 'in a holder' : "on an outline from the detector's second look"}, the printed frame was not found with confidence (weakest fit: the ${weakest.side} border, ${round2(weakest.confidence)}), and the edges beside it may be the holder's: its reading (${Math.round(worseAxisShare(c))}/${100 - Math.round(worseAxisShare(c))} on its worse axis) is not used`;
}

/** The rules that can set a side's centering aside, in order: the first that applies gives the reason. */
const CENTERING_RULES: ((x: CenteringCase) => string | undefined)[] = [
  tooFewPixelsPerMm,
  croppedPhotoNotCardShaped,
  sideAlongPhotoEdge,
  bordersFewPixelsWide,
  outlineOnPrintedFace,
  bandsLikeArtwork,
  noSureLine,
  wellShadow,
  costlyReadingWithoutFrame,
  unsureFrameInHolder,
];

/** Why a side's centering is not assessed (CENTERING_RULES), or undefined where its reading stands. */
function centeringNotAssessed(x: CenteringCase): string | undefined {
  for (const rule of CENTERING_RULES) {
    const reason = rule(x);
    if (reason) return reason;
  }
  return undefined;
}
