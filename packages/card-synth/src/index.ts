/**
 * @cardlens/card-synth: the photographed-card generator, ground truth for the vision engine.
 * Deterministic from a seed; see README.md in this package for the label format and conventions.
 */
export {
  generateSample,
  renderCardSides,
  prepareCard,
  splitOf,
  EVAL_SEED_START,
  GENERATOR_VERSION,
  CARD_SIZE_MM,
  type Sample,
  type SampleLabel,
  type SampleTags,
  type CardLabel,
  type SideCentering,
  type GenerateOptions,
  type CardSides,
  type CanonicalSide,
  type RenderOptions,
  type Split,
} from './sample';
export { photograph, photographRaw, encodePhoto, photoLabel, warpCard, type Photo, type PhotoLabel, type PhotoTags } from './photo/photograph';
export { planPhoto, type PhotoOptions, type PhotoPlan, type BackgroundKind, type SleeveKind, type ExifOrientation, type GlareSpot } from './photo/plan';
export { apply as applyHomography, invert as invertHomography, fromQuad as homographyFromQuad, type Mat3 } from './photo/homography';
export { renderSide, toRgb, type RenderedSide } from './render/side';
export { createDesign, type CardDesign, type TextBox, type Rect } from './render/design';
export { sampleTemplate, buildCondition, type CardCondition, type SideCondition, type ConditionTemplate, type Intensity, type SurfaceMark } from './condition';
export { chooseCondition, TARGET_GRADE_WEIGHTS, type ConditionRequest, type ConditionChoice } from './targeting';
export { cardSpecFromRecord, type CardSpec, type Finish, type Rgb } from './card';
export { catalogDir, pickRecord, recordAt, catalogSize, type CatalogRecord, type CatalogGame } from './catalog';
export { Rng, mulberry32 } from './prng';
export { glyphDensePhoto, glyphPackedVariants, type GlyphPackedOptions } from './poison-photo';
