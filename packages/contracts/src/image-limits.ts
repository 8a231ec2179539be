// The photo limits of the API (POST /v1/scans, POST /v1/grades): the one table the gateway's intake (which refuses
// a photo before anything is charged) and the vision engine (which refuses it again if it gets one) share.

export const SCAN_IMAGE_LIMITS = {
  /** Encoded bytes per photo: the API's 15 MB, taken as MiB. */
  maxBytes: 15 * 1024 * 1024,
  /** width x height, checked on the header before any pixel is decoded. */
  maxPixels: 40_000_000,
  /**
   * Shortest side in pixels. Below it a card filling the photo is under ~3 px/mm: too few pixels to find the
   * card's edges and printed frame reliably, let alone corners and surface.
   */
  minShortSide: 200,
  /** Short side from which a card filling most of the photo can be graded on every sub-grade (~10 px/mm). */
  recommendedShortSide: 1000,
} as const;

/** The client-facing reason a photo is too small, with what is needed instead. */
export function photoTooSmallDetail(width: number, height: number): string {
  return (
    `the photo is ${width} x ${height} pixels, too small to grade: at least ${SCAN_IMAGE_LIMITS.minShortSide} pixels ` +
    `are needed on the short side, and ${SCAN_IMAGE_LIMITS.recommendedShortSide} or more with the card filling most ` +
    `of the frame for a full grade`
  );
}
