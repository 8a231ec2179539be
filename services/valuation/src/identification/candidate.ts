// A catalog card as identification sees it (one row of valuation.catalog_cards).
import type { Parallel, Variant } from '../catalog/catalog-record';

export interface CandidateCard {
  id: string;
  game: string;
  name: string;
  subject: string;
  setName: string;
  release: string | null;
  year: number | null;
  number: string;
  setOfficialCount: number | null;
  parallels: Parallel[];
  variants: Variant[];
  nameKey: string;
  numberKey: string;
  brandKey: string;
}

const COLOUR_WORDS: [RegExp, string][] = [
  [/\bgold\b/i, 'gold'],
  [/\bred\b/i, 'red'],
  [/\bblue\b/i, 'blue'],
  [/\bgreen\b/i, 'green'],
  [/\bblack\b/i, 'black'],
  [/\borange\b/i, 'orange'],
  [/\bpurple\b/i, 'purple'],
  [/\bpink\b/i, 'pink'],
  [/\baqua\b|\bteal\b/i, 'aqua'],
  [/\bsilver\b|\bplatinum\b/i, 'silver'],
  [/\byellow\b/i, 'yellow'],
];

/** The border colour family a sports parallel's name promises (`Gold Refractor` -> gold), if any. */
export function sportsColourWord(parallelName: string): string | null {
  for (const [re, colour] of COLOUR_WORDS) if (re.test(parallelName)) return colour;
  return null;
}
