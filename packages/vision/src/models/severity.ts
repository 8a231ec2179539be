/**
 * Defect-severity models: learned estimates of the rubric severities (0 = mint, 1 = worst) from patches of the
 * rectified side (canonical 630 x 880 px at 10 px/mm, card outer edge on the image border). They refine and
 * cross-check the classical measurements in src/defects; they do not replace them (the rubric grades physical
 * measurements, which the classical path provides).
 *
 * - severity-corner: the 6 x 6 mm corner square, mirrored so the card corner is top-left, 48 x 48 px in;
 *   out: [whitening, rounding, ding] component severities (sigmoid).
 * - severity-edge: the band along an edge between the corner squares, 4.8 mm deep (wear reaches up to ~5 mm),
 *   turned so the outer edge is on top, 256 (along) x 24 (deep) px in; out: [whitening, depth, chips].
 * - severity-surface: the whole side at ~3.6 px/mm (224 x 320 px) in; out: a 7 x 10 grid of tiles (9 x 8.8 mm)
 *   with the severity of the worst surface defect touching each tile.
 * The element severity combines the components the way the rubric does (worst + a quarter of the rest).
 */
import type { CornerId, EdgeId } from '@cardlens/grading-rubric';
import { combineComponents } from '@cardlens/grading-rubric';
import type { RgbImage } from '../image/types';
import { orientedCrop, toInput, type CropTransform } from './prep';
import type { ModelRuntime } from './runtime';

export const SEVERITY_MODELS = { corner: 'severity-corner', edge: 'severity-edge', surface: 'severity-surface' } as const;

export const CARD_PX = { width: 630, height: 880 } as const;
export const CORNER_WINDOW_PX = 60;
export const CORNER_INPUT = 48;
export const EDGE_DEPTH_PX = 48;
export const EDGE_INPUT = { along: 256, depth: 24 } as const;
export const SURFACE_INPUT = { width: 224, height: 320 } as const;
export const SURFACE_GRID = { cols: 7, rows: 10 } as const;

export const CORNER_IDS: readonly CornerId[] = ['TL', 'TR', 'BR', 'BL'];
export const EDGE_IDS: readonly EdgeId[] = ['top', 'right', 'bottom', 'left'];
export const CORNER_COMPONENTS = ['whitening', 'rounding', 'ding'] as const;
export const EDGE_COMPONENTS = ['whitening', 'depth', 'chips'] as const;

const CORNER_TRANSFORM: Record<CornerId, CropTransform> = { TL: 'none', TR: 'flipX', BR: 'flipXY', BL: 'flipY' };
const EDGE_TRANSFORM: Record<EdgeId, CropTransform> = { top: 'none', bottom: 'flipY', right: 'rightToTop', left: 'leftToTop' };

/**
 * Where the card sits in `img`: its top-left at (ox, oy) and `scale` image px per canonical px (1 for the
 * canonical 630 x 880 rectification). Training crops from padded renders; inference uses the default.
 */
export interface CardFrame {
  ox: number;
  oy: number;
  scale: number;
}

const frameOf = (img: RgbImage): CardFrame => ({ ox: 0, oy: 0, scale: img.width / CARD_PX.width });

/** Corner patch (48 x 48, corner at top-left). `shift` moves the window (canonical px, +x/+y = into the card). */
export function cornerPatch(img: RgbImage, corner: CornerId, frame: CardFrame = frameOf(img), shift: [number, number] = [0, 0]): Uint8Array {
  const s = frame.scale;
  const w = CORNER_WINDOW_PX;
  const left = corner === 'TL' || corner === 'BL';
  const top = corner === 'TL' || corner === 'TR';
  const x = left ? shift[0] : CARD_PX.width - w - shift[0];
  const y = top ? shift[1] : CARD_PX.height - w - shift[1];
  return orientedCrop(img, frame.ox + x * s, frame.oy + y * s, w * s, w * s, CORNER_INPUT, CORNER_INPUT, CORNER_TRANSFORM[corner]);
}

/** Edge patch (256 along x 24 deep, outer edge on top). `shift` moves the band into the card (canonical px). */
export function edgePatch(img: RgbImage, edge: EdgeId, frame: CardFrame = frameOf(img), shift = 0): Uint8Array {
  const s = frame.scale;
  const c = CORNER_WINDOW_PX;
  const d = EDGE_DEPTH_PX;
  let x: number;
  let y: number;
  let w: number;
  let h: number;
  switch (edge) {
    case 'top':
      [x, y, w, h] = [c, shift, CARD_PX.width - 2 * c, d];
      break;
    case 'bottom':
      [x, y, w, h] = [c, CARD_PX.height - d - shift, CARD_PX.width - 2 * c, d];
      break;
    case 'left':
      [x, y, w, h] = [shift, c, d, CARD_PX.height - 2 * c];
      break;
    case 'right':
      [x, y, w, h] = [CARD_PX.width - d - shift, c, d, CARD_PX.height - 2 * c];
      break;
  }
  return orientedCrop(img, frame.ox + x * s, frame.oy + y * s, w * s, h * s, EDGE_INPUT.along, EDGE_INPUT.depth, EDGE_TRANSFORM[edge]);
}

/** The whole side resampled to 224 x 320. */
export function surfacePatch(img: RgbImage, frame: CardFrame = frameOf(img)): Uint8Array {
  const s = frame.scale;
  return orientedCrop(img, frame.ox, frame.oy, CARD_PX.width * s, CARD_PX.height * s, SURFACE_INPUT.width, SURFACE_INPUT.height, 'none');
}

/** Tile (col, row) of the surface grid in mm on the side: [x, y, w, h]. */
export function surfaceTileMm(col: number, row: number): [number, number, number, number] {
  const w = 63 / SURFACE_GRID.cols;
  const h = 88 / SURFACE_GRID.rows;
  return [col * w, row * h, w, h];
}

export interface ElementSeverity<C extends string> {
  /** Combined like the rubric: worst component + 0.25 x the others, clamped to 1. */
  severity: number;
  components: Record<C, number>;
}

export interface SeverityPrediction {
  corners: Record<CornerId, ElementSeverity<(typeof CORNER_COMPONENTS)[number]>>;
  edges: Record<EdgeId, ElementSeverity<(typeof EDGE_COMPONENTS)[number]>>;
  surface: {
    /** Worst tile. */
    max: number;
    cols: number;
    rows: number;
    /** rows x cols tile severities, row-major from the top-left tile; tile size 9 x 8.8 mm. */
    tiles: number[];
  };
  timingsMs: { prep: number; corner: number; edge: number; surface: number };
}

function element<C extends string>(names: readonly C[], values: ArrayLike<number>, offset: number): ElementSeverity<C> {
  const components = {} as Record<C, number>;
  const list: number[] = [];
  names.forEach((n, i) => {
    const v = Math.min(1, Math.max(0, values[offset + i]!));
    components[n] = v;
    list.push(v);
  });
  return { severity: combineComponents(list), components };
}

/**
 * Runs the three severity models on one rectified side (canonical 630 x 880; another size with the same
 * aspect is resampled). Loads the models on first use (runtime cache).
 */
export async function predictSeverities(runtime: ModelRuntime, rectifiedSide: RgbImage): Promise<SeverityPrediction> {
  const { tf } = runtime;
  const [cornerModel, edgeModel, surfaceModel] = await Promise.all([
    runtime.loadModel(SEVERITY_MODELS.corner),
    runtime.loadModel(SEVERITY_MODELS.edge),
    runtime.loadModel(SEVERITY_MODELS.surface),
  ]);
  const now = () => performance.now();
  let t = now();
  const cornerSize = CORNER_INPUT * CORNER_INPUT * 3;
  const cornerIn = new Float32Array(4 * cornerSize);
  CORNER_IDS.forEach((c, i) => toInput(cornerPatch(rectifiedSide, c), cornerIn, i * cornerSize));
  const edgeSize = EDGE_INPUT.along * EDGE_INPUT.depth * 3;
  const edgeIn = new Float32Array(4 * edgeSize);
  EDGE_IDS.forEach((e, i) => toInput(edgePatch(rectifiedSide, e), edgeIn, i * edgeSize));
  const surfaceIn = toInput(surfacePatch(rectifiedSide));
  const timingsMs = { prep: now() - t, corner: 0, edge: 0, surface: 0 };

  const run = async (model: Awaited<ReturnType<typeof runtime.loadModel>>, data: Float32Array, shape: [number, number, number, number]) => {
    const y = tf.tidy(() => model.predict(tf.tensor4d(data, shape)) as ReturnType<typeof tf.tensor4d>);
    const out = (await y.data()) as Float32Array;
    y.dispose();
    return out;
  };
  t = now();
  const cornerOut = await run(cornerModel, cornerIn, [4, CORNER_INPUT, CORNER_INPUT, 3]);
  timingsMs.corner = now() - t;
  t = now();
  const edgeOut = await run(edgeModel, edgeIn, [4, EDGE_INPUT.depth, EDGE_INPUT.along, 3]);
  timingsMs.edge = now() - t;
  t = now();
  const surfaceOut = await run(surfaceModel, surfaceIn, [1, SURFACE_INPUT.height, SURFACE_INPUT.width, 3]);
  timingsMs.surface = now() - t;

  const corners = {} as SeverityPrediction['corners'];
  CORNER_IDS.forEach((c, i) => (corners[c] = element(CORNER_COMPONENTS, cornerOut, i * 3)));
  const edges = {} as SeverityPrediction['edges'];
  EDGE_IDS.forEach((e, i) => (edges[e] = element(EDGE_COMPONENTS, edgeOut, i * 3)));
  const tiles = Array.from(surfaceOut, (v) => Math.min(1, Math.max(0, v)));
  return {
    corners,
    edges,
    surface: { max: Math.max(0, ...tiles), cols: SURFACE_GRID.cols, rows: SURFACE_GRID.rows, tiles },
    timingsMs,
  };
}
