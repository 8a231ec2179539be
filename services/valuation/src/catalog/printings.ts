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
