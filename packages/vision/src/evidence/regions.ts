// Card regions used by the evidence (mm on the canonical 63 x 88 mm side; the rectified image is 10 px/mm,
// but every function scales by the image's own size so other resolutions work too).

export interface RectMm {
  x: number;
  y: number;
  w: number;
  h: number;
}

export const CARD_W_MM = 63;
export const CARD_H_MM = 88;

/**
 * The art window: inside the picture area of every layout we render (a Pokemon art box starts ~10 mm from the
 * top and ~6 mm from the sides; a sports photo fills the frame), leaving a margin for centering offsets.
 */
export const ART_MM: RectMm = { x: 9, y: 12.5, w: 45, h: 31.5 };

/** Below the art: a Pokemon card's text body, a sports card's lower photo. */
export const BODY_MM: RectMm = { x: 7, y: 49, w: 49, h: 19 };

/** Side strips of the frame beside the art (reverse holo foil shows there too). */
export const SIDE_STRIPS_MM: RectMm[] = [
  { x: 4.2, y: 12, w: 2.2, h: 34 },
  { x: 56.6, y: 12, w: 2.2, h: 34 },
];

/** The border ring sampled for its colour: this far inside the outer edge (mm), corners left out. */
export const BORDER_RING_MM = { inner: 0.7, outer: 1.9, cornerSkip: 7 };

export interface RectPx {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export function toPx(r: RectMm, width: number, height: number): RectPx {
  const sx = width / CARD_W_MM;
  const sy = height / CARD_H_MM;
  return {
    x0: Math.max(0, Math.round(r.x * sx)),
    y0: Math.max(0, Math.round(r.y * sy)),
    x1: Math.min(width, Math.round((r.x + r.w) * sx)),
    y1: Math.min(height, Math.round((r.y + r.h) * sy)),
  };
}
