// Adds the TCGplayer / Cardmarket product ids TCGdex records to catalog/pokemon.ndjson.gz, in place:
//   - each variant TCGdex gives ids gets `thirdParty: {tcgplayer?, cardmarket?}`;
//   - each record whose set TCGdex links to a TCGplayer group gets `tcgplayerGroupId`.
// Every other field and the line order stay as they are; running it again gives the same file.
//
//   tsx scripts/build-marketplace-ids.ts --source <git checkout of github.com/tcgdex/cards-database>
//
// TCGdex data files are TypeScript modules holding one object literal. They are never imported: the import lines
// are dropped, the imported names are bound to null, and the literal is evaluated by node:vm in an empty context.
import path from 'node:path';
import vm from 'node:vm';
import { GitSource, packageRoot, sourceArg } from './lib/git-source.ts';
import { readCatalog, writeCatalog, type CatalogCard, type CatalogVariant } from './lib/catalog.ts';

export const TCGDEX_COMMIT = 'd9083b73db080979123ebf5e9e97338d4e0745b2';

interface ThirdParty {
  tcgplayer?: number;
  cardmarket?: number;
}
interface TcgdexVariant {
  type?: string;
  subtype?: string;
  stamp?: string[];
  size?: string;
  thirdParty?: ThirdParty;
}
interface TcgdexCard {
  // An array of variants, or (older files) a map like `{normal: false, holo: true}` with a card-level thirdParty.
  variants?: TcgdexVariant[] | Record<string, boolean>;
  thirdParty?: ThirdParty;
}
interface TcgdexSet {
  id?: string;
  thirdParty?: ThirdParty;
}

// One empty context for every file; each file's code runs inside its own function scope.
const sandbox = vm.createContext(Object.create(null));

/** Evaluates the object literal a TCGdex data file exports, without running its imports. */
export function evalDataFile(source: string, file: string): unknown {
  const bound: string[] = [];
  const body: string[] = [];
  let exported: string | undefined;
  for (const line of source.split('\n')) {
    if (/^\s*import\b/.test(line)) {
      const imp = /^\s*import\s+(.*?)\s+from\s+(['"]).*\2;?\s*$/.exec(line);
      if (!imp) throw new Error(`${file}: unexpected import line: ${line}`);
      const clause = imp[1]!;
      // `import X from '..'`: X is a value (the set or serie object), bound to null; `{ A }` are types only.
      const def = /^([A-Za-z_$][\w$]*)/.exec(clause);
      if (def && def[1] !== 'type') bound.push(def[1]!);
      continue;
    }
    const exp = /^\s*export\s+default\s+([A-Za-z_$][\w$]*)\s*;?\s*$/.exec(line);
    if (exp) {
      exported = exp[1];
      continue;
    }
    body.push(line);
  }
  if (!exported) throw new Error(`${file}: no \`export default <name>\``);
  // `const card: Card = {` -> `const card = {` (the only TypeScript syntax these files use).
  const code = body
    .join('\n')
    .replace(/^(\s*)(const|let)\s+([A-Za-z_$][\w$]*)\s*:\s*[A-Za-z_$][\w$.]*\s*=/gm, '$1$2 $3 =');
  const decl = bound.length ? `const ${bound.map((b) => `${b} = null`).join(', ')};` : '';
  return vm.runInContext(`(() => {'use strict'; ${decl}\n${code}\n; return ${exported}; })()`, sandbox, {
    filename: file,
    timeout: 1000,
  });
}

const norm = (v: { type?: string | null; subtype?: string | null; stamp?: string[] | null; size?: string | null }) =>
  JSON.stringify([v.type ?? null, v.subtype ?? null, v.stamp && v.stamp.length ? v.stamp : null, v.size ?? null]);

function cleanIds(tp: ThirdParty | undefined): ThirdParty | undefined {
  if (!tp) return undefined;
  const out: ThirdParty = {};
  if (typeof tp.tcgplayer === 'number' && Number.isInteger(tp.tcgplayer)) out.tcgplayer = tp.tcgplayer;
  if (typeof tp.cardmarket === 'number' && Number.isInteger(tp.cardmarket)) out.cardmarket = tp.cardmarket;
  return out.tcgplayer !== undefined || out.cardmarket !== undefined ? out : undefined;
}

function main(): void {
  const src = new GitSource(
    sourceArg('tsx scripts/build-marketplace-ids.ts --source <tcgdex/cards-database checkout>'),
    TCGDEX_COMMIT,
  );
  const catalogPath = path.join(packageRoot, 'catalog', 'pokemon.ndjson.gz');
  const cards = readCatalog(catalogPath);

  // data/<Serie>/<Set name>.ts and data/<Serie>/<Set name>/<localId>.ts
  const files = src.listFiles('data').filter((f) => f.endsWith('.ts'));
  const setFiles = files.filter((f) => f.split('/').length === 3);
  const cardFiles = files.filter((f) => f.split('/').length === 4);
  const blobs = src.showMany([...setFiles, ...cardFiles]);

  const setByDir = new Map<string, TcgdexSet>(); // 'data/Base/Base Set' -> set
  let parseErrors = 0;
  for (const f of setFiles) {
    try {
      const set = evalDataFile(blobs.get(f)!.toString('utf8'), f) as TcgdexSet;
      setByDir.set(f.slice(0, -'.ts'.length), set);
    } catch (e) {
      parseErrors++;
      console.warn(`skip ${f}: ${(e as Error).message}`);
    }
  }
  const groupBySetId = new Map<string, number>();
  for (const set of setByDir.values()) {
    const g = cleanIds(set.thirdParty)?.tcgplayer;
    if (set.id && g !== undefined) groupBySetId.set(set.id, g);
  }

  const wanted = new Set(cards.map((c) => c.id));
  const tcgdexById = new Map<string, TcgdexCard>();
  for (const f of cardFiles) {
    const dir = path.posix.dirname(f);
    const set = setByDir.get(dir);
    if (!set?.id) continue;
    const id = `${set.id}-${path.posix.basename(f, '.ts')}`;
    if (!wanted.has(id)) continue;
    try {
      tcgdexById.set(id, evalDataFile(blobs.get(f)!.toString('utf8'), f) as TcgdexCard);
    } catch (e) {
      parseErrors++;
      console.warn(`skip ${f}: ${(e as Error).message}`);
    }
  }

  let cardsMatched = 0;
  let variantsTotal = 0;
  let variantsMatched = 0;
  let variantsTcgplayer = 0;
  let variantsCardmarket = 0;
  let cardsWithTcgplayer = 0;
  let cardsWithGroup = 0;
  let cardLevelApplied = 0;
  let legacyVariantCards = 0;
  let cardsWithCardLevel = 0;
  let cardsIdsOnlyOnRecord = 0;
  const out: CatalogCard[] = cards.map((card) => {
    // Start from the record without what an earlier run added.
    const { tcgplayerGroupId: _oldGroup, thirdParty: _oldIds, ...rest } = card;
    const variants: CatalogVariant[] = card.variants.map(({ thirdParty: _tp, ...v }) => v as CatalogVariant);
    variantsTotal += variants.length;
    const next: CatalogCard = { ...(rest as CatalogCard), variants };
    const group = groupBySetId.get(card.setId);
    if (group !== undefined) {
      next.tcgplayerGroupId = group;
      cardsWithGroup++;
    }
    const td = tcgdexById.get(card.id);
    if (!td) return next;
    cardsMatched++;
    const byKey = new Map<string, TcgdexVariant>();
    const tdVariants = Array.isArray(td.variants) ? td.variants : [];
    if (!Array.isArray(td.variants)) legacyVariantCards++;
    for (const tv of tdVariants) if (!byKey.has(norm(tv))) byKey.set(norm(tv), tv);
    // A card-level thirdParty names the product of every printing that has no ids of its own.
    const cardLevel = cleanIds(td.thirdParty);
    if (cardLevel) {
      // Kept on the record too: many cards (BW, XY, SM sets) list no variants in our catalog, so there is no
      // printing to carry it.
      next.thirdParty = cardLevel;
      cardsWithCardLevel++;
      if (cardLevel.tcgplayer !== undefined && variants.length === 0) cardsIdsOnlyOnRecord++;
    }
    let anyTcgplayer = false;
    next.variants = variants.map((v) => {
      const tv = byKey.get(norm(v));
      if (tv) variantsMatched++;
      let ids = cleanIds(tv?.thirdParty);
      if (!ids && cardLevel) {
        ids = cardLevel;
        cardLevelApplied++;
      }
      if (!ids) return v;
      if (ids.tcgplayer !== undefined) {
        variantsTcgplayer++;
        anyTcgplayer = true;
      }
      if (ids.cardmarket !== undefined) variantsCardmarket++;
      return { ...v, thirdParty: ids };
    });
    if (anyTcgplayer) cardsWithTcgplayer++;
    return next;
  });

  writeCatalog(catalogPath, out);
  console.log(`TCGdex ${TCGDEX_COMMIT}: ${setFiles.length} set files, ${cardFiles.length} card files, ${parseErrors} unparsable`);
  console.log(`sets with a TCGplayer group: ${groupBySetId.size}`);
  console.log(`catalog cards: ${cards.length}; matched to a TCGdex card: ${cardsMatched}; with tcgplayerGroupId: ${cardsWithGroup}`);
  console.log(`catalog variants: ${variantsTotal}; matched to a TCGdex variant by (type, subtype, stamp, size): ${variantsMatched}; cards whose TCGdex file has a variant map, not a list: ${legacyVariantCards}`);
  console.log(`variants with a tcgplayer id: ${variantsTcgplayer}; with a cardmarket id: ${variantsCardmarket}; ids from a card-level thirdParty: ${cardLevelApplied}`);
  console.log(`cards with >=1 tcgplayer id on a variant: ${cardsWithTcgplayer}`);
  console.log(`cards with a card-level thirdParty (kept as record.thirdParty): ${cardsWithCardLevel}; of them with a tcgplayer id and no variants: ${cardsIdsOnlyOnRecord}`);
  console.log(`cards with >=1 tcgplayer id on a variant or the record: ${cardsWithTcgplayer + cardsIdsOnlyOnRecord}`);
}

main();
