/**
 * The real-photo development set: photographs of physical cards from public repositories, described by
 * `manifest.json` beside this file (source repository, commit, path and licence of every image, and what is known
 * about the card: identity as a catalog id, professional grade, condition, holder, language, hand-measured
 * centering). Images whose licence allows it are committed downscaled under `fixtures/`; the rest live in the
 * git-ignored `photos/`, filled by `npm run real:fetch` from snapshots of the source repositories.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REAL_SET_DIR = path.dirname(fileURLToPath(import.meta.url));

export interface RealImage {
  /** Path under REAL_SET_DIR (photos/... or fixtures/...). */
  file: string;
  /** Where the original came from. */
  repo: string;
  commit: string;
  path: string;
  /** How a committed fixture was made from the original (absent: the original's bytes). */
  derivedBy?: string;
}

export interface RealCard {
  /** Stable id, e.g. `ebay-graded-0012`. */
  id: string;
  license: string;
  front: RealImage;
  back?: RealImage;
  game: string;
  language: string;
  /** How the card was photographed in its holder. */
  holder: 'none' | 'sleeve' | 'toploader' | 'slab' | 'binder';
  kind: 'phone' | 'scan';
  /** A card of another size than the standard 63 x 88 mm: `mini` (Allen & Ginter and Gypsy Queen minis, about 37 x 67 mm). */
  size?: 'mini';
  /** The side the photo shows, where it is the back (a source with backs only); the front otherwise. */
  side?: 'back';
  /**
   * False where the photo shows no whole card outline to find: a scan cropped into the card (the design runs off the
   * photo's edges). Such photos are not counted for detection, and an outline found in one is not the card's.
   */
  outlineShown?: false;
  /** Professional grade from the slab label. */
  grade?: { company: string; value: number };
  /**
   * Condition (a near-mint card is one with no damage a grader would mark): from the source, or judged by eye on the
   * full-resolution image where the source says nothing (the notes say so).
   */
  condition?: 'near-mint' | 'played' | 'damaged';
  identity?: { name?: string; set?: string; number?: string; year?: number; catalogId?: string | null };
  /** Hand-measured centering shares (100 x left / (left + right), 100 x top / (top + bottom)). */
  centering?: { front?: { leftRight: number; topBottom: number }; back?: { leftRight: number; topBottom: number } };
  notes?: string;
}

export function loadRealSet(): RealCard[] {
  const manifest = JSON.parse(readFileSync(path.join(REAL_SET_DIR, 'manifest.json'), 'utf8')) as { cards: RealCard[] };
  return manifest.cards;
}

/** The image's bytes, or undefined when it is not on this machine (photos/ not fetched). */
export function readRealImage(image: RealImage): Buffer | undefined {
  const file = path.join(REAL_SET_DIR, image.file);
  return existsSync(file) ? readFileSync(file) : undefined;
}

/** A near-mint card: labelled so by its source, or professionally graded 8 or better. */
export function isNearMint(card: RealCard): boolean {
  return card.condition === 'near-mint' || (card.grade !== undefined && card.grade.value >= 8);
}
