// A catalog card as identification sees it: the columns of valuation.catalog_cards it reads.
import type { CatalogRow } from '../catalog/catalog-record';

export type CandidateCard = Pick<
  CatalogRow,
  | 'id' | 'game' | 'name' | 'subject' | 'setName' | 'release' | 'year' | 'number' | 'setOfficialCount' | 'parallels'
  | 'variants' | 'nameKey' | 'numberKey' | 'brandKey'
>;

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
