// The Pokemon catalog as records, in file order.
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';

export interface CatalogVariant {
  type: string;
  subtype: string | null;
  stamp: string[] | null;
  size: string | null;
  thirdParty?: { tcgplayer?: number; cardmarket?: number };
}

export interface CatalogCard {
  id: string;
  setId: string;
  set: string;
  number: string;
  name: string;
  variants: CatalogVariant[];
  tcgplayerGroupId?: number;
  thirdParty?: { tcgplayer?: number; cardmarket?: number };
  [key: string]: unknown;
}

export function readCatalog(file: string): CatalogCard[] {
  return gunzipSync(readFileSync(file))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as CatalogCard);
}

export function writeCatalog(file: string, cards: CatalogCard[]): void {
  const text = cards.map((c) => JSON.stringify(c)).join('\n') + '\n';
  writeFileSync(file, gzipSync(Buffer.from(text, 'utf8'), { level: 9 }));
}
