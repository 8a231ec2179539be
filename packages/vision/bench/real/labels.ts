/**
 * The hand labels of the real-photo set (labels/labels-v1.json, made by looking at each photo; labels/LABELLING.md)
 * and the agreement between labellers who labelled the same photo without seeing each other's labels.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REAL_SET_DIR } from './real-set';

export type HolderLabel = 'none' | 'sleeve' | 'toploader' | 'semi-rigid' | 'slab' | 'binder';
export type DefectKindLabel = 'corner-wear' | 'edge-wear' | 'crease' | 'bend' | 'scratch' | 'dent' | 'stain' | 'print-line' | 'other';

export interface PhotoLabel {
  id: string;
  labeller: string;
  side: 'front' | 'back';
  /** Degrees the photo must turn clockwise for the card to read upright; null where it cannot be told. */
  up: 0 | 90 | 180 | 270 | null;
  holder: HolderLabel;
  cardInFrame: boolean;
  /** Whether wear of about half a millimetre can be seen at all in this photo. */
  defectsVisible: boolean;
  defects: { kind: DefectKindLabel; place: string; size: 'small' | 'medium' | 'large' }[];
  notes?: string;
}

export const LABELS_FILE = path.join(REAL_SET_DIR, 'labels', 'labels-v1.json');

export function loadLabels(file = LABELS_FILE): PhotoLabel[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { labels: PhotoLabel[] }).labels;
}

/** One label per photo: the first labeller's (alphabetically), so a second label only measures agreement. */
export function labelsById(labels: readonly PhotoLabel[]): Map<string, PhotoLabel> {
  const byId = new Map<string, PhotoLabel>();
  for (const label of [...labels].sort((a, b) => a.labeller.localeCompare(b.labeller))) if (!byId.has(label.id)) byId.set(label.id, label);
  return byId;
}

const kinds = (l: PhotoLabel) => new Set(l.defects.map((d) => d.kind));

/** Agreement over the photos labelled twice: share of pairs agreeing on each field. */
export function agreement(labels: readonly PhotoLabel[]) {
  const byId = new Map<string, PhotoLabel[]>();
  for (const l of labels) byId.set(l.id, [...(byId.get(l.id) ?? []), l]);
  const pairs = [...byId.values()].filter((ls) => ls.length >= 2).map((ls) => [ls[0]!, ls[1]!] as const);
  const share = (same: (a: PhotoLabel, b: PhotoLabel) => boolean) => (pairs.length === 0 ? null : Math.round((pairs.filter(([a, b]) => same(a, b)).length / pairs.length) * 1000) / 1000);
  const bothVisible = pairs.filter(([a, b]) => a.defectsVisible && b.defectsVisible);
  return {
    photos: pairs.length,
    side: share((a, b) => a.side === b.side),
    up: share((a, b) => a.up === b.up),
    holder: share((a, b) => a.holder === b.holder),
    cardInFrame: share((a, b) => a.cardInFrame === b.cardInFrame),
    defectsVisible: share((a, b) => a.defectsVisible === b.defectsVisible),
    // Over the pairs where both saw enough to judge wear: the same set of defect kinds, and the same clean/not call.
    defectKinds: {
      n: bothVisible.length,
      sameKinds: bothVisible.length === 0 ? null : Math.round((bothVisible.filter(([a, b]) => [...kinds(a)].sort().join() === [...kinds(b)].sort().join()).length / bothVisible.length) * 1000) / 1000,
      sameCleanCall: bothVisible.length === 0 ? null : Math.round((bothVisible.filter(([a, b]) => (a.defects.length === 0) === (b.defects.length === 0)).length / bothVisible.length) * 1000) / 1000,
    },
  };
}
