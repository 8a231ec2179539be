// Graded values from real graded price tables (a published value per card and grade, e.g. PriceCharting's
// PSA 7 / 8 / 9 / 9.5 / 10), and a model fitted on those tables for cards they do not list.
//
// A card the table lists: its own values. Between two listed grades (8.5 between 8 and 9) the value is
// interpolated log-linearly; confidence High at a listed grade, Medium between two.
//
// Other cards: for each listed grade g, log(graded_g) = a_g + b_g · log(raw), least squares across the table's
// cards, with raw the card's raw market price. A cheap card's slab is worth many times its raw price (the slab
// and the grading fee are a floor), an expensive card's a smaller multiple; one flat multiplier per grade (the
// sample model) cannot say that, a slope per grade can. Confidence Medium inside the fitted raw-price range,
// Low outside it.
//
// Grades below the lowest listed grade (and grades the model has no fit for) follow the market-typical prior
// curve (GradePremiumModel.prior) anchored at the lowest listed grade, confidence Low.

import { GradePremiumModel } from './grade-premium';
import type { Confidence } from './types';

/** One graded table value of one card (grade in half steps; the grader as printed, e.g. PSA). */
export interface GradedTableValue {
  grader: string;
  grade: number;
  priceCents: number;
}

export interface GradedPoint {
  grade: number;
  valueCents: number;
  confidence: Confidence;
  /** `table` (the card's own listed value), `interpolated` (between two listed grades), `model`, `prior`. */
  basis: 'table' | 'interpolated' | 'model' | 'prior';
}

const PRIOR = GradePremiumModel.prior();

/** The card's own table values at `grade` (PSA scale), or null where the table does not bracket the grade. */
export function gradedFromTable(values: readonly GradedTableValue[], grade: number): GradedPoint | null {
  const psa = values.filter((v) => v.grader.toUpperCase() === 'PSA' && v.priceCents > 0).sort((a, b) => a.grade - b.grade);
  const exact = psa.find((v) => v.grade === grade);
  if (exact) return { grade, valueCents: exact.priceCents, confidence: 'High', basis: 'table' };
  const below = [...psa].reverse().find((v) => v.grade < grade);
  const above = psa.find((v) => v.grade > grade);
  if (!below || !above) return null;
  const t = (grade - below.grade) / (above.grade - below.grade);
  const logValue = Math.log(below.priceCents) * (1 - t) + Math.log(above.priceCents) * t;
  return { grade, valueCents: Math.max(1, Math.round(Math.exp(logValue))), confidence: 'Medium', basis: 'interpolated' };
}

export interface GradedLine {
  grade: number;
  intercept: number;
  slope: number;
  /** Cards the line was fitted on. */
  cards: number;
  /** Raw price range of those cards (cents). */
  minRawCents: number;
  maxRawCents: number;
}

export interface GradedPriceModelJson {
  version: 1;
  lines: GradedLine[];
}

/** Fitted lines per listed grade (see the file comment). */
export class GradedPriceModel {
  private constructor(readonly lines: readonly GradedLine[]) {}

  /** Lines need this many cards at a grade; below it the grade is left to interpolation and the prior. */
  static readonly MIN_CARDS = 20;

  static empty(): GradedPriceModel {
    return new GradedPriceModel([]);
  }

  /** Fits one line per grade from (raw, graded value) pairs of the same cards. */
  static fit(pairs: readonly { rawCents: number; grade: number; gradedCents: number }[]): GradedPriceModel {
    const byGrade = new Map<number, { x: number; y: number; raw: number }[]>();
    for (const p of pairs) {
      if (!(p.rawCents > 0 && p.gradedCents > 0)) continue;
      const list = byGrade.get(p.grade) ?? [];
      list.push({ x: Math.log(p.rawCents), y: Math.log(p.gradedCents), raw: p.rawCents });
      byGrade.set(p.grade, list);
    }
    const lines: GradedLine[] = [];
    for (const [grade, points] of [...byGrade].sort((a, b) => a[0] - b[0])) {
      if (points.length < GradedPriceModel.MIN_CARDS) continue;
      const mx = points.reduce((s, p) => s + p.x, 0) / points.length;
      const my = points.reduce((s, p) => s + p.y, 0) / points.length;
      const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
      const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
      // A slope outside [0, 1.5] would say a dearer raw card makes a cheaper slab, or an absurd leverage.
      const slope = sxx > 0 ? Math.min(1.5, Math.max(0, sxy / sxx)) : 1;
      lines.push({
        grade,
        intercept: my - slope * mx,
        slope,
        cards: points.length,
        minRawCents: Math.min(...points.map((p) => p.raw)),
        maxRawCents: Math.max(...points.map((p) => p.raw)),
      });
    }
    return new GradedPriceModel(lines);
  }

  static fromJSON(json: GradedPriceModelJson): GradedPriceModel {
    return new GradedPriceModel(json.lines);
  }

  toJSON(): GradedPriceModelJson {
    return { version: 1, lines: [...this.lines] };
  }

  /** Value at `grade` for a card whose raw market price is `rawCents`. */
  predict(rawCents: number, grade: number): GradedPoint {
    const lines = this.lines;
    const clamped = Math.min(10, Math.max(1, grade));
    const at = (line: GradedLine): number => line.intercept + line.slope * Math.log(rawCents);
    const inRange = (line: GradedLine): boolean => rawCents >= line.minRawCents && rawCents <= line.maxRawCents;
    const exact = lines.find((l) => l.grade === clamped);
    const below = [...lines].reverse().find((l) => l.grade < clamped);
    const above = lines.find((l) => l.grade > clamped);
    let logValue: number;
    let confidence: Confidence;
    let basis: GradedPoint['basis'] = 'model';
    if (exact) {
      logValue = at(exact);
      confidence = inRange(exact) ? 'Medium' : 'Low';
    } else if (below && above) {
      const t = (clamped - below.grade) / (above.grade - below.grade);
      logValue = at(below) * (1 - t) + at(above) * t;
      confidence = inRange(below) && inRange(above) ? 'Medium' : 'Low';
    } else if (above) {
      // Below the lowest fitted grade: the prior's shape, anchored there.
      logValue = at(above) + PRIOR.logMultiplier(clamped) - PRIOR.logMultiplier(above.grade);
      confidence = 'Low';
      basis = 'prior';
    } else if (below) {
      logValue = at(below) + PRIOR.logMultiplier(clamped) - PRIOR.logMultiplier(below.grade);
      confidence = 'Low';
      basis = 'prior';
    } else {
      logValue = Math.log(rawCents) + PRIOR.logMultiplier(clamped);
      confidence = 'Low';
      basis = 'prior';
    }
    return { grade: clamped, valueCents: Math.max(1, Math.round(Math.exp(logValue))), confidence, basis };
  }
}

/**
 * The value at `grade`: the card's own table where it brackets the grade, else the fitted model from the raw
 * price, else the prior curve on the raw price.
 */
export function gradedValue(input: { table: readonly GradedTableValue[]; rawCents: number | null; model: GradedPriceModel }, grade: number): GradedPoint | null {
  const fromTable = gradedFromTable(input.table, grade);
  if (fromTable) return fromTable;
  if (input.rawCents !== null && input.rawCents > 0) {
    const psa = input.table.filter((v) => v.grader.toUpperCase() === 'PSA' && v.priceCents > 0).sort((a, b) => a.grade - b.grade);
    const lowest = psa[0];
    // Below the card's lowest listed grade: its own lowest value, moved by the prior's shape.
    if (lowest && grade < lowest.grade) {
      const logValue = Math.log(lowest.priceCents) + PRIOR.logMultiplier(grade) - PRIOR.logMultiplier(lowest.grade);
      return { grade, valueCents: Math.max(1, Math.round(Math.exp(logValue))), confidence: 'Low', basis: 'prior' };
    }
    return input.model.predict(input.rawCents, grade);
  }
  return null;
}
