import { generateSample, EVAL_SEED_START } from '@cardlens/card-synth';
import { locateCard } from './src/geometry/locate';
for (let i = 0; i < 200; i++) {
  const sample = await generateSample(EVAL_SEED_START + i);
  const rot = sample.label.photo.front.rotationDeg;
  if (Math.abs(rot) < 45) continue;
  try {
    const l = await locateCard(sample.frontJpeg);
    const q = l.quadPx;
    const topY = (q[0][1] + q[1][1]) / 2, botY = (q[2][1] + q[3][1]) / 2, topX = (q[0][0] + q[1][0]) / 2, botX = (q[2][0] + q[3][0]) / 2;
    const dir = Math.abs(botY - topY) > Math.abs(botX - topX) ? (botY > topY ? 'up' : 'down') : 'side';
    console.log(i, rot, l.orientation.flipped ? 'flip' : 'keep', l.orientation.margin.toFixed(2), dir);
  } catch { console.log(i, rot, 'err'); }
}
