import { analyzeSide } from './src/engine';
import { createOcr } from './src/evidence/ocr';
import { readSide } from './src/evidence/readCard';
import { rotate180 } from './src/evidence/extract';
import { loadRealSet, readRealImage } from './bench/real/real-set';
const ocr = await createOcr();
const ids = process.argv.slice(2);
for (const card of loadRealSet().filter((c) => ids.includes(c.id))) {
  const s = await analyzeSide(readRealImage(card.front)!);
  for (const [name, img] of [['as-is', s.rectified], ['turned', rotate180(s.rectified)]] as const) {
    const t = await readSide(img, ocr);
    const conf = t.lines.length ? t.lines.reduce((a, l) => a + l.confidence, 0) / t.lines.length : 0;
    console.log(card.id, name, JSON.stringify({ title: t.titleText, num: t.numberText, copy: t.copyrightText.slice(0, 30), lines: t.lines.length, conf: Math.round(conf) }));
  }
}
await ocr.terminate?.();
process.exit(0);
