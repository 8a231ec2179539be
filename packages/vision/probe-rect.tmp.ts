import sharp from 'sharp';
import { analyzeSide } from './src/engine';
import { loadRealSet, readRealImage } from './bench/real/real-set';
const ids = process.argv.slice(2);
for (const card of loadRealSet().filter((c) => ids.includes(c.id))) {
  const s = await analyzeSide(readRealImage(card.front)!);
  const r = s.rectified;
  await sharp(Buffer.from(r.data), { raw: { width: r.width, height: r.height, channels: 3 } }).resize(315).png().toFile(`/tmp/probe/r-${card.id}.png`);
  console.log(card.id, s.detector, JSON.stringify(s.quadPx.map((p) => p.map(Math.round))), s.imageSize);
}
