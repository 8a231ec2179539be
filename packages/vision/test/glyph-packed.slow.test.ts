import { describe, expect, it } from '@jest/globals';
import { generateSample, glyphPackedVariants } from '@cardlens/card-synth';
import { OCR_BLOBS_PER_ANALYSIS, OCR_BLOBS_PER_CALL, OCR_WORK_LIMIT_EMS } from '../src/evidence/ocrWork';
import { engineForTests } from './engine-for-tests';

// Issue 49: faces packed with glyph-like marks held an engine process for 10 to 95 s on this two-core machine (the
// identification OCR read every line slot in full, again for each orientation and threshold, and the number row in
// eight ways). The OCR allowance (src/evidence/ocrWork.ts) bounds that work by what it is given, so each is analysed,
// its text read only in part, and an ordinary card's reading is left whole. The assertions are on the work counted,
// which is the same on any machine; the time each takes is `BENCH_VARIANT=scan-call BENCH_INPUT=glyph-packed npm run
// bench:vision`'s to measure (under jest the engine runs several times slower).
const engine = engineForTests();

describe('the identification OCR allowance on glyph-packed faces', () => {
  it('reads each only in part, within every limit, front and back together', async () => {
    const lines: string[] = [];
    for (const { name, photo } of await glyphPackedVariants()) {
      const analysis = await engine().analyzeCard({ front: photo, back: photo }, { evidence: true });
      const work = analysis.ocrWork!;
      lines.push(`${name}: ${Math.round(work.ems)} ems, ${work.blobs} blobs, largest call ${work.largestCallBlobs}`);
      expect(work.capped).toBe(true);
      expect(work.ems).toBeLessThanOrEqual(OCR_WORK_LIMIT_EMS);
      expect(work.blobs).toBeLessThanOrEqual(OCR_BLOBS_PER_ANALYSIS);
      expect(work.largestCallBlobs).toBeLessThanOrEqual(OCR_BLOBS_PER_CALL);
      // Still a full analysis: the card found and graded.
      expect(analysis.grading.grade).toBeGreaterThanOrEqual(1);
    }
    console.log(`glyph-packed faces (front and back): ${lines.join('; ')}`);
  }, 180_000);

  it("leaves an ordinary card's reading whole", async () => {
    const sample = await generateSample(1_000_200, { photo: { megapixels: 1 } });
    const analysis = await engine().analyzeCard({ front: sample.frontJpeg, back: sample.backJpeg }, { evidence: true });
    expect(analysis.ocrWork!.capped).toBe(false);
    expect(analysis.evidence!.titleText.length).toBeGreaterThan(0);
  }, 60_000);
});
