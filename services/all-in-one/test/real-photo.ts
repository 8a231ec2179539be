import sharp from 'sharp';
import { loadRealSet, readRealImage } from '@cardlens/vision/real-set';

/**
 * A real phone photo of a card (Instill Energy on a beige cloth, 1200 x 1600: a committed, MIT-licensed fixture of
 * the real-photo set, packages/vision/bench/real/fixtures) shrunk to 150 x 200 pixels: the whole card, too few
 * pixels to grade.
 */
export async function smallRealPhoto(): Promise<Buffer> {
  const card = loadRealSet().find((c) => c.id === 'tmikonen-instill-energy');
  const bytes = card && readRealImage(card.front);
  if (!bytes) throw new Error('the real-photo fixture tmikonen-instill-energy is missing (packages/vision/bench/real/fixtures)');
  return sharp(bytes).resize(150, 200).jpeg().toBuffer();
}
