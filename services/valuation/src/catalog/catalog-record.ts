// The NDJSON catalog shapes (packages/catalog-data/catalog/README.md) and their mapping to catalog rows. A further
// catalog is accepted when its lines have either shape.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { numberKey, pokemonBrand, sportsBrand, textKey } from './text-keys';

const pokemonVariant = z.object({
  type: z.string().min(1),
  subtype: z.string().nullish(),
  stamp: z.array(z.string()).nullish(),
  size: z.string().nullish(),
  /** The marketplaces' ids of this printing (TCGplayer product id, Cardmarket id), from TCGdex. */
  thirdParty: z.object({ tcgplayer: z.number().int().positive().nullish(), cardmarket: z.number().int().positive().nullish() }).nullish(),
});

export const pokemonRecordSchema = z.object({
  id: z.string().min(1).max(128),
  game: z.literal('pokemon'),
  name: z.string().min(1),
  category: z.string().nullish(),
  series: z.string().nullish(),
  setId: z.string().nullish(),
  set: z.string().min(1),
  number: z.string().min(1).max(32),
  setOfficialCount: z.number().int().min(0).nullish(),
  releaseDate: z.string().nullish(),
  year: z.number().int().min(1900).max(2100).nullish(),
  rarity: z.string().nullish(),
  illustrator: z.string().nullish(),
  hp: z.number().nullish(),
  types: z.array(z.string()).nullish(),
  stage: z.string().nullish(),
  variants: z.array(pokemonVariant).nullish(),
  /** The set's TCGplayer group id. */
  tcgplayerGroupId: z.number().int().positive().nullish(),
  /** TCGdex's card-level marketplace ids (cards whose variants carry none of their own). */
  thirdParty: z.object({ tcgplayer: z.number().int().positive().nullish(), cardmarket: z.number().int().positive().nullish() }).nullish(),
});

export const SPORTS = ['baseball', 'basketball', 'football', 'hockey'] as const;

export const sportsRecordSchema = z.object({
  id: z.string().min(1).max(128),
  game: z.enum(SPORTS),
  name: z.string().min(1),
  release: z.string().min(1),
  year: z.number().int().min(1800).max(2100).nullish(),
  set: z.string().min(1),
  /** Unnumbered cards (some checklists, promos) carry null. */
  number: z.string().max(32).nullish(),
  attributes: z.array(z.string()).nullish(),
  parallels: z.array(z.object({ name: z.string().min(1), printRun: z.number().int().positive().nullish() })).nullish(),
});

export const catalogRecordSchema = z.discriminatedUnion('game', [pokemonRecordSchema, sportsRecordSchema]);
export type CatalogRecord = z.infer<typeof catalogRecordSchema>;

export interface Parallel {
  name: string;
  printRun: number | null;
}

export interface Variant {
  type: string;
  subtype: string | null;
  stamp: string[];
  /** TCGplayer product id of this printing; absent when the catalog has none. */
  tcgplayer?: number;
  cardmarket?: number;
}

/** A catalog row as stored (valuation.catalog_cards), minus timestamps. */
export interface CatalogRow {
  id: string;
  game: string;
  name: string;
  subject: string;
  setName: string;
  release: string | null;
  year: number | null;
  number: string;
  setOfficialCount: number | null;
  rarity: string | null;
  attributes: string[];
  parallels: Parallel[];
  variants: Variant[];
  /** Every TCGplayer product id of the card (variants' and the card-level one). */
  tcgplayerProducts: number[];
  nameKey: string;
  numberKey: string;
  brandKey: string;
  catalog: string;
  recordHash: string;
}

export function toCatalogRow(record: CatalogRecord, catalog: string, line: string): CatalogRow {
  const recordHash = createHash('sha256').update(line).digest('hex');
  if (record.game === 'pokemon') {
    const year = record.year ?? null;
    return {
      id: record.id,
      game: 'pokemon',
      name: record.name,
      subject: record.name,
      setName: record.set,
      release: null,
      year,
      number: record.number,
      setOfficialCount: record.setOfficialCount || null,
      rarity: record.rarity ?? null,
      attributes: [],
      parallels: [],
      variants: (record.variants ?? []).map((v) => ({
        type: v.type,
        subtype: v.subtype ?? null,
        stamp: v.stamp ?? [],
        ...(v.thirdParty?.tcgplayer ? { tcgplayer: v.thirdParty.tcgplayer } : {}),
        ...(v.thirdParty?.cardmarket ? { cardmarket: v.thirdParty.cardmarket } : {}),
      })),
      tcgplayerProducts: [
        ...new Set([...(record.variants ?? []).map((v) => v.thirdParty?.tcgplayer), record.thirdParty?.tcgplayer].filter((id): id is number => typeof id === 'number')),
      ],
      nameKey: textKey(record.name),
      numberKey: numberKey(record.number),
      brandKey: textKey(pokemonBrand(year)),
      catalog,
      recordHash,
    };
  }
  return {
    id: record.id,
    game: record.game,
    name: record.name,
    subject: record.name,
    setName: record.set,
    release: record.release,
    year: record.year ?? null,
    number: record.number ?? '',
    setOfficialCount: null,
    rarity: null,
    attributes: record.attributes ?? [],
    parallels: (record.parallels ?? []).map((p) => ({ name: p.name, printRun: p.printRun ?? null })),
    variants: [],
    tcgplayerProducts: [],
    nameKey: textKey(record.name),
    numberKey: numberKey(record.number ?? ''),
    brandKey: textKey(sportsBrand(record.release)),
    catalog,
    recordHash,
  };
}

/** `Pokemon`, `Baseball`, ...: the category shown in identifications. */
export function categoryOf(game: string): string {
  return game === 'pokemon' ? 'Pokemon' : game.charAt(0).toUpperCase() + game.slice(1);
}

/** The set shown in identifications: the Pokemon set, or the sports release plus its subset when not `Base`. */
export function displaySet(row: Pick<CatalogRow, 'setName' | 'release'>): string {
  if (!row.release) return row.setName;
  return /^base( set)?$/i.test(row.setName) ? row.release : `${row.release} ${row.setName}`;
}
