// Pokemon printings, named once for identification (the parallel it reports) and for sales (the parallel a
// sale is keyed by), so an identified card's comps are found under the same name.

/** The standard printing of a Pokemon card: normal when it has one, else holo, else its first variant. */
export function pokemonStandardPrinting(variantTypes: readonly string[]): string | null {
  if (variantTypes.includes('normal')) return 'normal';
  if (variantTypes.includes('holo')) return 'holo';
  return variantTypes.find((v) => v !== 'firstEdition') ?? null;
}

/** The parallel name of each catalog variant type ('' = the standard, normal printing). */
export const POKEMON_PRINTING_NAMES: Readonly<Record<string, string>> = {
  normal: '',
  holo: 'Holo',
  reverse: 'Reverse Holo',
  firstEdition: '1st Edition',
  lenticular: 'Lenticular',
  metal: 'Metal',
};

/**
 * TCGplayer printing names (subTypeName) that price a Pokemon card identified with `parallel`, most specific
 * first. The standard printing ('') is the card's normal one when it has one, else its holo; vintage sets name
 * the same printings `Unlimited` / `Unlimited Holofoil` beside `1st Edition …`.
 */
export function marketPrintingsFor(parallel: string, variantTypes: readonly string[]): string[] {
  const name = parallel.trim().toLowerCase();
  if (name === 'reverse holo') return ['Reverse Holofoil'];
  if (name === '1st edition') return ['1st Edition Holofoil', '1st Edition Normal', '1st Edition'];
  if (name === 'holo') return ['Holofoil', 'Unlimited Holofoil'];
  if (name !== '' && name !== 'base' && name !== 'normal') return [];
  // The standard printing: the catalog's type first, then the other plain one. A product the feed prices only
  // as `Holofoil` where the catalog says normal (or the reverse) has that one plain printing, and a card whose
  // catalog entry lists no variants is whichever the feed has.
  return pokemonStandardPrinting(variantTypes) === 'holo'
    ? ['Holofoil', 'Unlimited Holofoil', 'Normal', 'Unlimited']
    : ['Normal', 'Unlimited', 'Holofoil', 'Unlimited Holofoil'];
}

export interface MarketVariant {
  type: string;
  subtype?: string | null;
  stamp?: readonly string[] | null;
  tcgplayer?: number;
}

/**
 * The marketplace products that can price `parallel`, best first: the product of the variant it names (the plain
 * one before stamped or shadowless ones: Base Set's unlimited holo before its shadowless), then the card's other
 * products (a card-level id covers every printing).
 */
export function marketProductsFor(parallel: string, variants: readonly MarketVariant[], cardProducts: readonly number[]): number[] {
  const name = parallel.trim().toLowerCase();
  const firstEdition = name === '1st edition';
  const types = [...new Set(variants.map((v) => v.type))];
  const wantedType = name === 'reverse holo' ? 'reverse' : name === 'holo' ? 'holo' : firstEdition ? null : pokemonStandardPrinting(types);
  const isFirst = (v: MarketVariant) => v.type === 'firstEdition' || (v.stamp ?? []).includes('1st-edition');
  const plainness = (v: MarketVariant) => ((v.stamp ?? []).length > 0 ? 1 : 0) + (v.subtype && v.subtype !== 'unlimited' ? 1 : 0);
  const matching = variants
    .filter((v) => typeof v.tcgplayer === 'number' && (firstEdition ? isFirst(v) : v.type === wantedType && !isFirst(v)))
    .sort((a, b) => plainness(a) - plainness(b));
  return [...new Set([...matching.map((v) => v.tcgplayer!), ...cardProducts])];
}
