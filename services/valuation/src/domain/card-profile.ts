// CardProfile from catalog records (the NDJSON shapes of packages/catalog-data/catalog, or stored catalog rows): the
// fields the sample-sales generator prices a card by, plus subjectCardCount, computed across the whole catalog.

import type { CardProfile, Game } from './types';

/** The catalog fields a profile needs; both catalog files' records and stored catalog rows fit. */
export interface CatalogCardLike {
  id: string;
  game: string;
  name: string;
  year?: number | null;
  rarity?: string | null;
  attributes?: readonly string[] | null;
  parallels?: readonly { name: string; printRun?: number | null }[] | null;
  variants?: readonly { type: string; stamp?: readonly string[] | null }[] | null;
}

const GAMES: readonly Game[] = ['pokemon', 'baseball', 'basketball', 'football', 'hockey'];

/** Subjects are counted per family (pokemon vs sports) by case- and space-insensitive name. */
export function subjectKey(game: string, name: string): string {
  return `${game === 'pokemon' ? 'pokemon' : 'sports'}:${name.trim().toLowerCase().replace(/\s+/g, ' ')}`;
}

/**
 * Pokemon variant types of a record: each variant's `type`, plus `firstEdition` when a variant carries the
 * `1st-edition` stamp (the catalog marks first editions by stamp, not by type).
 */
export function pokemonVariantTypes(variants: CatalogCardLike['variants']): string[] {
  const types = new Set<string>();
  for (const variant of variants ?? []) {
    types.add(variant.type);
    if (variant.stamp?.some((s) => s.toLowerCase() === '1st-edition')) types.add('firstEdition');
  }
  return [...types];
}

/** Profiles for every record with a known game; subjectCardCount counts all records passed in. */
export function cardProfilesFromCatalog(records: readonly CatalogCardLike[]): CardProfile[] {
  const subjectCounts = new Map<string, number>();
  for (const record of records) {
    const key = subjectKey(record.game, record.name);
    subjectCounts.set(key, (subjectCounts.get(key) ?? 0) + 1);
  }
  const profiles: CardProfile[] = [];
  for (const record of records) {
    if (!GAMES.includes(record.game as Game)) continue;
    profiles.push({
      id: record.id,
      game: record.game as Game,
      name: record.name,
      year: record.year ?? null,
      rarity: record.rarity ?? null,
      attributes: [...(record.attributes ?? [])],
      parallels: (record.parallels ?? []).map((p) => ({ name: p.name, printRun: p.printRun ?? null })),
      variants: record.game === 'pokemon' ? pokemonVariantTypes(record.variants) : [],
      subjectCardCount: subjectCounts.get(subjectKey(record.game, record.name)) ?? 1,
    });
  }
  return profiles;
}
