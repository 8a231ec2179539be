// Builds prices/graded-pricecharting.csv: PriceCharting's ungraded and PSA 7-10 values for catalog cards, from the
// table github.com/kortiz001/pokemon-ebay-tracker keeps (a Python dict literal, `cards_info`).
//
//   tsx scripts/build-graded-prices.ts --source <git checkout of github.com/kortiz001/pokemon-ebay-tracker>
//
// A row names its card by a pokemontcg.io id (in card_link) and its PriceCharting page (pricecharting_url). Rows are
// kept only when the id maps to a catalog card and the page plausibly is that card's (see `reject` below).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { GitSource, packageRoot, sourceArg } from './lib/git-source.ts';
import { readCatalog, type CatalogCard } from './lib/catalog.ts';

export const EBAY_TRACKER_COMMIT = '0db626ab2a754d86a0612edc0483ddf3a401f145';
const FILE = 'django/pokemon_tracker_project/pokemon_ebay_tracker/scripts/tcgplayer_cards_info.py';

interface InfoCard {
  name?: string;
  number?: string;
  card_link?: string;
  pricecharting_url?: string;
  graded_prices?: Record<string, string>;
}
type CardsInfo = Record<string, { code?: string; cards?: InfoCard[] }>;

const GRADES: [key: string, grader: string, grade: string][] = [
  ['ungraded', '', ''],
  ['grade7', 'PSA', '7'],
  ['grade8', 'PSA', '8'],
  ['grade9', 'PSA', '9'],
  ['grade95', 'PSA', '9.5'],
  ['grade10', 'PSA', '10'],
];

/** `cards_info = {...}`: a Python literal that only uses JSON syntax (checked: JSON.parse fails otherwise). */
function parseCardsInfo(text: string): CardsInfo {
  const m = /^\s*cards_info\s*=\s*/m.exec(text);
  if (!m) throw new Error(`${FILE}: no \`cards_info = \``);
  const literal = text
    .slice(m.index + m[0].length)
    .replace(/\bNone\b/g, 'null')
    .replace(/\bTrue\b/g, 'true')
    .replace(/\bFalse\b/g, 'false');
  return JSON.parse(literal) as CardsInfo;
}

const stripZeros = (s: string) => s.replace(/\d+/g, (d) => String(Number(d)));
/** Set codes compared across pokemontcg.io and TCGdex: `sv3pt5` ~ `sv03.5`. */
const normSetCode = (s: string) => stripZeros(s.toLowerCase().replace(/pt(?=\d)/g, '.'));
/** Card numbers compared without zero-padding: `001` ~ `1`, `TG05` ~ `TG5`. */
const normNumber = (s: string) => stripZeros(s.toUpperCase());
/** Words of a set name or a PriceCharting slug: `Ruby & Sapphire` -> [ruby, sapphire]; `pokemon-` is dropped. */
const words = (s: string) =>
  new Set(
    s
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w && w !== 'pokemon'),
  );
/** Words naming a gallery subset, which PriceCharting files under its parent set. */
const SUBSET_WORDS = new Set(['trainer', 'galarian', 'gallery']);

/**
 * Whether a PriceCharting set slug (`pokemon-base-set-2`) plausibly names the catalog card's set: every word of the
 * set name (bar gallery-subset words) is in the slug, and every word of the slug is in the set name or its series
 * name (`pokemon-scarlet-&-violet-151` for `151`, series `Scarlet & Violet`).
 */
function slugMatchesSet(slug: string, card: CatalogCard): boolean {
  const slugWords = words(slug);
  const setWords = words(card.set);
  const seriesWords = words(String(card.series ?? ''));
  for (const w of setWords) if (!SUBSET_WORDS.has(w) && !slugWords.has(w)) return false;
  for (const w of slugWords) if (!setWords.has(w) && !seriesWords.has(w)) return false;
  return true;
}

function main(): void {
  const src = new GitSource(
    sourceArg('tsx scripts/build-graded-prices.ts --source <kortiz001/pokemon-ebay-tracker checkout>'),
    EBAY_TRACKER_COMMIT,
  );
  const asOf = src.lastChangeDate(FILE);
  const info = parseCardsInfo(src.show(FILE).toString('utf8'));
  const catalog = readCatalog(path.join(packageRoot, 'catalog', 'pokemon.ndjson.gz'));
  const byId = new Map(catalog.map((c) => [c.id, c]));
  const byNorm = new Map<string, CatalogCard | null>(); // null: more than one card
  const setIdsByName = new Map<string, Set<string>>();
  for (const c of catalog) {
    const k = `${normSetCode(c.setId)}|${normNumber(c.number)}`;
    byNorm.set(k, byNorm.has(k) ? null : c);
    if (!setIdsByName.has(c.set)) setIdsByName.set(c.set, new Set());
    setIdsByName.get(c.set)!.add(c.setId);
  }
  const byNumberInSet = new Map(catalog.map((c) => [`${c.setId}|${normNumber(c.number)}`, c]));

  const mapHow = new Map<string, number>();
  /** Our card for a pokemontcg.io id. */
  const mapId = (ptcgId: string, groupName: string, groupCode: string | undefined): CatalogCard | undefined => {
    const exact = byId.get(ptcgId);
    if (exact) return count(mapHow, 'same id'), exact;
    const dash = ptcgId.lastIndexOf('-');
    const code = ptcgId.slice(0, dash);
    const number = ptcgId.slice(dash + 1);
    const norm = byNorm.get(`${normSetCode(code)}|${normNumber(number)}`);
    if (norm) return count(mapHow, 'normalised set code and number'), norm;
    // The group's own code is the row's set code, and exactly one catalog set bears the group's name
    // (pokemontcg.io `base6` = TCGdex `lc`, "Legendary Collection").
    const named = setIdsByName.get(groupName);
    if (groupCode === code && named?.size === 1) {
      const c = byNumberInSet.get(`${[...named][0]}|${normNumber(number)}`);
      if (c) return count(mapHow, 'set named like its group'), c;
    }
    return undefined;
  };

  interface Candidate {
    card: CatalogCard;
    url: string;
    slug: string;
    prices: string[];
  }
  const rejected = new Map<string, number>();
  const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const unmatchedIds: string[] = [];
  let read = 0;
  const candidates: Candidate[] = [];
  for (const [groupName, group] of Object.entries(info)) {
    for (const row of group.cards ?? []) {
      read++;
      const link = /\/tcgplayer\/([^/?#]+)$/.exec(row.card_link ?? '')?.[1];
      if (!link) {
        count(rejected, 'no pokemontcg.io id (card_link)');
        continue;
      }
      const card = mapId(link, groupName, group.code);
      if (!card) {
        count(rejected, 'id not in the catalog');
        unmatchedIds.push(link);
        continue;
      }
      const url = row.pricecharting_url ?? '';
      const m = /pricecharting\.com\/game\/([^/]+)\/([^/?#]+)$/.exec(url);
      if (!m) {
        count(rejected, 'no PriceCharting url');
        continue;
      }
      const slug = m[1]!;
      if (!slugMatchesSet(slug, card)) {
        count(rejected, "PriceCharting set is not the card's set");
        continue;
      }
      // The page name ends with the card number (`alakazam-1`, `starmie-v-TG13`).
      const pageNumber = /-([A-Za-z]*\d+[A-Za-z]*)$/.exec(m[2]!)?.[1];
      if (pageNumber !== undefined && normNumber(pageNumber) !== normNumber(card.number)) {
        count(rejected, "PriceCharting page number is not the card's number");
        continue;
      }
      const gp = row.graded_prices ?? {};
      candidates.push({ card, url, slug, prices: GRADES.map(([k]) => gp[k] ?? '') });
    }
  }

  // A page claimed for different cards is ambiguous: none of them keeps it.
  const cardsByUrl = new Map<string, Set<string>>();
  for (const c of candidates) {
    if (!cardsByUrl.has(c.url)) cardsByUrl.set(c.url, new Set());
    cardsByUrl.get(c.url)!.add(c.card.id);
  }
  const byCard = new Map<string, Candidate[]>();
  for (const c of candidates) {
    if (cardsByUrl.get(c.url)!.size > 1) {
      count(rejected, 'PriceCharting url shared by different cards');
      continue;
    }
    if (!byCard.has(c.card.id)) byCard.set(c.card.id, []);
    byCard.get(c.card.id)!.push(c);
  }
  // One card, several rows: kept once when they agree on every price (the page whose slug names the set exactly
  // wins), dropped when they disagree.
  const kept: Candidate[] = [];
  for (const rows of byCard.values()) {
    const same = rows.every((r) => r.prices.join('|') === rows[0]!.prices.join('|'));
    if (!same) {
      for (let i = 0; i < rows.length; i++) count(rejected, 'rows for one card disagree');
      continue;
    }
    const exact = rows.find((r) => [...words(r.slug)].join(' ') === [...words(r.card.set)].join(' '));
    kept.push(exact ?? rows[0]!);
    for (let i = 1; i < rows.length; i++) count(rejected, 'duplicate row for a card (same prices)');
  }
  kept.sort((a, b) => (a.card.id < b.card.id ? -1 : a.card.id > b.card.id ? 1 : 0));

  const dollars = (s: string): string | null => {
    const t = s.trim().replace(/^\$/, '').replace(/,/g, '');
    if (!/^\d+(\.\d+)?$/.test(t)) return null;
    return (Math.round(Number(t) * 100) / 100).toFixed(2);
  };
  const csvField = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = ['card_id,grader,grade,price_usd,as_of,source_url'];
  let priceRows = 0;
  let missingPrices = 0;
  const pricedCards = new Set<string>();
  for (const k of kept) {
    GRADES.forEach(([, grader, grade], i) => {
      const price = dollars(k.prices[i]!);
      if (price === null) {
        missingPrices++;
        return;
      }
      priceRows++;
      pricedCards.add(k.card.id);
      lines.push([k.card.id, grader, grade, price, asOf, k.url].map(csvField).join(','));
    });
  }
  const outFile = path.join(packageRoot, 'prices', 'graded-pricecharting.csv');
  writeFileSync(outFile, lines.join('\n') + '\n');

  const rejectedTotal = [...rejected.values()].reduce((a, b) => a + b, 0);
  console.log(`${FILE} @ ${EBAY_TRACKER_COMMIT} (as of ${asOf})`);
  console.log(`rows read: ${read}; cards kept: ${kept.length}; rows rejected: ${rejectedTotal}`);
  for (const [reason, n] of [...rejected].sort((a, b) => b[1] - a[1])) console.log(`  rejected, ${reason}: ${n}`);
  console.log(`ids mapped: ${[...mapHow].map(([k, v]) => `${k}=${v}`).join(', ')}`);
  console.log(`unmatched pokemontcg.io ids (${unmatchedIds.length}): ${unmatchedIds.join(' ')}`);
  console.log(`price rows written: ${priceRows} for ${pricedCards.size} cards (grades without a price, '-' or 'N/A': ${missingPrices}); file: ${outFile}`);
}

main();
