// Finish cue names from the measured finish features. Thresholds sit midway between the classes on generated
// training cards (seeds 5000-8999, canonical renders and photographs): plain cards reach art/body rotation
// ~0.31 and border rotation ~0.20 at most; foil reaches >= 0.6 where it is printed and refractor borders >= 0.33.
import type { FinishFeatures } from './finish';

export type FinishCue = 'holo' | 'reverse_holo' | 'refractor';

const FOIL = 0.45;
const BORDER_FOIL = 0.27;

export function finishCues(f: FinishFeatures): FinishCue[] {
  // Refractor/prizm foil covers the whole card, border included.
  if (f.borderRotation >= BORDER_FOIL) return ['refractor'];
  // Holo foil: the art (on full-bleed designs the whole picture, so the body turns as well).
  if (f.artRotation >= FOIL) return ['holo'];
  // Reverse holo: the frame around the art, not the art.
  if (f.bodyRotation >= FOIL) return ['reverse_holo'];
  return [];
}
