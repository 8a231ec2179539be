// The data the repository carries is whole: the catalogs and the price snapshot are where src/index.ts says,
// with the counts their READMEs give and their licences beside them.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { CATALOG_DIR, PRICES_DIR, catalogFile } from '../src/index';

const lines = (file: string) => gunzipSync(readFileSync(file)).toString('utf8').split('\n').filter((l) => l.length > 2);

describe('catalog-data', () => {
  it('carries both catalogs inside the repository, with their MIT licences', () => {
    expect(path.relative(path.resolve(import.meta.dirname, '..'), CATALOG_DIR)).toBe('catalog');
    for (const licence of ['LICENSE-tcgdex', 'LICENSE-cardlists']) expect(readFileSync(path.join(CATALOG_DIR, licence), 'utf8')).toMatch(/MIT License/i);
    const pokemon = lines(catalogFile('pokemon')).map((l) => JSON.parse(l) as { id: string; variants?: { thirdParty?: { tcgplayer?: number } }[]; thirdParty?: { tcgplayer?: number } });
    expect(pokemon).toHaveLength(23_546);
    const withIds = pokemon.filter((c) => c.thirdParty?.tcgplayer || (c.variants ?? []).some((v) => v.thirdParty?.tcgplayer));
    expect(withIds.length).toBe(19_699);
    expect(lines(catalogFile('sports'))).toHaveLength(144_141);
  });

  it('carries the dated price snapshot: 36 days of TCGplayer prices and the PriceCharting table', () => {
    const snapshot = lines(path.join(PRICES_DIR, 'tcgplayer-pokemon-daily.csv.gz'));
    const header = snapshot[0]!.split(',');
    expect(header.slice(0, 7)).toEqual(['productId', 'subTypeName', 'groupId', 'lowCents', 'midCents', 'highCents', 'directLowCents']);
    expect(header.slice(7)).toHaveLength(36);
    expect(header[7]).toBe('2025-09-21');
    expect(header.at(-1)).toBe('2025-10-26');
    expect(snapshot.length - 1).toBe(32_799);
    const graded = readFileSync(path.join(PRICES_DIR, 'graded-pricecharting.csv'), 'utf8').trim().split('\n');
    expect(graded[0]).toBe('card_id,grader,grade,price_usd,as_of,source_url');
    expect(graded.length - 1).toBe(2_034);
    expect(existsSync(path.join(PRICES_DIR, 'README.md'))).toBe(true);
  });
});
