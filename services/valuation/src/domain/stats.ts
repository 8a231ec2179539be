// Small numeric helpers for the valuation domain: a seeded PRNG, robust location and dispersion, and isotonic
// regression. Pure functions; inputs are never mutated.

export const DAY_MS = 86_400_000;

/** Scale that turns a median absolute deviation into a standard deviation for normally distributed data. */
export const MAD_TO_SIGMA = 1.4826;

/**
 * mulberry32: a tiny, fast, deterministic 32-bit PRNG giving numbers in [0, 1). Same algorithm as
 * @cardlens/card-synth's; kept here because the valuation service does not depend on that package.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 32-bit FNV-1a of a string, mixed with a seed and finalised (murmur3 fmix) so nearby keys spread apart. */
export function hashString(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A seeded random stream with the draws the sales generator needs. */
export class Random {
  private readonly next: () => number;
  private spareNormal: number | null = null;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** An independent stream for `key` under `seed`: the same key always gets the same stream. */
  static forKey(seed: number, key: string): Random {
    return new Random(hashString(key, seed));
  }

  uniform(min = 0, max = 1): number {
    return min + (max - min) * this.next();
  }

  /** Integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** Standard normal draw (Box-Muller; the second value of each pair is kept for the next call). */
  normal(): number {
    if (this.spareNormal !== null) {
      const spare = this.spareNormal;
      this.spareNormal = null;
      return spare;
    }
    const u = 1 - this.next(); // (0, 1]: log stays finite
    const v = this.next();
    const radius = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = radius * Math.sin(2 * Math.PI * v);
    return radius * Math.cos(2 * Math.PI * v);
  }

  /** Poisson draw: Knuth's product method for small means, a rounded normal approximation above 30. */
  poisson(mean: number): number {
    if (!(mean > 0)) return 0;
    if (mean > 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.normal()));
    const limit = Math.exp(-mean);
    let count = 0;
    let product = this.next();
    while (product > limit) {
      count++;
      product *= this.next();
    }
    return count;
  }

  /** Index drawn with probability proportional to its weight. */
  weightedIndex(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let target = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      target -= weights[i]!;
      if (target < 0) return i;
    }
    return weights.length - 1;
  }
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Weighted median: sort by value and walk the cumulative weight; the answer is the first value whose
 * cumulative weight reaches half the total. When it lands exactly on half, the answer is the midpoint of that
 * value and the next one, so equal weights give the ordinary median.
 */
export function weightedMedian(values: readonly number[], weights: readonly number[]): number {
  if (values.length === 0) throw new Error('weighted median of no values');
  if (values.length !== weights.length) throw new Error('values and weights differ in length');
  const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]!);
  let total = 0;
  for (const w of weights) total += w;
  if (!(total > 0)) return median(values);
  const half = total / 2;
  const tolerance = total * 1e-12;
  let cumulative = 0;
  for (let k = 0; k < order.length; k++) {
    cumulative += weights[order[k]!]!;
    if (cumulative >= half - tolerance) {
      const value = values[order[k]!]!;
      if (Math.abs(cumulative - half) <= tolerance && k + 1 < order.length) return (value + values[order[k + 1]!]!) / 2;
      return value;
    }
  }
  return values[order[order.length - 1]!]!;
}

/** Median absolute deviation from `center` (default: the median). */
export function medianAbsoluteDeviation(values: readonly number[], center = median(values)): number {
  return median(values.map((v) => Math.abs(v - center)));
}

/** Robust standard deviation: MAD × 1.4826. */
export function robustSigma(values: readonly number[], center?: number): number {
  return MAD_TO_SIGMA * medianAbsoluteDeviation(values, center);
}

/** Linear-interpolated quantile (q in [0, 1]) of the values. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error('quantile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const position = Math.min(Math.max(q, 0), 1) * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

/**
 * Weighted isotonic regression (pool adjacent violators): the non-decreasing sequence closest to `values` in
 * weighted least squares. Used to keep grade premiums from falling as the grade rises.
 */
export function isotonicNonDecreasing(values: readonly number[], weights: readonly number[]): number[] {
  const blocks: { mean: number; weight: number; size: number }[] = [];
  for (let i = 0; i < values.length; i++) {
    blocks.push({ mean: values[i]!, weight: Math.max(weights[i] ?? 1, 1e-9), size: 1 });
    while (blocks.length > 1 && blocks[blocks.length - 2]!.mean > blocks[blocks.length - 1]!.mean) {
      const right = blocks.pop()!;
      const left = blocks[blocks.length - 1]!;
      const weight = left.weight + right.weight;
      left.mean = (left.mean * left.weight + right.mean * right.weight) / weight;
      left.weight = weight;
      left.size += right.size;
    }
  }
  return blocks.flatMap((block) => Array<number>(block.size).fill(block.mean));
}

/** Weight of an observation `ageDays` old under exponential decay with the given half-life. */
export function decayWeight(ageDays: number, halfLifeDays: number): number {
  return Math.pow(0.5, Math.max(ageDays, 0) / halfLifeDays);
}
