/**
 * Summary and justification, generated from the measurements: every number that limited a grade is named.
 */
import { BACK_LENIENCY, type OverallDetail } from './overall';
import { PSA_CENTERING_TABLE } from './centering';
import {
  type DetailedDefect,
  articleFor,
  cornerComponentText,
  edgeComponentText,
  fmt1,
  fmt2,
  surfaceArea,
  surfaceDefectText,
  surfaceKindName,
} from './defects';
import { countWord, formatGrade, gradeLabel, gradeLongName, qualifier } from './names';
import { cornerLocation, edgeLocation } from './geometry';
import type { CenteringResult, LimitingFactor, NotAssessedItem, NotAssessedReason, Side, SideCentering, SideGrades, SubGradeName, SubGradeSet } from './types';

export const DISCLAIMER =
  'Grades are AI estimates from photos, not certified grades from a grading company.';

export interface TextContext {
  subGrades: SubGradeSet;
  front: SideGrades;
  back?: SideGrades;
  centering: CenteringResult;
  overall: OverallDetail;
  /** Null where nothing at all was assessed. */
  predicted: number | null;
  defects: DetailedDefect[];
  /** Aspects the photos could not support (the missing back's included), with reasons. */
  notAssessed: NotAssessedReason[];
}

export interface Explanation {
  summary: string;
  justification: string;
  limitingFactors: LimitingFactor[];
}

type Category = 'corners' | 'edges' | 'surface';
const CATEGORY_TYPE: Record<Category, DetailedDefect['detail']['type']> = { corners: 'corner', edges: 'edge', surface: 'surface' };
const SUB_GRADE_NAMES: Record<SubGradeName, string> = { centering: 'centering', corners: 'corners', edges: 'edges', surface: 'surface' };

/** Level a defect has in the combined sub-grade (a back flaw counts BACK_LENIENCY less). */
function effectiveLevel(d: DetailedDefect): number {
  return Math.min(10, d.defect.gradeLevel + (d.defect.side === 'back' ? BACK_LENIENCY : 0));
}

/** Defects of a category, the one that matters most first. */
function findings(ctx: TextContext, cat: Category): DetailedDefect[] {
  return ctx.defects
    .filter((d) => d.detail.type === CATEGORY_TYPE[cat])
    .sort((a, b) => effectiveLevel(a) - effectiveLevel(b) || b.defect.severity - a.defect.severity);
}

/** 'whitening of 0.40 mm² on the front bottom-left corner' (with any further components). */
export function defectClause(d: DetailedDefect): string {
  const side = d.defect.side;
  const det = d.detail;
  if (det.type === 'corner') {
    const a = det.assessment;
    const extra = a.components.filter((c) => c !== a.dominant && c.severity > 0).map(cornerComponentText);
    return `${cornerComponentText(a.dominant)}${extra.length ? ` with ${extra.join(' and ')}` : ''} on the ${side} ${cornerLocation(det.id)}`;
  }
  if (det.type === 'edge') {
    const a = det.assessment;
    const extra = a.components
      .filter((c) => c !== a.dominant && c.severity > 0)
      .map((c) => edgeComponentText(c, det.id, det.whitenedLengthMm));
    return `${edgeComponentText(a.dominant, det.id, det.whitenedLengthMm)}${extra.length ? ` with ${extra.join(' and ')}` : ''} on the ${side} ${edgeLocation(det.id)}`;
  }
  return `${surfaceDefectText(det.input, det.size, det.unit)} on the ${side} surface, ${surfaceArea(det.input)}`;
}

/** Short phrase for the summary: 'light whitening on two back corners', 'a 12.0 mm scratch on the front'. */
function groupPhrase(ctx: TextContext, cat: Category): string | undefined {
  const list = findings(ctx, cat).filter((d) => d.defect.gradeLevel < 10);
  const worst = list[0];
  if (!worst) return undefined;
  const q = qualifier(worst.defect.gradeLevel);
  const side = worst.defect.side;
  const det = worst.detail;
  if (det.type === 'surface') {
    const n = det.unit === 'mm' ? fmt1(det.size) : fmt2(det.size);
    const among = list.length > 1 ? ` among ${countWord(list.length)} surface flaws` : '';
    return `${articleFor(n)} ${n} ${det.unit} ${surfaceKindName(det.input.kind)} on the ${side}${among}`;
  }
  const dominantOf = (d: DetailedDefect): string =>
    d.detail.type === 'surface' ? d.detail.input.kind : d.detail.assessment.dominant.component;
  const group = list.filter((d) => d.defect.side === side && dominantOf(d) === dominantOf(worst));
  if (det.type === 'corner') {
    const noun = { whitening: 'whitening', rounding: 'corner rounding', ding: 'corner dings' }[det.assessment.dominant.component];
    const where = group.length === 1 ? `the ${side} ${cornerLocation(det.id)}` : `${countWord(group.length)} ${side} corners`;
    return `${q} ${noun} on ${where}`;
  }
  const noun = { whitening: 'edge whitening', depth: 'edge wear', chips: 'chipping' }[det.assessment.dominant.component];
  const where = group.length === 1 ? `the ${side} ${edgeLocation(det.id)}` : `${countWord(group.length)} ${side} edges`;
  return `${q} ${noun} on ${where}`;
}

function axisDisplay(c: SideCentering): string {
  return c.worstAxis === 'left-right' ? c.leftRightDisplay : c.topBottomDisplay;
}

function centeringSideText(side: Side, c: SideCentering): string {
  return `${side} ${c.leftRightDisplay} left-right and ${c.topBottomDisplay} top-bottom`;
}

/** 'front centering 62/38 left-right' for the side/axis that sets the PSA cap. */
function psaLimitingCentering(ctx: TextContext): string {
  const side = ctx.centering.psaCapSide;
  const c = side === 'front' ? ctx.centering.front : ctx.centering.back!;
  return `${side} centering ${axisDisplay(c)} ${c.worstAxis}`;
}

function psaCapText(ctx: TextContext): string {
  const cap = ctx.centering.psaCap;
  if (cap >= 10) {
    return ctx.centering.back
      ? `front and back are within PSA's limits for a 10 (55/45 front, 75/25 back)`
      : `the front is within PSA's limit for a 10 (55/45)`;
  }
  const side = ctx.centering.psaCapSide;
  const better = PSA_CENTERING_TABLE.find((r) => r.grade === cap + 1);
  const limit = better ? (side === 'front' ? better.front : better.back) : undefined;
  const need = limit !== undefined ? ` (${cap + 1} needs ${limit}/${100 - limit} or better on the ${side})` : '';
  return `${psaLimitingCentering(ctx)} limits the grade to ${cap} under PSA's table${need}`;
}

/** True where the side was photographed and the photo supported the aspect (a "nothing seen" value is no reading). */
function assessedOn(ctx: TextContext, side: Side, aspect: SubGradeName): boolean {
  if (side === 'back' && !ctx.back) return false;
  return !ctx.notAssessed.some((r) => r.item === `${side}_${aspect}`);
}

function centeringSentence(ctx: TextContext, limits: LimitingFactor[]): string {
  const { front, back, bgsSubGrade } = ctx.centering;
  if (!assessedOn(ctx, 'front', 'centering') && !assessedOn(ctx, 'back', 'centering')) return 'Centering not assessed.';
  const parts: string[] = [];
  if (assessedOn(ctx, 'front', 'centering')) parts.push(centeringSideText('front', front));
  if (back && assessedOn(ctx, 'back', 'centering')) parts.push(centeringSideText('back', back));
  let bgs: string;
  if (bgsSubGrade >= 10) {
    bgs = 'the BGS-like centering sub-grade is 10';
  } else {
    const side: Side = back && back.bgsGrade < front.bgsGrade ? 'back' : 'front';
    const c = side === 'front' ? front : back!;
    bgs = `${side} ${axisDisplay(c)} ${c.worstAxis} sets the BGS-like centering sub-grade to ${formatGrade(bgsSubGrade)}`;
    limits.push({ target: 'centering', side, grade: bgsSubGrade, text: bgs });
  }
  const psa = psaCapText(ctx);
  if (ctx.centering.psaCap < 10) {
    limits.push({ target: 'predicted', side: ctx.centering.psaCapSide, grade: ctx.centering.psaCap, text: psa });
  }
  return `Centering ${formatGrade(ctx.subGrades.centering)}: ${parts.join('; ')}; ${bgs}; ${psa}.`;
}

const CATEGORY_EMPTY: Record<Category, string> = {
  corners: 'no whitening, rounding or dings measured',
  edges: 'no edge whitening, wear or chips measured',
  surface: 'no scratches, creases, print lines, stains, scuffs or dents measured',
};
const MORE: Record<Category, [string, string]> = {
  corners: ['more flawed corner', 'more flawed corners'],
  edges: ['more worn edge', 'more worn edges'],
  surface: ['more surface flaw', 'more surface flaws'],
};

function categorySentence(ctx: TextContext, cat: Category, limits: LimitingFactor[]): string {
  const g = ctx.subGrades[cat];
  const label = `${cat[0]!.toUpperCase()}${cat.slice(1)}`;
  if (!assessedOn(ctx, 'front', cat) && !assessedOn(ctx, 'back', cat)) return `${label} not assessed.`;
  const sideGrade = (side: Side, grades: SideGrades) => (assessedOn(ctx, side, cat) ? formatGrade(grades[cat]) : 'not assessed');
  const sides = ctx.back ? ` (front ${sideGrade('front', ctx.front)}, back ${sideGrade('back', ctx.back)})` : ' (front only)';
  const list = findings(ctx, cat);
  const head = `${label} ${formatGrade(g)}${sides}`;
  const calibration = calibrationNote(ctx, cat);
  if (calibration) {
    const worst = list[0];
    const measured = worst ? `measured ${defectClause(worst)} (${formatGrade(worst.defect.gradeLevel)} on its own)` : CATEGORY_EMPTY[cat];
    const text = `${measured}; ${calibration}`;
    limits.push({ target: cat, side: worst?.defect.side ?? 'front', grade: g, text });
    return `${head}: ${text}.`;
  }
  const worst = list[0];
  if (!worst) return `${head}: ${CATEGORY_EMPTY[cat]}.`;
  if (g >= 10) return `${head}: ${defectClause(worst)} is within the tolerance of a 10.`;
  const visible = list.filter((d) => d.defect.gradeLevel < 10);
  const clause = defectClause(worst);
  const lvl = formatGrade(worst.defect.gradeLevel);
  let text: string;
  if (visible.length <= 1) {
    text = `${clause} takes ${cat} to ${formatGrade(g)}`;
  } else {
    const others = visible.slice(1, 3).map(defectClause);
    const more = visible.length - 1 - others.length;
    text =
      `${clause} (${lvl} on its own) and ${countWord(visible.length - 1)} ${MORE[cat][visible.length > 2 ? 1 : 0]} ` +
      `(${others.join('; ')}${more > 0 ? `; and ${countWord(more)} more` : ''}) take ${cat} to ${formatGrade(g)}`;
  }
  const notes: string[] = [];
  if (worst.defect.side === 'back' && ctx.back && ctx.back[cat] < ctx.front[cat]) {
    notes.push(`a back flaw counts ${BACK_LENIENCY} grade less than on the front`);
  }
  if (cat === 'surface' && list.some((d) => d.detail.type === 'surface' && d.detail.input.kind === 'crease')) {
    notes.push('any crease caps the surface at 5 or lower, on either side');
  }
  limits.push({ target: cat, side: worst.defect.side, grade: g, text });
  return `${head}: ${text}${notes.length ? ` (${notes.join('; ')})` : ''}.`;
}

/**
 * When the learned calibration moved a side's grade away from what its measurements alone give, says so with
 * both numbers and what the calibration saw in the photo; undefined when it changed nothing.
 */
function calibrationNote(ctx: TextContext, cat: Category): string | undefined {
  const moved = (['front', 'back'] as const).flatMap((side) => {
    const grades = side === 'front' ? ctx.front : ctx.back;
    const m = grades?.measured;
    return m && m[cat] !== grades[cat] ? [{ side, measured: m[cat], calibrated: grades[cat], conditions: m.conditions }] : [];
  });
  if (moved.length === 0) return undefined;
  const parts = moved.map((c) => `${c.side} ${formatGrade(c.measured)} from the measurements alone, ${formatGrade(c.calibrated)} calibrated (${c.conditions})`);
  return `the learned calibration for the photo conditions reads ${parts.join('; ')}`;
}

function overallSentence(ctx: TextContext, limits: LimitingFactor[]): string {
  const o = ctx.overall;
  const low = `${SUB_GRADE_NAMES[o.lowest]} ${formatGrade(o.lowestGrade)}`;
  const mean = fmt2(o.othersMean);
  let how: string;
  if (o.grade === o.lowestGrade) {
    how = o.bonus > 0 ? `the second-lowest sub-grade (${formatGrade(o.secondLowestGrade)}) holds it at the lowest` : 'so it stays at the lowest';
  } else if (o.grade < o.lowestGrade + o.bonus) {
    how = `which would allow ${formatGrade(o.bonus)} above the lowest, but the second-lowest sub-grade (${formatGrade(o.secondLowestGrade)}) limits it`;
  } else {
    how = `so the overall is ${formatGrade(o.bonus)} above the lowest`;
  }
  const text = `Overall ${formatGrade(o.grade)}: the lowest sub-grade is ${low} and the other three average ${mean}, ${how} (BGS-like rule: never more than 1 above the lowest)`;
  if (o.grade < 10) limits.push({ target: 'overall', grade: o.grade, text: `the lowest sub-grade is ${low}` });
  return `${text}.`;
}

function predictedSentence(ctx: TextContext & { predicted: number }): string {
  const p = ctx.predicted;
  const floor = Math.floor(ctx.overall.grade + 1e-9);
  const head = `Predicted professional grade ${gradeLabel(p)} (${gradeLongName(p)})`;
  if (ctx.centering.psaCap < floor) {
    return `${head}: the overall ${formatGrade(ctx.overall.grade)} would allow ${floor}, but ${psaLimitingCentering(ctx)} caps it at ${ctx.centering.psaCap} under PSA's centering table.`;
  }
  const also = ctx.centering.psaCap === floor && floor < 10 ? `; PSA's centering table (${psaLimitingCentering(ctx)}) allows the same` : '';
  return `${head}: the overall ${formatGrade(ctx.overall.grade)} rounded down to a whole grade${also}.`;
}

/** The aspects the photos could not support, less a missing back's (which has its own sentence). */
function unsupportedAspects(ctx: TextContext): NotAssessedReason[] {
  return ctx.notAssessed.filter((r) => ctx.back || !r.item.startsWith('back_'));
}

/**
 * Nothing measured: no sentence may read a "nothing seen" value as a measurement, so the text says only what
 * could not be seen and why, and that no professional grade is predicted.
 */
function explainNothingAssessed(ctx: TextContext): Explanation {
  const unsupported = unsupportedAspects(ctx);
  const reasons = unsupported.map((r) => `${itemWords(r.item)} (${r.reason})`).join('; ');
  const sentences = [
    `Nothing on the card could be assessed from ${ctx.back ? 'these photos' : 'this photo'}, so no grade is given and no professional grade is predicted.`,
    `Not assessed: ${reasons}.`,
  ];
  if (!ctx.back) sentences.push('The back was not photographed.');
  sentences.push(DISCLAIMER);
  return {
    summary: `No grade: nothing could be assessed from ${ctx.back ? 'the photos' : 'the photo'} (${unsupported.map((r) => itemWords(r.item)).join(', ')}).`,
    justification: sentences.join(' '),
    limitingFactors: [],
  };
}

/** Build the summary, the justification and the list of limiting factors. */
export function explain(ctx: TextContext): Explanation {
  if (ctx.predicted === null) return explainNothingAssessed(ctx);
  const predicted = { ...ctx, predicted: ctx.predicted };
  const limits: LimitingFactor[] = [];
  const o = ctx.overall;
  const sentences = [
    `AI estimate, not a certified grade: overall ${gradeLabel(o.grade)} (${gradeLongName(o.grade)}), predicted professional grade ${gradeLabel(ctx.predicted)}.`,
    centeringSentence(ctx, limits),
    categorySentence(ctx, 'corners', limits),
    categorySentence(ctx, 'edges', limits),
    categorySentence(ctx, 'surface', limits),
    overallSentence(ctx, limits),
    predictedSentence(predicted),
  ];
  if (!ctx.back) {
    sentences.push('The back was not photographed, so back centering, corners, edges and surface were not assessed and the confidences are lower.');
  }
  const unsupported = unsupportedAspects(ctx);
  if (unsupported.length > 0) {
    sentences.push(
      `Not assessed, so graded as nothing seen (an upper bound, with a lower confidence): ${unsupported.map((r) => `${itemWords(r.item)} (${r.reason})`).join('; ')}.`,
    );
  }
  sentences.push(DISCLAIMER);

  // Summary: what limits the predicted grade first, then the next worst category.
  const phrases: string[] = [];
  const floor = Math.floor(o.grade + 1e-9);
  const centeringLimits = ctx.centering.psaCap < floor || (o.lowest === 'centering' && o.lowestGrade < 10);
  const ranked = (['corners', 'edges', 'surface'] as const)
    .filter((c) => ctx.subGrades[c] < 10)
    .sort((a, b) => ctx.subGrades[a] - ctx.subGrades[b]);
  if (centeringLimits) {
    const c = ctx.centering.psaCap < 10 ? psaLimitingCentering(ctx) : bgsLimitingCentering(ctx);
    phrases.push(`${c} limits the grade`);
    const next = ranked[0] && groupPhrase(ctx, ranked[0]);
    if (next) phrases.push(next);
  } else if (ranked.length > 0) {
    const first = groupPhrase(ctx, ranked[0]!);
    if (first) phrases.push(`${first} limits the grade`);
    const next = ranked[1] ? groupPhrase(ctx, ranked[1]) : undefined;
    if (next) phrases.push(next);
    else if (ctx.centering.psaCap < 10) phrases.push(`${psaLimitingCentering(ctx)}`);
  } else if (ctx.centering.psaCap < 10) {
    phrases.push(`${psaLimitingCentering(ctx)} limits the grade`);
  }
  if (phrases.length === 0) phrases.push('no flaw beyond the tolerance of a 10 was measured');
  if (!ctx.back) phrases.push('back not assessed');
  if (unsupported.length > 0) phrases.push(`${unsupported.map((r) => itemWords(r.item)).join(', ')} not assessed from the photo`);
  const summary =
    `AI estimate ${gradeLongName(o.grade)} ${formatGrade(o.grade)} (predicted professional grade ${ctx.predicted}): ` +
    `${phrases.join('; ')}.`;

  return { summary, justification: sentences.join(' '), limitingFactors: limits };
}

function bgsLimitingCentering(ctx: TextContext): string {
  const { front, back } = ctx.centering;
  const side: Side = back && back.bgsGrade < front.bgsGrade ? 'back' : 'front';
  const c = side === 'front' ? front : back!;
  return `${side} centering ${axisDisplay(c)} ${c.worstAxis}`;
}

/** `front_corners` → `front corners`. */
function itemWords(item: NotAssessedItem): string {
  return item.replace('_', ' ');
}
