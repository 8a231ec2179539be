import { locateCard } from './src/geometry/locate';
import { loadRealSet, readRealImage } from './bench/real/real-set';
const base = new Map<string, string[]>();
for (const l of (await import('node:fs')).readFileSync('/tmp/base.tsv', 'utf8').split('\n').slice(1)) { const f = l.split('\t'); base.set(f[0]!, f); }
for (const card of loadRealSet()) {
  const b = base.get(card.id);
  if (!b || b[6] !== '1') continue;
  const bytes = readRealImage(card.front);
  if (!bytes) continue;
  try {
    const l = await locateCard(bytes);
    const q = l.quadPx;
    // photo-upright: the card's top edge (TL->TR) midpoint above the bottom edge midpoint in the photo
    const topY = (q[0][1] + q[1][1]) / 2, botY = (q[2][1] + q[3][1]) / 2, topX = (q[0][0] + q[1][0]) / 2, botX = (q[2][0] + q[3][0]) / 2;
    const dir = Math.abs(botY - topY) > Math.abs(botX - topX) ? (botY > topY ? 'up' : 'down') : 'side';
    console.log([card.id, b[3], l.orientation.flipped ? 'flip' : 'keep', l.orientation.margin.toFixed(2), dir, b[24].slice(0, 12), b[25]].join('\t'));
  } catch { }
}
