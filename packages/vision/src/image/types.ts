/**
 * Pixel containers shared by the whole engine.
 *
 * Coordinates: continuous pixel coordinates everywhere. Pixel (i, j) covers [i, i+1) x [j, j+1), so its centre
 * is (i + 0.5, j + 0.5); an image of width W spans x in [0, W]. With this convention scaling an image by an
 * integer factor s maps coordinates exactly by x * s, and the canonical 630 x 880 card spans [0,630] x [0,880].
 */

/** 8-bit RGB, interleaved, row-major, no padding (data.length = width * height * 3). */
export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** One float channel (luminance, gradient magnitude, ...), row-major. */
export interface GrayImage {
  width: number;
  height: number;
  data: Float32Array;
}

/** [x, y] in continuous pixel coordinates. */
export type Point = [number, number];

/** Four corners in the order TL, TR, BR, BL (as seen in the image of that side). */
export type Quad = [Point, Point, Point, Point];
