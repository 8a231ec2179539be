// Reference fingerprints (valuation.card_fingerprints) held in memory as one Float32 matrix and scanned brute
// force: at a 112-float fingerprint a scan of 100k references is ~11M multiply-adds (a few ms), needs no
// native extension (pgvector is not in Debian's Postgres 15 packages) and runs the same on PGlite.
export interface FingerprintHit {
  cardId: string;
  parallel: string;
  similarity: number;
}

export class FingerprintIndex {
  private dims = 0;
  private matrix = new Float32Array(0);
  private count = 0;
  private readonly owners: { cardId: string; parallel: string }[] = [];

  get size(): number {
    return this.count;
  }

  add(cardId: string, parallel: string, vector: ArrayLike<number>): void {
    if (this.dims === 0) this.dims = vector.length;
    if (vector.length !== this.dims) throw new Error(`fingerprint has ${vector.length} dims, the index ${this.dims}`);
    if ((this.count + 1) * this.dims > this.matrix.length) {
      const grown = new Float32Array(Math.max(1024 * this.dims, this.matrix.length * 2));
      grown.set(this.matrix);
      this.matrix = grown;
    }
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const offset = this.count * this.dims;
    for (let i = 0; i < vector.length; i++) this.matrix[offset + i] = vector[i]! * scale;
    this.owners.push({ cardId, parallel });
    this.count++;
  }

  /** The k most similar references (cosine), best first, at most one per card and parallel. */
  nearest(query: ArrayLike<number>, k: number): FingerprintHit[] {
    if (this.count === 0 || query.length !== this.dims) return [];
    let norm = 0;
    for (let i = 0; i < query.length; i++) norm += query[i]! * query[i]!;
    if (norm === 0) return [];
    const q = Float32Array.from(query, (v) => v / Math.sqrt(norm));
    const best = new Map<string, FingerprintHit>();
    for (let r = 0; r < this.count; r++) {
      let dot = 0;
      const offset = r * this.dims;
      for (let i = 0; i < this.dims; i++) dot += this.matrix[offset + i]! * q[i]!;
      const owner = this.owners[r]!;
      const key = `${owner.cardId}\u0000${owner.parallel}`;
      const prev = best.get(key);
      if (!prev || dot > prev.similarity) best.set(key, { ...owner, similarity: dot });
    }
    return [...best.values()].sort((a, b) => b.similarity - a.similarity).slice(0, k);
  }

  /** Best similarity per card id among `cardIds`. */
  similarities(query: ArrayLike<number>, cardIds: Set<string>): Map<string, number> {
    const out = new Map<string, number>();
    if (cardIds.size === 0) return out;
    for (const hit of this.nearest(query, this.count)) {
      if (cardIds.has(hit.cardId) && !out.has(hit.cardId)) out.set(hit.cardId, hit.similarity);
    }
    return out;
  }
}

export function encodeVector(vector: ArrayLike<number>): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Float32Array.from(vector).buffer as ArrayBuffer);
}

export function decodeVector(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes);
  return new Float32Array(copy.buffer, 0, Math.floor(copy.byteLength / 4));
}
