// Grade premium model: how much a slab at grade g sells for relative to the same card raw, fitted across cards.
//
// Fit (fitGradePremium):
//   1. Cells. Sales are grouped by card + parallel. A group with at least `minRawComps` raw sales gives one cell
//      per (grader, grade) it has graded sales at: log(median graded price / median raw price). A cell's
//      weight is nRaw·nGraded/(nRaw+nGraded), the inverse variance of a difference of two means up to σ², so
//      cells resting on one sale count less.
//   2. Grader offsets (one number per grader: log(price at G / price at PSA), same grade): the weighted median
//      of paired differences where the same card + parallel has cells at the same grade from G and from PSA
//      (card-to-card differences cancel); with fewer than `minCellsPerGrader` pairs, the weighted median of G's
//      cells against the PSA-only curve; with fewer cells than that, 0 (treated as PSA-equivalent). Then the
//      curve at grade g is the weighted median of all cells at g, each moved to the PSA scale by its offset.
//      Medians keep a few odd cards (lots, mislisted slabs) from moving either.
//   3. Sparse grades. A grade with at least `minCellsPerGrade` cells is "data"; its value is shrunk a little
//      toward the prior curve (prior weight `priorWeight`, in cell-weight units). Other grades follow the prior
//      curve's shape anchored to the data: between two data grades the prior is shifted by the linearly
//      interpolated deviation of those neighbours ("interpolated"), outside them by the nearest data grade's
//      deviation ("extrapolated"). With no data grade at all the prior is used as is.
//   4. Monotone: weighted pool-adjacent-violators makes the curve non-decreasing in grade.
// The grid is 1 to 10 in half grades; multiplier() interpolates log-linearly between grid points and clamps
// outside [1, 10].
//
// The prior is a market-typical curve (PSA 9 about 2× raw, PSA 10 about 5×, grade 6.5 about raw, low grades
// well below raw); it only speaks where the data is silent.

import { z } from 'zod';
import type { Sale } from './types';
import { isotonicNonDecreasing, median, weightedMedian } from './stats';

export const GRADE_GRID: readonly number[] = Array.from({ length: 19 }, (_, i) => 1 + i / 2);

/** Market-typical PSA multipliers over raw, indexed like GRADE_GRID. */
const PRIOR_MULTIPLIERS: readonly number[] = [
  0.4, 0.42, 0.45, 0.48, 0.52, 0.56, 0.62, 0.68, 0.75, 0.82, 0.9, 1.0, 1.1, 1.25, 1.4, 1.65, 2.0, 3.0, 5.0,
];
const PRIOR_LOG: readonly number[] = PRIOR_MULTIPLIERS.map(Math.log);

export const REFERENCE_GRADER = 'PSA';


export type GradeSource = 'data' | 'interpolated' | 'extrapolated' | 'prior';

export interface GradePremiumJson {
  version: 1;
  grades: { grade: number; logMultiplier: number; cells: number; source: GradeSource }[];
  /** log(price at grader G / price at PSA), same grade. */
  graderLogOffsets: Record<string, number>;
  /** Card cells (card + parallel + grader + grade) the fit used. */
  cellCount: number;
}

const gradePremiumJsonSchema = z.object({
  version: z.literal(1),
  grades: z
    .array(
      z.object({
        grade: z.number(),
        logMultiplier: z.number().finite(),
        cells: z.number().int().nonnegative(),
        source: z.enum(['data', 'interpolated', 'extrapolated', 'prior']),
      }),
    )
    .length(GRADE_GRID.length),
  graderLogOffsets: z.record(z.string(), z.number().finite()),
  cellCount: z.number().int().nonnegative(),
});

export interface FitGradePremiumOptions {
  /** Raw sales a card needs before its graded sales form cells (default 2). */
  minRawComps?: number;
  /** Cells a grade needs to count as data (default 5). */
  minCellsPerGrade?: number;
  /** Paired (or, failing that, comparable) cells a non-PSA grader needs for its own offset (default 10). */
  minCellsPerGrader?: number;
  /** Weight of the prior at a data grade, in cell-weight units (default 2). */
  priorWeight?: number;
}

export function normaliseGrader(grader: string | null | undefined): string {
  return (grader ?? REFERENCE_GRADER).trim().toUpperCase() || REFERENCE_GRADER;
}

function gridIndex(grade: number): number {
  return Math.round((grade - 1) * 2);
}

export class GradePremiumModel {
  private constructor(
    private readonly logCurve: readonly number[],
    private readonly cells: readonly number[],
    private readonly sources: readonly GradeSource[],
    private readonly graderLogOffsets: Readonly<Record<string, number>>,
    readonly cellCount: number,
  ) {}

  /** The prior curve alone: what a model fitted on no sales gives. */
  static prior(): GradePremiumModel {
    return new GradePremiumModel(PRIOR_LOG, GRADE_GRID.map(() => 0), GRADE_GRID.map(() => 'prior'), {}, 0);
  }

  static fromJSON(json: unknown): GradePremiumModel {
    const parsed = gradePremiumJsonSchema.parse(json);
    const byIndex = [...parsed.grades].sort((a, b) => a.grade - b.grade);
    byIndex.forEach((entry, i) => {
      if (entry.grade !== GRADE_GRID[i]) throw new Error(`grade premium JSON: expected grade ${GRADE_GRID[i]}, got ${entry.grade}`);
    });
    const offsets: Record<string, number> = {};
    for (const [grader, offset] of Object.entries(parsed.graderLogOffsets)) offsets[normaliseGrader(grader)] = offset;
    return new GradePremiumModel(
      byIndex.map((g) => g.logMultiplier),
      byIndex.map((g) => g.cells),
      byIndex.map((g) => g.source),
      offsets,
      parsed.cellCount,
    );
  }

  /** @internal Built by fitGradePremium. */
  static fromFit(logCurve: number[], cells: number[], sources: GradeSource[], offsets: Record<string, number>, cellCount: number): GradePremiumModel {
    return new GradePremiumModel(logCurve, cells, sources, offsets, cellCount);
  }

  /** log(price at grade, grader) − log(raw price). Grades are clamped to [1, 10]. */
  logMultiplier(grade: number, grader: string | null = REFERENCE_GRADER): number {
    const position = (Math.min(Math.max(grade, 1), 10) - 1) * 2;
    const low = Math.floor(position);
    const high = Math.min(low + 1, GRADE_GRID.length - 1);
    const t = position - low;
    const curve = this.logCurve[low]! * (1 - t) + this.logCurve[high]! * t;
    return curve + this.graderOffset(grader);
  }

  /** Price at (grade, grader) divided by the raw price. */
  multiplier(grade: number, grader: string | null = REFERENCE_GRADER): number {
    return Math.exp(this.logMultiplier(grade, grader));
  }

  /** log(price at grader / price at PSA) for the same grade; 0 for PSA and for graders the fit did not see. */
  graderOffset(grader: string | null): number {
    return this.graderLogOffsets[normaliseGrader(grader)] ?? 0;
  }

  /** Cells behind the nearest grid grade (0 where the value is interpolated, extrapolated or prior). */
  support(grade: number): number {
    const index = gridIndex(Math.min(Math.max(grade, 1), 10));
    return this.sources[index] === 'data' ? this.cells[index]! : 0;
  }

  toJSON(): GradePremiumJson {
    return {
      version: 1,
      grades: GRADE_GRID.map((grade, i) => ({ grade, logMultiplier: this.logCurve[i]!, cells: this.cells[i]!, source: this.sources[i]! })),
      graderLogOffsets: { ...this.graderLogOffsets },
      cellCount: this.cellCount,
    };
  }
}

interface PremiumCell {
  /** Card + parallel the cell comes from. */
  group: string;
  gradeIndex: number;
  grader: string;
  logRatio: number;
  weight: number;
}

/** One cell per (card + parallel, grader, grade) with enough raw sales beside it. */
function collectCells(sales: readonly Sale[], minRawComps: number): PremiumCell[] {
  const groups = new Map<string, { raw: number[]; graded: Map<string, number[]> }>();
  for (const sale of sales) {
    if (!(sale.priceCents > 0)) continue;
    const key = `${sale.cardId}\u0000${sale.parallel}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { raw: [], graded: new Map() }));
    const logPrice = Math.log(sale.priceCents);
    if (sale.grader === null || sale.grade === null) {
      group.raw.push(logPrice);
    } else {
      const gradeIndex = gridIndex(Math.min(Math.max(sale.grade, 1), 10));
      const cellKey = `${normaliseGrader(sale.grader)}\u0000${gradeIndex}`;
      const list = group.graded.get(cellKey);
      if (list) list.push(logPrice);
      else group.graded.set(cellKey, [logPrice]);
    }
  }
  const cells: PremiumCell[] = [];
  for (const [key, group] of groups) {
    if (group.raw.length < minRawComps || group.graded.size === 0) continue;
    const rawMedian = median(group.raw);
    for (const [cellKey, prices] of group.graded) {
      const [grader, index] = cellKey.split('\u0000') as [string, string];
      cells.push({
        group: key,
        gradeIndex: Number(index),
        grader,
        logRatio: median(prices) - rawMedian,
        weight: (group.raw.length * prices.length) / (group.raw.length + prices.length),
      });
    }
  }
  return cells;
}

/**
 * log(price at grader / price at PSA) per grader. Preferred: the weighted median of paired differences, the
 * same card + parallel at the same grade graded by both (card-to-card differences cancel). Fallback when there
 * are too few pairs: the weighted median of the grader's cells against the PSA-only curve at their grades.
 */
function graderOffsets(
  cells: readonly PremiumCell[],
  cellsOfGrader: ReadonlyMap<string, PremiumCell[]>,
  cellsAtGrade: readonly PremiumCell[][],
  minCells: number,
): Record<string, number> {
  const psaCell = new Map<string, PremiumCell>();
  for (const cell of cells) if (cell.grader === REFERENCE_GRADER) psaCell.set(`${cell.group}\u0000${cell.gradeIndex}`, cell);
  const psaCurve = cellsAtGrade.map((atGrade) => {
    const psa = atGrade.filter((c) => c.grader === REFERENCE_GRADER);
    return psa.length === 0 ? null : weightedMedian(psa.map((c) => c.logRatio), psa.map((c) => c.weight));
  });
  const offsets: Record<string, number> = {};
  for (const [grader, graderCells] of cellsOfGrader) {
    if (grader === REFERENCE_GRADER) continue;
    const differences: number[] = [];
    const weights: number[] = [];
    for (const cell of graderCells) {
      const psa = psaCell.get(`${cell.group}\u0000${cell.gradeIndex}`);
      if (!psa) continue;
      differences.push(cell.logRatio - psa.logRatio);
      weights.push((cell.weight * psa.weight) / (cell.weight + psa.weight));
    }
    if (differences.length >= minCells) {
      offsets[grader] = weightedMedian(differences, weights);
      continue;
    }
    const comparable = graderCells.filter((c) => psaCurve[c.gradeIndex] !== null);
    if (comparable.length >= minCells) {
      offsets[grader] = weightedMedian(comparable.map((c) => c.logRatio - psaCurve[c.gradeIndex]!), comparable.map((c) => c.weight));
    }
  }
  return offsets;
}

/** Fits the grade premium curve and grader offsets across all cards in `sales` (see the file comment). */
export function fitGradePremium(sales: readonly Sale[], options: FitGradePremiumOptions = {}): GradePremiumModel {
  const minRawComps = options.minRawComps ?? 2;
  const minCellsPerGrade = options.minCellsPerGrade ?? 5;
  const minCellsPerGrader = options.minCellsPerGrader ?? 10;
  const priorWeight = options.priorWeight ?? 2;

  // 1. Cells.
  const cells = collectCells(sales, minRawComps);
  const cellsAtGrade = GRADE_GRID.map(() => [] as PremiumCell[]);
  const cellsOfGrader = new Map<string, PremiumCell[]>();
  for (const cell of cells) {
    cellsAtGrade[cell.gradeIndex]!.push(cell);
    const list = cellsOfGrader.get(cell.grader);
    if (list) list.push(cell);
    else cellsOfGrader.set(cell.grader, [cell]);
  }

  // 2. Grader offsets anchored to PSA, then the pooled curve on the PSA scale.
  const offsets = graderOffsets(cells, cellsOfGrader, cellsAtGrade, minCellsPerGrader);
  const pooledCurve: (number | null)[] = cellsAtGrade.map((atGrade) =>
    atGrade.length === 0 ? null : weightedMedian(atGrade.map((c) => c.logRatio - (offsets[c.grader] ?? 0)), atGrade.map((c) => c.weight)),
  );

  // 3. Data grades shrunk toward the prior; sparse grades follow the prior's shape anchored to the data.
  const cellCounts = cellsAtGrade.map((atGrade) => atGrade.length);
  const cellWeights = cellsAtGrade.map((atGrade) => atGrade.reduce((sum, c) => sum + c.weight, 0));
  const isData = cellCounts.map((n) => n >= minCellsPerGrade);
  const deviation: (number | null)[] = GRADE_GRID.map((_, i) => {
    if (!isData[i]) return null;
    const dataValue = pooledCurve[i]!;
    const shrunk = (cellWeights[i]! * dataValue + priorWeight * PRIOR_LOG[i]!) / (cellWeights[i]! + priorWeight);
    return shrunk - PRIOR_LOG[i]!;
  });
  const dataIndexes = deviation.flatMap((d, i) => (d === null ? [] : [i]));
  const sources: GradeSource[] = [];
  const filled = GRADE_GRID.map((_, i) => {
    if (deviation[i] !== null) {
      sources.push('data');
      return PRIOR_LOG[i]! + deviation[i]!;
    }
    if (dataIndexes.length === 0) {
      sources.push('prior');
      return PRIOR_LOG[i]!;
    }
    const below = dataIndexes.filter((d) => d < i).pop();
    const above = dataIndexes.find((d) => d > i);
    if (below !== undefined && above !== undefined) {
      const t = (i - below) / (above - below);
      sources.push('interpolated');
      return PRIOR_LOG[i]! + (1 - t) * deviation[below]! + t * deviation[above]!;
    }
    sources.push('extrapolated');
    return PRIOR_LOG[i]! + deviation[(below ?? above)!]!;
  });

  // 4. Monotone in grade; data grades weigh by their cells, filled grades lightly.
  const monotone = isotonicNonDecreasing(
    filled,
    GRADE_GRID.map((_, i) => (isData[i] ? cellWeights[i]! + priorWeight : priorWeight / 4)),
  );
  return GradePremiumModel.fromFit(monotone, cellCounts, sources, offsets, cells.length);
}
