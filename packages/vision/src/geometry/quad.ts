import type { Point, Quad } from '../image/types';

export function quadCentroid(q: readonly Point[]): Point {
  let x = 0;
  let y = 0;
  for (const p of q) {
    x += p[0];
    y += p[1];
  }
  return [x / q.length, y / q.length];
}

export function quadArea(q: readonly Point[]): number {
  let a = 0;
  for (let i = 0; i < q.length; i++) {
    const p = q[i]!;
    const r = q[(i + 1) % q.length]!;
    a += p[0] * r[1] - r[0] * p[1];
  }
  return Math.abs(a) / 2;
}

export function isConvex(q: readonly Point[]): boolean {
  let sign = 0;
  for (let i = 0; i < q.length; i++) {
    const a = q[i]!;
    const b = q[(i + 1) % q.length]!;
    const c = q[(i + 2) % q.length]!;
    const cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
    if (Math.abs(cross) < 1e-9) return false;
    const s = Math.sign(cross);
    if (sign === 0) sign = s;
    else if (s !== sign) return false;
  }
  return true;
}

export function sideLengths(q: readonly Point[]): [number, number, number, number] {
  const l = (i: number): number => {
    const a = q[i]!;
    const b = q[(i + 1) % 4]!;
    return Math.hypot(b[0] - a[0], b[1] - a[1]);
  };
  return [l(0), l(1), l(2), l(3)];
}

/** Width over height of a TL, TR, BR, BL outline (mean of opposite sides): 0.716 for a card seen square on. */
export function outlineAspect(q: readonly Point[]): number {
  const [top, right, bottom, left] = sideLengths(q);
  return (top + bottom) / (left + right);
}

/** How far the outline's opposite sides differ in length, the larger pair's difference over their mean (0: no perspective). */
export function outlineKeystone(q: readonly Point[]): number {
  const [top, right, bottom, left] = sideLengths(q);
  return Math.max(Math.abs(top - bottom) / ((top + bottom) / 2), Math.abs(left - right) / ((left + right) / 2));
}

/**
 * Orders four corners of a (convex) card outline as TL, TR, BR, BL.
 *
 * The card is portrait, so its long sides are its left and right edges. Of the two short sides, the one whose
 * outward normal points closest to the photo's "up" (-y) is taken as the card's top: this is right for any
 * in-plane rotation within (-90, +90) degrees (the generator keeps rotations within about +-25 degrees). A card
 * photographed upside down (rotated ~180 degrees) comes out rotated by 180 degrees, and near +-90 degrees the
 * choice between the two short sides is arbitrary: telling these apart needs the card's content (text
 * orientation), which geometry does not look at.
 */
export function orderCardCorners(points: readonly Point[]): Quad {
  if (points.length !== 4) throw new Error('need 4 points');
  const c = quadCentroid(points);
  const cyc = [...points].sort(
    (a, b) => Math.atan2(a[1] - c[1], a[0] - c[0]) - Math.atan2(b[1] - c[1], b[0] - c[0]),
  );
  // cyc is clockwise on screen (y down). Side i goes cyc[i] -> cyc[i+1].
  const len = sideLengths(cyc);
  const shortPairStart = len[0] + len[2] <= len[1] + len[3] ? 0 : 1; // sides shortPairStart and +2 are short
  let best = -1;
  let bestUp = -Infinity;
  for (const s of [shortPairStart, shortPairStart + 2]) {
    const a = cyc[s]!;
    const b = cyc[(s + 1) % 4]!;
    const mx = (a[0] + b[0]) / 2 - c[0];
    const my = (a[1] + b[1]) / 2 - c[1];
    const up = -my / (Math.hypot(mx, my) || 1);
    if (up > bestUp) {
      bestUp = up;
      best = s;
    }
  }
  // the top side runs TL -> TR in clockwise order
  const out: Point[] = [];
  for (let k = 0; k < 4; k++) out.push([cyc[(best + k) % 4]![0], cyc[(best + k) % 4]![1]]);
  return out as Quad;
}

export function scaleQuad(q: Quad, sx: number, sy = sx): Quad {
  return q.map((p) => [p[0] * sx, p[1] * sy]) as Quad;
}

/** Largest corner distance between two quads (same corner order). */
export function quadDistance(a: Quad, b: Quad): number {
  let m = 0;
  for (let i = 0; i < 4; i++) m = Math.max(m, Math.hypot(a[i]![0] - b[i]![0], a[i]![1] - b[i]![1]));
  return m;
}
