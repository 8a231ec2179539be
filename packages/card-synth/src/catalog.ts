// Card records from the catalogs the repository carries (@cardlens/catalog-data, MIT; see the README and licences there).
// Each file is read and gunzipped once per process and kept as an array of lines; only the picked line is
// parsed, so picking a record is O(1) after the first load (about 0.3 s for both files).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { CATALOG_DIR } from '@cardlens/catalog-data';
import type { Rng } from './prng';

export type CatalogGame = 'pokemon' | 'sports';

export interface PokemonVariant {
  type: string;
  subtype?: string | null;
  stamp?: string[] | null;
}

export interface PokemonRecord {
  id: string;
  game: 'pokemon';
  name: string;
  category?: string | null;
  series?: string | null;
  setId?: string | null;
  set: string;
  number: string;
  setOfficialCount: number | null;
  releaseDate?: string | null;
  year: number | null;
  rarity?: string | null;
  illustrator?: string | null;
  hp?: number | null;
  types?: string[] | null;
  stage?: string | null;
  variants?: PokemonVariant[] | null;
}

export interface SportsRecord {
  id: string;
  game: 'baseball' | 'basketball' | 'football' | 'hockey';
  name: string;
  release: string;
  year: number | null;
  set: string;
  number: string;
  attributes?: string[] | null;
  parallels?: { name: string; printRun: number | null }[] | null;
}

export type CatalogRecord = PokemonRecord | SportsRecord;

const lineCache = new Map<CatalogGame, string[]>();

/** Directory holding pokemon.ndjson.gz and sports.ndjson.gz: CARD_CATALOG_DIR, else the repository's own catalogs. */
export function catalogDir(): string {
  return process.env.CARD_CATALOG_DIR || CATALOG_DIR;
}

export function catalogLines(game: CatalogGame): string[] {
  const cached = lineCache.get(game);
  if (cached) return cached;
  const text = gunzipSync(readFileSync(join(catalogDir(), `${game}.ndjson.gz`))).toString('utf8');
  const lines = text.split('\n').filter((l) => l.length > 2);
  lineCache.set(game, lines);
  return lines;
}

export function catalogSize(game: CatalogGame): number {
  return catalogLines(game).length;
}

export function recordAt(game: CatalogGame, index: number): CatalogRecord {
  const lines = catalogLines(game);
  const line = lines[((index % lines.length) + lines.length) % lines.length];
  if (line === undefined) throw new Error(`empty catalog ${game}`);
  return JSON.parse(line) as CatalogRecord;
}

/** Picks a record: half Pokemon, half sports unless the game is given. */
export function pickRecord(rng: Rng, game?: CatalogGame): CatalogRecord {
  const g: CatalogGame = game ?? (rng.chance(0.5) ? 'pokemon' : 'sports');
  return recordAt(g, Math.floor(rng.next() * catalogSize(g)));
}

export function isPokemon(record: CatalogRecord): record is PokemonRecord {
  return record.game === 'pokemon';
}
