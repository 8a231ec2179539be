import type { RgbImage } from '../image/types';

export interface EdgeMap {
  width: number;
  height: number;
  /** Colour gradient magnitude (Di Zenzo structure tensor of per-channel Sobel gradients). */
  mag: Float32Array;
  /** Gradient direction in [0, pi) (unsigned, the edge normal); set on edge pixels only. */
  angle: Float32Array;
  /** 1 where a non-maximum-suppressed edge pixel above the threshold lies. */
  edge: Uint8Array;
  threshold: number;
}

/**
 * Edge map for detection: (optional binomial smoothing,) per-channel Sobel combined by the colour structure tensor,
 * non-maximum suppression along the gradient and an adaptive threshold.
 */
export function computeEdges(img: RgbImage, options: { minThreshold?: number; smooth?: boolean } = {}): EdgeMap {
  const { width: w, height: h, data } = img;
  const n = w * h;
  // optional 3x3 binomial smoothing per channel (the detection image is already box-downsampled, so off by default)
  const sm = new Float32Array(n * 3);
  if (options.smooth) {
    const tmp = new Float32Array(n * 3);
    for (let y = 0; y < h; y++) {
      const row = y * w;
      for (let x = 0; x < w; x++) {
        const o = (row + x) * 3;
        const ol = (row + (x > 0 ? x - 1 : x)) * 3;
        const or = (row + (x < w - 1 ? x + 1 : x)) * 3;
        tmp[o] = (data[ol]! + 2 * data[o]! + data[or]!) * 0.25;
        tmp[o + 1] = (data[ol + 1]! + 2 * data[o + 1]! + data[or + 1]!) * 0.25;
        tmp[o + 2] = (data[ol + 2]! + 2 * data[o + 2]! + data[or + 2]!) * 0.25;
      }
    }
    for (let y = 0; y < h; y++) {
      const yu = y > 0 ? y - 1 : y;
      const yd = y < h - 1 ? y + 1 : y;
      for (let x = 0; x < w; x++) {
        const o = (y * w + x) * 3;
        const ou = (yu * w + x) * 3;
        const od = (yd * w + x) * 3;
        sm[o] = (tmp[ou]! + 2 * tmp[o]! + tmp[od]!) * 0.25;
        sm[o + 1] = (tmp[ou + 1]! + 2 * tmp[o + 1]! + tmp[od + 1]!) * 0.25;
        sm[o + 2] = (tmp[ou + 2]! + 2 * tmp[o + 2]! + tmp[od + 2]!) * 0.25;
      }
    }
  } else {
    sm.set(data);
  }
  const mag = new Float32Array(n);
  const angle = new Float32Array(n);
  const txx = new Float32Array(n);
  const tyy = new Float32Array(n);
  const txy = new Float32Array(n);
  const w3 = w * 3;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const o = (y * w + x) * 3;
      let gxx = 0;
      let gyy = 0;
      let gxy = 0;
      for (let c = 0; c < 3; c++) {
        const oc = o + c;
        const tl = sm[oc - w3 - 3]!;
        const tc = sm[oc - w3]!;
        const tr = sm[oc - w3 + 3]!;
        const ml = sm[oc - 3]!;
        const mr = sm[oc + 3]!;
        const bl = sm[oc + w3 - 3]!;
        const bc = sm[oc + w3]!;
        const br = sm[oc + w3 + 3]!;
        const gx = (tr + 2 * mr + br - tl - 2 * ml - bl) * 0.125;
        const gy = (bl + 2 * bc + br - tl - 2 * tc - tr) * 0.125;
        gxx += gx * gx;
        gyy += gy * gy;
        gxy += gx * gy;
      }
      const i = y * w + x;
      const d = gxx - gyy;
      mag[i] = Math.sqrt(0.5 * (gxx + gyy + Math.sqrt(d * d + 4 * gxy * gxy)));
      txx[i] = gxx;
      tyy[i] = gyy;
      txy[i] = gxy;
    }
  }
  // adaptive threshold from the magnitude distribution (histogram, 0..255 in steps of 0.5)
  const hist = new Uint32Array(512);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const m = mag[i]!;
    if (m <= 0) continue;
    hist[m >= 255.5 ? 511 : (m * 2) | 0]!++;
    count++;
  }
  const pct = (p: number): number => {
    let acc = 0;
    const target = p * count;
    for (let b = 0; b < 512; b++) {
      acc += hist[b]!;
      if (acc >= target) return b / 2;
    }
    return 255;
  };
  const threshold = Math.max(options.minThreshold ?? 4, 2.5 * pct(0.5));
  const edge = new Uint8Array(n);
  const T8 = 0.41421356; // tan(22.5 deg)
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const m = mag[i]!;
      if (m < threshold) continue;
      // dominant eigenvector of the structure tensor (no trigonometry)
      const gxx = txx[i]!;
      const gyy = tyy[i]!;
      const gxy = txy[i]!;
      const lam = m * m;
      let vx = lam - gyy;
      let vy = gxy;
      if (Math.abs(gxx - lam) + Math.abs(gxy) > Math.abs(vx) + Math.abs(vy)) {
        vx = gxy;
        vy = lam - gxx;
      }
      const ax = Math.abs(vx);
      const ay = Math.abs(vy);
      let dx = 0;
      let dy = 0;
      if (ay <= T8 * ax) dx = 1;
      else if (ax <= T8 * ay) dy = 1;
      else {
        dx = 1;
        dy = vx * vy > 0 ? 1 : -1;
      }
      const na = mag[i + dy * w + dx]!;
      const nb = mag[i - dy * w - dx]!;
      if (m >= na && m > nb) {
        edge[i] = 1;
        let a = Math.atan2(vy, vx);
        if (a < 0) a += Math.PI;
        if (a >= Math.PI) a -= Math.PI;
        angle[i] = a;
      }
    }
  }
  return { width: w, height: h, mag, angle, edge, threshold };
}
