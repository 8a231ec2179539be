// One generated sample: a card record, its condition, its rendering and two photographs, with the label.
import {
  CARD_HEIGHT_MM,
  CARD_WIDTH_MM,
  gradeCard,
  PX_PER_MM,
  type CardMeasurements,
  type RubricDefect,
  type RubricResult,
  type Side,
  type SideMeasurements,
  type SubGradeName,
  type SubGradeSet,
} from '@cardlens/grading-rubric';
import { pickRecord, type CatalogGame, type CatalogRecord } from './catalog';
import { cardSpecFromRecord, type CardSpec, type Rgb } from './card';
import { sampleTemplate, type CardCondition, type Intensity } from './condition';
import { planPhoto, type PhotoOptions, type PhotoPlan } from './photo/plan';
import { encodePhoto, photoLabel, photographRaw, type PhotoLabel, type PhotoTags } from './photo/photograph';
import { Rng } from './prng';
import { createDesign, type CardDesign, type Rect, type TextBox } from './render/design';
import { renderSide, toRgb, type RenderedSide } from './render/side';
import { chooseCondition, type ConditionRequest } from './targeting';

export const GENERATOR_VERSION = '1.1.0';
/** Seeds below this are training samples; at or above it, evaluation samples. */
export const EVAL_SEED_START = 1_000_000;

export type Split = 'train' | 'eval';

export function splitOf(seed: number): Split {
  return seed >= EVAL_SEED_START ? 'eval' : 'train';
}

/** The card as the label reports it: the printed identity from CardSpec, without the design's extras. */
export type CardLabel = Pick<
  CardSpec,
  | 'catalogId' | 'game' | 'name' | 'subject' | 'set' | 'release' | 'year' | 'number' | 'printedNumber' | 'copyright'
  | 'parallel' | 'printRun' | 'serial' | 'finish' | 'borderColor'
>;

export interface SampleTags extends PhotoTags {
  /** Which photos carry each tag. */
  sides: Record<Side, PhotoTags>;
}

export interface SideCentering {
  leftRight: number;
  topBottom: number;
  leftRightDisplay: string;
  topBottomDisplay: string;
}

export interface SampleLabel {
  seed: number;
  split: Split;
  generatorVersion: string;
  rubricVersion: string;
  tags: SampleTags;
  card: CardLabel;
  /** Identifying text as printed, with approximate boxes (mm on each side). */
  text: TextBox[];
  /** Printed frame rectangle per side, mm (its outer edge is what centering is measured against). */
  frame: Record<Side, Rect>;
  photo: Record<Side, PhotoLabel>;
  measurements: { front: SideMeasurements; back: SideMeasurements };
  /** True centering shares (100 * L / (L + R), 100 * T / (T + B)). */
  centering: Record<Side, SideCentering>;
  defects: RubricDefect[];
  truth: RubricResult;
  condition: { targetGrade: number; dominant: SubGradeName; subGradeTargets: Partial<SubGradeSet>; intensity: Intensity };
}

export interface GenerateOptions {
  /** Restrict the catalog (pokemon or sports). */
  game?: CatalogGame;
  condition?: ConditionRequest;
  /** Photo options for both sides, or per side. */
  photo?: PhotoOptions & { front?: PhotoOptions; back?: PhotoOptions };
}

export interface Sample {
  frontJpeg: Buffer;
  backJpeg: Buffer;
  label: SampleLabel;
}

interface PreparedCard {
  rng: Rng;
  record: CatalogRecord;
  spec: CardSpec;
  design: CardDesign;
  condition: CardCondition;
  choice: ReturnType<typeof chooseCondition>;
  truth: RubricResult;
}

/** Everything about the card itself (no photo), deterministic from the seed. */
export function prepareCard(seed: number, options: GenerateOptions = {}): PreparedCard {
  const rng = new Rng(seed);
  const record = pickRecord(rng.fork('record'), options.game);
  const spec = cardSpecFromRecord(record, rng.fork('spec'));
  const design = createDesign(spec, rng.fork('design'));
  const template = sampleTemplate(rng.fork('condition'), design.borders);
  const choice = chooseCondition(rng.fork('grade'), template, options.condition);
  const truth = gradeCard(choice.condition.measurements);
  return { rng, record, spec, design, condition: choice.condition, choice, truth };
}

function cardLabel(s: CardSpec): CardLabel {
  return {
    catalogId: s.catalogId,
    game: s.game,
    name: s.name,
    subject: s.subject,
    set: s.set,
    release: s.release,
    year: s.year,
    number: s.number,
    printedNumber: s.printedNumber,
    copyright: s.copyright,
    parallel: s.parallel,
    printRun: s.printRun,
    serial: s.serial,
    finish: s.finish,
    borderColor: s.borderColor,
  };
}

function sideCentering(truth: RubricResult, side: Side): SideCentering {
  const c = side === 'front' ? truth.centering.front : truth.centering.back;
  if (!c) throw new Error('missing back centering');
  return {
    leftRight: Math.round(c.leftRight * 1000) / 1000,
    topBottom: Math.round(c.topBottom * 1000) / 1000,
    leftRightDisplay: c.leftRightDisplay,
    topBottomDisplay: c.topBottomDisplay,
  };
}

function mergeTags(front: PhotoTags, back: PhotoTags): SampleTags {
  const keys = Object.keys(front) as (keyof PhotoTags)[];
  const out = {} as PhotoTags;
  for (const k of keys) out[k] = front[k] || back[k];
  return { ...out, sides: { front, back } };
}

/** Generates one sample: front and back photos (JPEG) and the label. Deterministic from the seed. */
export async function generateSample(seed: number, options: GenerateOptions = {}): Promise<Sample> {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`seed must be a non-negative integer, got ${seed}`);
  const card = prepareCard(seed, options);
  const { rng, design, condition, truth, choice } = card;
  const { front: frontOpts, back: backOpts, ...shared } = options.photo ?? {};
  const plans: Record<Side, PhotoPlan> = {
    front: planPhoto(rng.fork('photo-front'), { ...shared, ...frontOpts }),
    back: planPhoto(rng.fork('photo-back'), { ...shared, ...backOpts }),
  };
  // Most people photograph both sides on the same surface.
  if (rng.fork('same-surface').chance(0.7) && !backOpts?.background && !shared.background) {
    plans.back.background = plans.front.background;
    plans.back.backgroundSeed = plans.front.backgroundSeed;
  }
  const jpegs = {} as Record<Side, Buffer>;
  const texts: TextBox[] = [];
  const frames = {} as Record<Side, Rect>;
  for (const side of ['front', 'back'] as const) {
    const rendered = await renderSide(design, condition[side], plans[side].renderPxPerMm);
    texts.push(...rendered.texts);
    frames[side] = roundRect(rendered.frame);
    const pixels = await photographRaw(rendered, plans[side], rng.fork(`noise-${side}`).nextUint32());
    jpegs[side] = await encodePhoto(pixels, plans[side]);
  }
  const photo = { front: photoLabel(plans.front), back: photoLabel(plans.back) };
  const label: SampleLabel = {
    seed,
    split: splitOf(seed),
    generatorVersion: GENERATOR_VERSION,
    rubricVersion: truth.rubricVersion,
    tags: mergeTags(photo.front.tags, photo.back.tags),
    card: cardLabel(card.spec),
    text: texts,
    frame: frames,
    photo,
    measurements: { front: condition.measurements.front, back: condition.measurements.back },
    centering: { front: sideCentering(truth, 'front'), back: sideCentering(truth, 'back') },
    defects: truth.defects,
    truth,
    condition: {
      targetGrade: choice.targetGrade,
      dominant: choice.dominant,
      subGradeTargets: choice.subGradeTargets,
      intensity: roundIntensity(condition.intensity),
    },
  };
  return { frontJpeg: jpegs.front, backJpeg: jpegs.back, label };
}

function roundRect(r: Rect): Rect {
  const q = (v: number) => Math.round(v * 1000) / 1000;
  return { x: q(r.x), y: q(r.y), w: q(r.w), h: q(r.h) };
}

function roundIntensity(i: Intensity): Intensity {
  const q = (v: number) => Math.round(v * 10000) / 10000;
  return { centering: q(i.centering), corners: q(i.corners), edges: q(i.edges), surface: q(i.surface) };
}

export interface CanonicalSide {
  side: Side;
  width: number;
  height: number;
  pxPerMm: number;
  /** RGB, off-card pixels composited over the background colour. */
  data: Uint8Array;
  /** Card coverage 0-255 (0 off the card: beyond rounded corners and chips). */
  alpha: Uint8Array;
  texts: TextBox[];
  frame: Rect;
  /** The full-resolution RGBA render (what photograph() takes). */
  rendered: RenderedSide;
}

export interface CardSides {
  front: CanonicalSide;
  back: CanonicalSide;
  spec: CardSpec;
  condition: CardCondition;
  measurements: CardMeasurements & { back: SideMeasurements };
  truth: RubricResult;
}

export interface RenderOptions {
  /** Default 10 (630 x 880 px). */
  pxPerMm?: number;
  /** Colour under the off-card pixels in `data`. Default black. */
  background?: Rgb;
  game?: CatalogGame;
  conditionRequest?: ConditionRequest;
}

/**
 * Canonical (rectified) renders of both sides with their exact measurements and the rubric's truth.
 * `record` and `condition` default to what generateSample(seed) uses, so renderCardSides(null, null, seed)
 * is the flat, perfectly rectified version of the card in generateSample(seed)'s photos.
 */
export async function renderCardSides(
  record: CatalogRecord | CardSpec | null = null,
  condition: CardCondition | null = null,
  seed = 0,
  options: RenderOptions = {},
): Promise<CardSides> {
  const prepared = prepareCard(seed, { ...(options.game ? { game: options.game } : {}), ...(options.conditionRequest ? { condition: options.conditionRequest } : {}) });
  let spec = prepared.spec;
  let design = prepared.design;
  if (record) {
    spec = 'printedNumber' in record ? record : cardSpecFromRecord(record, prepared.rng.fork('spec'));
    design = createDesign(spec, prepared.rng.fork('design'));
  }
  const cond = condition ?? prepared.condition;
  const k = options.pxPerMm ?? PX_PER_MM;
  const bg = options.background ?? [0, 0, 0];
  const out = {} as Record<Side, CanonicalSide>;
  for (const side of ['front', 'back'] as const) {
    const r = await renderSide(design, cond[side], k);
    const alpha = new Uint8Array(r.width * r.height);
    for (let i = 0; i < alpha.length; i++) alpha[i] = r.rgba[i * 4 + 3]!;
    out[side] = { side, width: r.width, height: r.height, pxPerMm: r.pxPerMm, data: toRgb(r, bg), alpha, texts: r.texts, frame: r.frame, rendered: r };
  }
  const truth = condition ? gradeCard(cond.measurements) : prepared.truth;
  return { front: out.front, back: out.back, spec, condition: cond, measurements: cond.measurements, truth };
}

export const CARD_SIZE_MM = { width: CARD_WIDTH_MM, height: CARD_HEIGHT_MM } as const;
