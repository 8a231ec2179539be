/**
 * Data for the severity calibration model: generator photos (training split) run through the real engine
 * (analyzeSide), one JSON line per side with the engine's per-region feature vectors, the rubric's severities
 * of the measurements, the side's context, and the TRUE severities from the label.
 *
 *   npx tsx packages/vision/train/calibration-data.ts --from 100000 --count 500 --out /tmp/cal-a.jsonl
 *
 * Sides whose detected quad is off the true one (> 2 % of the diagonal in either the printed or the 180-degree
 * turned order) are skipped: their readings belong to another place on the card. A side the engine read
 * turned by 180 degrees has its element ids mapped back to the truth's.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { generateSample } from '@cardlens/card-synth';
import { gradeSide } from '@cardlens/grading-rubric';
import { analyzeSide } from '../src/engine';
import { parseArgs } from './common';
import { sideContext, type CalibrationRow } from '../src/models/calibration';

const args = parseArgs({ from: 100_000, count: 200, out: '/tmp/calibration.jsonl' });
const out = String(args.out);
writeFileSync(out, '');
const TURN: Record<string, string> = { TL: 'BR', TR: 'BL', BR: 'TL', BL: 'TR', top: 'bottom', bottom: 'top', left: 'right', right: 'left', surface: 'surface' };
let kept = 0;
let skipped = 0;
for (let seed = Number(args.from); seed < Number(args.from) + Number(args.count); seed++) {
  const sample = await generateSample(seed);
  for (const side of ['front', 'back'] as const) {
    let a;
    try {
      a = await analyzeSide(side === 'front' ? sample.frontJpeg : sample.backJpeg);
    } catch {
      skipped++;
      continue;
    }
    const truthQuad = sample.label.photo[side].quadPx;
    const diag = Math.hypot(truthQuad[2]![0] - truthQuad[0]![0], truthQuad[2]![1] - truthQuad[0]![1]);
    const err = (k: number) => Math.max(...a.quadPx.map(([x, y], i) => Math.hypot(x - truthQuad[(i + k) % 4]![0], y - truthQuad[(i + k) % 4]![1])));
    const turned = err(2) < err(0);
    if (Math.min(err(0), err(2)) > 0.02 * diag) {
      skipped++;
      continue;
    }
    const measured = gradeSide(side, a.measurements).severities;
    const truth = sample.label.truth.sides[side]!.severities;
    const map = (id: string) => (turned ? TURN[id]! : id);
    const row: CalibrationRow = {
      seed,
      side,
      context: sideContext(a),
      regions: a.condition.features.map((f) => ({
        region: f.region,
        id: f.id,
        values: f.values,
        measured: f.region === 'corner' ? measured.corners[f.id as 'TL'] : f.region === 'edge' ? measured.edges[f.id as 'top'] : measured.surfaceAggregate,
        truth: f.region === 'corner' ? truth.corners[map(f.id) as 'TL'] : f.region === 'edge' ? truth.edges[map(f.id) as 'top'] : truth.surfaceAggregate,
      })),
    };
    appendFileSync(out, `${JSON.stringify(row)}\n`);
    kept++;
  }
  if ((seed - Number(args.from) + 1) % 50 === 0) process.stderr.write(`${seed}: kept ${kept} sides, skipped ${skipped}\n`);
}
process.stderr.write(`done: kept ${kept} sides, skipped ${skipped}\n`);
