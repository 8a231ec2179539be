/**
 * Centering: shares from border widths, and the three standards tables (PSA, BGS, CGC). See GRADING.md.
 *
 * A share is directional: leftRight = 100 L / (L + R); 56 reads "56/44" with the wider border on the left.
 * Tables compare the ROUNDED worse share (the number a grader writes, e.g. 55.4 -> "55/45") with their
 * limits, so a card displayed as 55/45 meets a "55/45 or better" rule.
 */
import type { CenteringMeasurement, Side, SideCentering } from './types';

export interface CenteringShares {
  leftRight: number;
  topBottom: number;
}

/** Share of one axis; 50 when both borders are (near) zero (borderless card). Negative widths count as 0. */
export function axisShare(a: number, b: number): number {
  const x = Math.max(0, Number.isNaN(a) ? 0 : a);
  const y = Math.max(0, Number.isNaN(b) ? 0 : b);
  const sum = x + y;
  if (sum < 1e-6) return 50;
  return (100 * x) / sum;
}

export function centeringShares(c: CenteringMeasurement): CenteringShares {
  return { leftRight: axisShare(c.leftMm, c.rightMm), topBottom: axisShare(c.topMm, c.bottomMm) };
}

/** max(share, 100 - share), 50..100. */
export function foldShare(share: number): number {
  return Math.max(share, 100 - share);
}

/** The folded share rounded to a whole percent, as graders read it ("55/45" -> 55). */
export function roundedFolded(share: number): number {
  return Math.round(foldShare(share));
}

/** Display string: '56/44' (rounded folded share on the side where the wider border is). */
export function shareDisplay(share: number): string {
  const r = roundedFolded(share);
  return share >= 50 ? `${r}/${100 - r}` : `${100 - r}/${r}`;
}

// ---------------------------------------------------------------------------------------------------------
// PSA: grade ceilings (integer grades). A card can get grade G only if its worse front share is at most
// front and its worse back share at most back.
// ---------------------------------------------------------------------------------------------------------

export interface CenteringCapRow {
  grade: number;
  /** Highest allowed worse-axis share on the front (55 = 55/45). */
  front: number;
  /** Highest allowed worse-axis share on the back. */
  back: number;
}

/** PSA grading standards (front tightened to 55/45 for 10 in 2025; PSA's text says "approximately 55/45 to 60/40"). */
export const PSA_CENTERING_TABLE: readonly CenteringCapRow[] = [
  { grade: 10, front: 55, back: 75 },
  { grade: 9, front: 60, back: 90 },
  { grade: 8, front: 65, back: 90 },
  { grade: 7, front: 70, back: 90 },
  { grade: 6, front: 80, back: 90 },
  { grade: 5, front: 85, back: 90 },
  { grade: 4, front: 85, back: 90 },
  { grade: 3, front: 90, back: 90 },
  { grade: 2, front: 90, back: 90 },
  { grade: 1, front: 100, back: 100 },
];

/**
 * CGC reference table. CGC publishes numbers for Pristine 10 (50/50), Gem Mint 10 (55/45 front, 75/25 back)
 * and Mint 9 (60/40, 90/10); below 9 it describes centering in words ("above-average", "average"), and the
 * rows below use the PSA-equivalent numbers. Reported for reference only (cgcCap), never used for a grade.
 */
export const CGC_CENTERING_TABLE: readonly CenteringCapRow[] = [
  { grade: 10, front: 55, back: 75 },
  { grade: 9, front: 60, back: 90 },
  { grade: 8, front: 65, back: 90 },
  { grade: 7, front: 70, back: 90 },
  { grade: 6, front: 80, back: 90 },
  { grade: 5, front: 85, back: 90 },
  { grade: 4, front: 85, back: 90 },
  { grade: 3, front: 90, back: 90 },
  { grade: 2, front: 90, back: 90 },
  { grade: 1, front: 100, back: 100 },
];
/** CGC Pristine 10 additionally asks for 50/50 on the front (reported via SideCentering.worstShare). */
export const CGC_PRISTINE_FRONT = 50;

function capFromTable(table: readonly CenteringCapRow[], side: Side, worstShare: number): number {
  const r = Math.round(worstShare);
  for (const row of table) if (r <= (side === 'front' ? row.front : row.back)) return row.grade;
  return 1;
}

/** PSA ceiling for one side from its worse-axis share (50..100). */
export function psaSideCap(side: Side, worstShare: number): number {
  return capFromTable(PSA_CENTERING_TABLE, side, worstShare);
}

export function cgcSideCap(side: Side, worstShare: number): number {
  return capFromTable(CGC_CENTERING_TABLE, side, worstShare);
}

/** PSA ceiling for the card: min of the front cap and (when assessed) the back cap. Shares are folded (50..100). */
export function psaCenteringCap(frontWorstShare: number, backWorstShare?: number): number {
  const f = psaSideCap('front', frontWorstShare);
  return backWorstShare === undefined ? f : Math.min(f, psaSideCap('back', backWorstShare));
}

// ---------------------------------------------------------------------------------------------------------
// BGS-like centering sub-grade (half points). Beckett publishes the rows 10 .. 8 and the front limits
// below; the half-point rows in between sit halfway (rounded down) and are ours. Beckett's 10 asks for
// 50/50; we accept 51/49 (half a millimetre of border difference is below what a photo can settle).
// ---------------------------------------------------------------------------------------------------------

export interface BgsFrontRow {
  grade: number;
  /** Highest allowed worse-axis share. */
  worse: number;
  /** Highest allowed better-axis share. */
  better: number;
}

export const BGS_FRONT_TABLE: readonly BgsFrontRow[] = [
  { grade: 10, worse: 51, better: 51 },
  { grade: 9.5, worse: 55, better: 55 },
  { grade: 9, worse: 60, better: 55 },
  { grade: 8.5, worse: 60, better: 60 },
  { grade: 8, worse: 65, better: 65 },
  { grade: 7.5, worse: 67, better: 67 },
  { grade: 7, worse: 70, better: 70 },
  { grade: 6.5, worse: 72, better: 72 },
  { grade: 6, worse: 75, better: 75 },
  { grade: 5.5, worse: 77, better: 77 },
  { grade: 5, worse: 80, better: 80 },
  { grade: 4.5, worse: 82, better: 82 },
  { grade: 4, worse: 85, better: 85 },
  { grade: 3.5, worse: 87, better: 87 },
  { grade: 3, worse: 90, better: 90 },
  { grade: 2.5, worse: 92, better: 92 },
  { grade: 2, worse: 95, better: 95 },
  { grade: 1.5, worse: 97, better: 97 },
  { grade: 1, worse: 100, better: 100 },
];

export interface BgsBackRow {
  grade: number;
  /** Highest allowed worse-axis share on the back. */
  worse: number;
}

/** Back: 60/40 for 10 and 9.5, 80/20 for 9, 90/10 for 8.5, 95/5 for 8; anything worse is a 7. */
export const BGS_BACK_TABLE: readonly BgsBackRow[] = [
  { grade: 10, worse: 60 },
  { grade: 9, worse: 80 },
  { grade: 8.5, worse: 90 },
  { grade: 8, worse: 95 },
  { grade: 7, worse: 100 },
];

/** BGS-like centering grade of one side from its two directional shares. */
export function bgsSideGrade(side: Side, shares: CenteringShares): number {
  const a = roundedFolded(shares.leftRight);
  const b = roundedFolded(shares.topBottom);
  const worse = Math.max(a, b);
  const better = Math.min(a, b);
  if (side === 'back') {
    for (const row of BGS_BACK_TABLE) if (worse <= row.worse) return row.grade;
    return 7;
  }
  for (const row of BGS_FRONT_TABLE) if (worse <= row.worse && better <= row.better) return row.grade;
  return 1;
}

/** Full centering assessment of one side. */
export function assessSideCentering(side: Side, c: CenteringMeasurement): SideCentering {
  const shares = centeringShares(c);
  const lr = foldShare(shares.leftRight);
  const tb = foldShare(shares.topBottom);
  const worstShare = Math.max(lr, tb);
  return {
    leftRight: shares.leftRight,
    topBottom: shares.topBottom,
    leftRightDisplay: shareDisplay(shares.leftRight),
    topBottomDisplay: shareDisplay(shares.topBottom),
    worstShare,
    worstAxis: lr >= tb ? 'left-right' : 'top-bottom',
    psaCap: psaSideCap(side, worstShare),
    bgsGrade: bgsSideGrade(side, shares),
    cgcCap: cgcSideCap(side, worstShare),
  };
}
