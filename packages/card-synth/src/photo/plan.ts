// Photographic conditions: frame size, camera pose (in-plane rotation, tilt), where the card lands, light,
// glare, sleeve, blur, noise, JPEG quality and EXIF orientation. All drawn from the seed unless overridden.
import { H as CARD_H, W as CARD_W } from '../shape';
import type { Rng } from '../prng';
import { apply, mul, rotation3, translation, type Mat3 } from './homography';

export type BackgroundKind = 'plain' | 'wood' | 'cloth' | 'clutter';
export type SleeveKind = 'none' | 'penny' | 'toploader';
export type ExifOrientation = 1 | 3 | 6 | 8;

export interface GlareSpot {
  /** Centre and semi-axes in display pixels, rotation in degrees. */
  cx: number;
  cy: number;
  rx: number;
  ry: number;
  angleDeg: number;
  /** Peak brightening 0..1 (1 = blown out to white at the core). */
  strength: number;
  overCard: boolean;
}

export interface PhotoOptions {
  /** Output size in megapixels (2-12 by default, drawn from the seed). */
  megapixels?: number;
  aspect?: '4:3' | '3:2' | '16:9' | '1:1';
  portrait?: boolean;
  /** Card area / frame area (0.25-0.9 by default; reduced when the card would not fit). */
  cardFraction?: number;
  /** Camera roll: in-plane rotation of the card, degrees. */
  rotationDeg?: number;
  /** Tilt of the card plane against the image plane, degrees (0-30 by default). */
  tiltDeg?: number;
  tiltAxisDeg?: number;
  background?: BackgroundKind;
  glare?: boolean;
  sleeve?: SleeveKind;
  /** Gaussian blur sigma in pixels (0 = none). */
  blurSigmaPx?: number;
  /** Sensor noise standard deviation in 8-bit levels. */
  noiseSigma?: number;
  jpegQuality?: number;
  exifOrientation?: ExifOrientation;
  /** Upper bound on the source render scale (px/mm) used for this photo (default 12). */
  maxRenderPxPerMm?: number;
  /** Light override (e.g. neutral light for tests: exposure 1, no gradient, no vignette, no tint). */
  lighting?: Lighting;
  /** Shadow strength override (0 = no shadow). */
  shadowOpacity?: number;
}

export interface Lighting {
  /** Global exposure multiplier. */
  exposure: number;
  /** Linear light gradient across the frame: gain change from one side to the other, and its direction. */
  gradient: number;
  gradientDeg: number;
  /** Vignetting strength (gain loss at the frame corners). */
  vignette: number;
  /** Colour cast multipliers. */
  tint: [number, number, number];
}

export interface SleevePlan {
  kind: Exclude<SleeveKind, 'none'>;
  /** Extra margin around the card, mm: left, top, right, bottom. */
  margin: [number, number, number, number];
  haze: number;
  edgeOpacity: number;
  /** Glare band across the sleeve in card mm: centre offset along the normal, normal direction, width. */
  band: { offset: number; angleDeg: number; width: number; strength: number } | null;
}

export interface PhotoPlan {
  /** Display size (after EXIF orientation is applied). */
  width: number;
  height: number;
  megapixels: number;
  /** Maps card mm (x right, y down from the card's top-left) to display pixels (continuous coordinates). */
  homography: Mat3;
  quadPx: [number, number][];
  rotationDeg: number;
  perspectiveDeg: number;
  cardFraction: number;
  /** Largest local scale of the card in the photo, px per mm. */
  pxPerMm: number;
  /** Scale the card should be rendered at for this photo. */
  renderPxPerMm: number;
  background: BackgroundKind;
  backgroundSeed: number;
  lighting: Lighting;
  glare: GlareSpot[];
  sleeve: SleevePlan | null;
  blurSigmaPx: number;
  noiseSigma: number;
  jpegQuality: number;
  exifOrientation: ExifOrientation;
  /** Shadow offset of the card on the background, px. */
  shadow: { dx: number; dy: number; blur: number; opacity: number };
}

const ASPECTS: Record<NonNullable<PhotoOptions['aspect']>, number> = { '4:3': 4 / 3, '3:2': 3 / 2, '16:9': 16 / 9, '1:1': 1 };

function quadArea(q: [number, number][]): number {
  let s = 0;
  for (let i = 0; i < q.length; i++) {
    const a = q[i]!;
    const b = q[(i + 1) % q.length]!;
    s += a[0] * b[1] - b[0] * a[1];
  }
  return Math.abs(s) / 2;
}

function sampleRotation(rng: Rng): number {
  const r = rng.next();
  if (r < 0.8) return Math.max(-25, Math.min(25, rng.normal(0, 9)));
  if (r < 0.9) return rng.range(-45, 45);
  if (r < 0.96) return (rng.chance(0.5) ? 90 : -90) + rng.normal(0, 6);
  return 180 + rng.normal(0, 6);
}

function sampleTilt(rng: Rng): number {
  const r = rng.next();
  if (r < 0.58) return rng.range(0, 10);
  if (r < 0.92) return rng.range(10, 20);
  return rng.range(20, 30);
}

export function planPhoto(rng: Rng, options: PhotoOptions = {}): PhotoPlan {
  const megapixels = options.megapixels ?? rng.range(2, 12);
  const aspect = ASPECTS[options.aspect ?? rng.weighted([['4:3', 5], ['3:2', 2], ['16:9', 2], ['1:1', 0.6]] as const)];
  const rotationIn = options.rotationDeg ?? sampleRotation(rng);
  const sideways = Math.abs(Math.abs(((rotationIn + 180) % 360) - 180) - 90) < 45;
  // People mostly shoot a portrait card in portrait; a sideways card in landscape.
  const portrait = options.portrait ?? (sideways ? rng.chance(0.2) : rng.chance(0.8));
  const long = Math.sqrt(megapixels * 1e6 * aspect);
  const short = long / aspect;
  const width = Math.round(portrait ? short : long);
  const height = Math.round(portrait ? long : short);

  // Camera pose: card plane tilted by `tilt` about an in-plane axis, rolled by `rotation`, at distance z0.
  const tilt = options.tiltDeg ?? sampleTilt(rng);
  const axisDeg = options.tiltAxisDeg ?? rng.range(0, 360);
  const z0 = rng.range(200, 420);
  const ax = (axisDeg * Math.PI) / 180;
  const rTilt = rotation3(Math.cos(ax), Math.sin(ax), 0, (tilt * Math.PI) / 180);
  const rRoll = rotation3(0, 0, 1, (rotationIn * Math.PI) / 180);
  const R = mul(rRoll, rTilt);
  // Columns: R e1, R e2, R c + t with c = (-W/2, -H/2, 0), t = (0, 0, z0); unit focal length.
  const cx = -CARD_W / 2;
  const cy = -CARD_H / 2;
  const unit: Mat3 = [
    R[0],
    R[1],
    R[0] * cx + R[1] * cy,
    R[3],
    R[4],
    R[3] * cx + R[4] * cy,
    R[6],
    R[7],
    R[6] * cx + R[7] * cy + z0,
  ];
  const corners: [number, number][] = [
    [0, 0],
    [CARD_W, 0],
    [CARD_W, CARD_H],
    [0, CARD_H],
  ];
  const q0 = corners.map(([x, y]) => apply(unit, x, y));
  const xs = q0.map((p) => p[0]);
  const ys = q0.map((p) => p[1]);
  const bw = Math.max(...xs) - Math.min(...xs);
  const bh = Math.max(...ys) - Math.min(...ys);
  const area0 = quadArea(q0);
  const wantFraction = options.cardFraction ?? rng.range(0.25, 0.9);
  const margin = 0.03;
  let s = Math.sqrt((wantFraction * width * height) / area0);
  s = Math.min(s, (width * (1 - 2 * margin)) / bw, (height * (1 - 2 * margin)) / bh);
  // Place the card's bounding box somewhere in the frame (mostly near the centre).
  const freeX = width - s * bw;
  const freeY = height - s * bh;
  const px = freeX * Math.max(margin, Math.min(1 - margin, rng.normal(0.5, 0.18)));
  const py = freeY * Math.max(margin, Math.min(1 - margin, rng.normal(0.5, 0.18)));
  const homography = mul(translation(px - s * Math.min(...xs), py - s * Math.min(...ys)), mul([s, 0, 0, 0, s, 0, 0, 0, 1], unit));
  const quadPx = corners.map(([x, y]) => apply(homography, x, y));
  const cardFraction = quadArea(quadPx) / (width * height);
  const edgeScale = (a: [number, number], b: [number, number], mm: number) => Math.hypot(b[0] - a[0], b[1] - a[1]) / mm;
  const [tl, tr, br, bl] = quadPx as [[number, number], [number, number], [number, number], [number, number]];
  const pxPerMm = Math.max(edgeScale(tl, tr, CARD_W), edgeScale(bl, br, CARD_W), edgeScale(tl, bl, CARD_H), edgeScale(tr, br, CARD_H));
  const maxRender = options.maxRenderPxPerMm ?? 12;
  const renderPxPerMm = Math.max(4, Math.min(maxRender, Math.ceil(pxPerMm * 1.1)));
  const mid = (a: [number, number], b: [number, number]) => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
  const left = mid(tl, bl);
  const right = mid(tr, br);
  const rotationDeg = (Math.atan2(right[1]! - left[1]!, right[0]! - left[0]!) * 180) / Math.PI;

  const background = options.background ?? rng.weighted<BackgroundKind>([['plain', 3], ['wood', 2.5], ['cloth', 2], ['clutter', 2.5]]);
  const lighting: Lighting = options.lighting ?? {
    exposure: rng.range(0.82, 1.08),
    gradient: rng.chance(0.7) ? rng.range(0.05, 0.45) : rng.range(0, 0.05),
    gradientDeg: rng.range(0, 360),
    vignette: rng.range(0, 0.3),
    tint: [rng.range(0.94, 1.06), rng.range(0.96, 1.04), rng.range(0.92, 1.06)],
  };
  const wantGlare = options.glare ?? rng.chance(0.15);
  const glare: GlareSpot[] = [];
  if (wantGlare) {
    const count = rng.int(1, 3);
    for (let i = 0; i < count; i++) {
      const over = i === 0 ? rng.chance(0.7) : rng.chance(0.4);
      let gx: number;
      let gy: number;
      if (over) {
        const u = rng.range(0.1, 0.9);
        const v = rng.range(0.1, 0.9);
        [gx, gy] = apply(homography, u * CARD_W, v * CARD_H);
      } else {
        gx = rng.range(0, width);
        gy = rng.range(0, height);
      }
      const size = rng.range(0.03, 0.12) * Math.min(width, height);
      glare.push({
        cx: gx,
        cy: gy,
        rx: size * rng.range(0.6, 1.6),
        ry: size * rng.range(0.4, 1),
        angleDeg: rng.range(0, 180),
        strength: rng.range(0.35, 1),
        overCard: over,
      });
    }
  }
  const sleeveKind: SleeveKind = options.sleeve ?? rng.weighted<SleeveKind>([['none', 85], ['penny', 9], ['toploader', 6]]);
  let sleeve: SleevePlan | null = null;
  if (sleeveKind !== 'none') {
    const toploader = sleeveKind === 'toploader';
    sleeve = {
      kind: sleeveKind,
      margin: toploader
        ? [rng.range(3, 5), rng.range(4, 7), rng.range(3, 5), rng.range(3, 5)]
        : [rng.range(0.6, 1.6), rng.range(1.5, 4), rng.range(0.6, 1.6), rng.range(0.6, 1.6)],
      haze: toploader ? rng.range(0.04, 0.1) : rng.range(0.02, 0.06),
      edgeOpacity: rng.range(0.3, 0.7),
      band: rng.chance(0.5)
        ? { offset: rng.range(-30, 30), angleDeg: rng.range(20, 70) * (rng.chance(0.5) ? 1 : -1), width: rng.range(4, 14), strength: rng.range(0.15, 0.55) }
        : null,
    };
  }
  // Blur: sigma scaled to the resolution (up to ~2 px at 12 MP).
  const mpScale = Math.sqrt(megapixels / 12);
  const blurSigmaPx =
    options.blurSigmaPx ?? (rng.chance(0.1) ? rng.range(0.9, 2.1) * mpScale : rng.chance(0.5) ? rng.range(0.3, 0.8) * mpScale : 0);
  const noiseSigma = options.noiseSigma ?? (rng.chance(0.2) ? rng.range(4, 9) : rng.range(0.8, 4));
  const jpegQuality = options.jpegQuality ?? Math.round(rng.range(60, 95));
  const exifOrientation: ExifOrientation = options.exifOrientation ?? (rng.chance(0.06) ? rng.pick([3, 6, 8] as const) : 1);
  const shadowLen = rng.range(0.002, 0.012) * Math.min(width, height);
  const shadowDir = rng.range(0, Math.PI * 2);
  return {
    width,
    height,
    megapixels: Math.round(((width * height) / 1e6) * 100) / 100,
    homography,
    quadPx,
    rotationDeg,
    perspectiveDeg: tilt,
    cardFraction,
    pxPerMm,
    renderPxPerMm,
    background,
    backgroundSeed: rng.nextUint32(),
    lighting,
    glare,
    sleeve,
    blurSigmaPx: blurSigmaPx < 0.3 ? 0 : blurSigmaPx,
    noiseSigma,
    jpegQuality,
    exifOrientation,
    shadow: {
      dx: Math.cos(shadowDir) * shadowLen,
      dy: Math.sin(shadowDir) * shadowLen,
      blur: rng.range(0.004, 0.015) * Math.min(width, height),
      opacity: options.shadowOpacity ?? rng.range(0.1, 0.4),
    },
  };
}

export interface LightingField {
  /** Per-column additive gradient term and vignette factor. */
  ax: Float32Array;
  vx: Float32Array;
  /** Row term: gain(x, y) = (ax[x] + rowAdd(y)) * vx[x] * rowMul(y). */
  rowAdd(y: number): number;
  rowMul(y: number): number;
  gain(x: number, y: number): number;
}

/**
 * Uneven light as a separable gain: exposure x (1 + linear gradient) x vignette. Continuous pixel
 * coordinates; the background (at low resolution) and the warped card use the same field.
 */
export function lightingField(plan: PhotoPlan): LightingField {
  const L = plan.lighting;
  const dir = (L.gradientDeg * Math.PI) / 180;
  const gx = Math.cos(dir) * L.gradient;
  const gy = Math.sin(dir) * L.gradient;
  const w = plan.width;
  const h = plan.height;
  const ax = new Float32Array(w);
  const vx = new Float32Array(w);
  for (let x = 0; x < w; x++) {
    const u = (x + 0.5) / w - 0.5;
    ax[x] = gx * u;
    vx[x] = 1 - L.vignette * 2 * u * u;
  }
  const rowAdd = (y: number) => 1 + gy * ((y + 0.5) / h - 0.5);
  const rowMul = (y: number) => {
    const v = (y + 0.5) / h - 0.5;
    return (1 - L.vignette * 2 * v * v) * L.exposure;
  };
  return {
    ax,
    vx,
    rowAdd,
    rowMul,
    gain: (x: number, y: number) => {
      const xi = Math.max(0, Math.min(w - 1, Math.floor(x)));
      return (ax[xi]! + rowAdd(y)) * vx[xi]! * rowMul(y);
    },
  };
}
