// Where the data the repository carries lives. Every runtime, bench and test path to a catalog or price file
// comes from here, so nothing reaches outside the repository.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The card catalogs: `pokemon.ndjson.gz` (TCGdex, MIT) and `sports.ndjson.gz` (CardLists, MIT). */
export const CATALOG_DIR = path.join(packageRoot, 'catalog');

/** The dated market-price snapshot (TCGplayer daily prices, graded price tables); see prices/README.md. */
export const PRICES_DIR = path.join(packageRoot, 'prices');

export const catalogFile = (name: 'pokemon' | 'sports'): string => path.join(CATALOG_DIR, `${name}.ndjson.gz`);
