import sharp from 'sharp';
import { generateSample } from '@cardlens/card-synth';
import { createCardEngine } from '@cardlens/vision';
const engine = await createCardEngine();
await engine.warmUp();
const W = 1200, H = 1600;
function make(px: number, py: number, gw: number, gh: number) {
  const d = Buffer.alloc(W * H, 90);
  for (let y = 200; y < 1456; y++) for (let x = 150; x < 1050; x++) {
    const inner = x > 190 && x < 1010 && y > 240 && y < 1416;
    let v = 245;
    if (inner) v = ((x % px) < gw && (y % py) < gh && ((x * 7 + y * 13) >> 2) % 2 === 0) ? 0 : 255;
    d[y * W + x] = v;
  }
  return sharp(d, { raw: { width: W, height: H, channels: 1 } }).png().toBuffer();
}
const s = await generateSample(1_000_060, { photo: { megapixels: 1 } });
const time = async (name: string, front: Uint8Array, back?: Uint8Array) => {
  const t0 = performance.now();
  let out = 'ok';
  try { await engine.analyzeCard({ front, ...(back ? { back } : {}) }, { evidence: true }); } catch (e) { out = (e as Error).message.slice(0, 60); }
  console.log(name, Math.round(performance.now() - t0), 'ms', out);
};
await time('normal-front', s.frontJpeg);
await time('normal-pair', s.frontJpeg, s.backJpeg);
for (const [px, py, gw, gh] of [[10, 14, 6, 10], [8, 12, 5, 8], [6, 9, 4, 6], [12, 18, 8, 12]]) {
  const img = await make(px, py, gw, gh);
  await time(`glyphs ${px}x${py}`, img);
}
const g = await make(10, 14, 6, 10);
await time('glyphs pair', g, g);
await time('normal-front again', s.frontJpeg);
await engine.close();
