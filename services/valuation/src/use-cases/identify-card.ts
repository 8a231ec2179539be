// Identification: evidence from inference -> a catalog card (or an honest "not in the catalog").
// 1. Candidate retrieval in Postgres: the number as read (B-tree), the title by trigram similarity (GIN,
//    pg_trgm) with and without the copyright year, and the nearest reference fingerprints when there are any.
// 2. Re-ranking in process with every piece of evidence (rank.ts), then the printing (parallel, print run).
// 3. A confidence from the winner's margin and the strength of its evidence. Without a name and a number that
//    agree with the catalog, the card is reported from what was read, flagged not-in-catalog: never a made-up
//    match.
import type { PrismaClient } from '../db';
import { categoryOf, displaySet } from '../catalog/catalog-record';
import type { CandidateCard } from '../identification/candidate';
import type { FingerprintIndex } from '../identification/fingerprint-index';
import { chooseParallel, scoreCandidate, type ChosenParallel, type ScoredCandidate } from '../identification/rank';
import { readEvidence, type Evidence, type ReadEvidence } from '../identification/read-evidence';

export interface Identification {
  name: string;
  subject: string;
  category: string;
  year: string;
  set: string;
  number: string;
  parallel: string;
  printRun: string;
}

export interface IdentifyResult {
  identification: Identification;
  confidence: number;
  inCatalog: boolean;
  cardId: string | null;
  candidates: { cardId: string; identification: Identification; score: number }[];
  /** Why the card was not matched, when it was not. */
  reason: string | null;
  /** The winner's score terms (logs, bench). */
  explain: Record<string, number> | null;
}

const PER_BRANCH = 60;
const EXACT_NAMES = 120;

export interface CandidateRow {
  id: string;
  game: string;
  name: string;
  subject: string;
  set_name: string;
  release: string | null;
  year: number | null;
  number: string;
  set_official_count: number | null;
  parallels: unknown;
  variants: unknown;
  name_key: string;
  number_key: string;
  brand_key: string;
}

export const COLUMNS = `id, game, name, subject, set_name, release, year, number, set_official_count, parallels, variants,
  name_key, number_key, brand_key`;

// One round trip, three index-backed branches:
// - every reading of the number (B-tree on number_key, year), within ±1 year of the copyright year when one was
//   read (a common number like #1 has 1,400 cards; one year narrows that to a few dozen) and with a Pokemon set's
//   denominator read with it, ordered by how well the rest agrees (title, other text lines, year, publisher);
// - the title exactly as normalised (B-tree on name_key, year; most OCR'd titles are exact), nearest years first;
// - only when no name matched exactly: fuzzy names by trigram similarity (`%`, GIN), best first.
// pg_trgm lives in the valuation schema, hence the qualified functions and operator.
const RETRIEVE_SQL = `
WITH exact AS (
  SELECT ${COLUMNS} FROM valuation.catalog_cards
  WHERE $1 <> '' AND name_key = $1
  ORDER BY abs(year - $3::int) NULLS LAST
  LIMIT ${EXACT_NAMES})
(SELECT ${COLUMNS} FROM valuation.catalog_cards
  WHERE number_key = ANY($2::text[])
    AND ($3::int IS NULL OR year BETWEEN $3::int - 1 AND $3::int + 1)
    AND (cardinality($6::int[]) = 0 OR set_official_count IS NULL OR set_official_count = ANY($6::int[]))
  ORDER BY valuation.similarity(name_key, $1)
         -- word_similarity finds the name inside a longer line; it is costly, so only on the year-narrowed rows.
         + 0.8 * CASE WHEN $3::int IS NULL THEN valuation.similarity(name_key, $4) ELSE valuation.word_similarity(name_key, $4) END
         + CASE WHEN year = $3::int THEN 0.3 ELSE 0 END
         + CASE WHEN brand_key = $5 THEN 0.3 ELSE 0 END
         + CASE WHEN set_official_count = ANY($6::int[]) THEN 0.5 ELSE 0 END DESC
  LIMIT ${PER_BRANCH})
UNION ALL
(SELECT * FROM exact)
UNION ALL
(SELECT ${COLUMNS} FROM valuation.catalog_cards
  WHERE $1 <> '' AND NOT EXISTS (SELECT 1 FROM exact) AND name_key OPERATOR(valuation.%) $1
  ORDER BY valuation.similarity(name_key, $1) DESC
  LIMIT ${PER_BRANCH})`;

export function toCandidate(row: CandidateRow): CandidateCard {
  return {
    id: row.id,
    game: row.game,
    name: row.name,
    subject: row.subject,
    setName: row.set_name,
    release: row.release,
    year: row.year,
    number: row.number,
    setOfficialCount: row.set_official_count,
    parallels: (row.parallels as CandidateCard['parallels']) ?? [],
    variants: (row.variants as CandidateCard['variants']) ?? [],
    nameKey: row.name_key,
    numberKey: row.number_key,
    brandKey: row.brand_key,
  };
}

async function retrieve(prisma: PrismaClient, read: ReadEvidence, extraIds: string[]): Promise<CandidateCard[]> {
  const rows = await prisma.$queryRawUnsafe<CandidateRow[]>(
    RETRIEVE_SQL,
    read.nameKey,
    read.numberKeys,
    read.year,
    read.altNameKeys.join(' '),
    read.brandKey,
    [...new Set(read.numberReadings.flatMap((n) => (n.denominator === null ? [] : [n.denominator])))],
  );
  if (extraIds.length > 0) {
    rows.push(...(await prisma.$queryRawUnsafe<CandidateRow[]>(`SELECT ${COLUMNS} FROM valuation.catalog_cards WHERE id = ANY($1::text[])`, extraIds)));
  }
  const byId = new Map<string, CandidateCard>();
  for (const row of rows) if (!byId.has(row.id)) byId.set(row.id, toCandidate(row));
  return [...byId.values()];
}

/** The printed number as collectors quote it: `4/102` for a Pokemon card with a set count, else the number. */
function displayNumber(card: CandidateCard): string {
  return card.game === 'pokemon' && card.setOfficialCount ? `${card.number}/${card.setOfficialCount}` : card.number;
}

export function identificationOf(card: CandidateCard, printing: ChosenParallel): Identification {
  return {
    name: card.name,
    subject: card.subject,
    category: categoryOf(card.game),
    year: card.year === null ? '' : String(card.year),
    set: displaySet(card),
    number: displayNumber(card),
    parallel: printing.parallel,
    printRun: printing.printRun === null ? '' : `/${printing.printRun}`,
  };
}

/** What can be said from the evidence alone (a card not in the catalog). */
function identificationFromEvidence(evidence: Evidence, read: ReadEvidence): Identification {
  const title = evidence.titleText.replace(/\s+/g, ' ').trim();
  const finish = read.finishCues.includes('reverse_holo')
    ? 'Reverse Holo'
    : read.finishCues.includes('refractor')
      ? 'Refractor'
      : read.finishCues.includes('holo')
        ? 'Holo'
        : '';
  return {
    name: title,
    subject: title,
    category: read.pokemonHints ? 'Pokemon' : '',
    year: read.year === null ? '' : String(read.year),
    set: '',
    number: read.number ? (read.denominator ? `${read.number}/${read.denominator}` : read.number) : '',
    parallel: finish,
    printRun: read.serial ? `/${read.serial.printRun}` : '',
  };
}

/** Trigram similarity of a misread title to the name it still resembles (`5 paldenn taurds` / `paldean tauros` 0.39). */
const RESEMBLING_NAME = 0.3;

/**
 * A match needs the name to agree (trigram similarity ≥ 0.45) and the number (or, without a readable number,
 * the year and publisher together); a match on the number needs the Pokemon denominator or the year and publisher
 * to agree, and a title that is absent or resembles this card's name more than any other candidate's.
 */
function supported(best: ScoredCandidate, read: ReadEvidence, scored: readonly ScoredCandidate[]): string | null {
  const e = best.explain;
  const nameOk = best.nameSimilarity >= 0.45;
  const contextOk = (e.year ?? 0) >= 1.5 && (e.brand ?? 0) > 0;
  if (nameOk && (best.numberMatch || contextOk)) return null;
  // The number with the set's denominator, or with year and publisher, pins the card down: enough where no title
  // was read (generic, unreadable, or a sentence of flavour text read where no title line was found), and where
  // the title is misread but still resembles this card's name (`Paldenn Taurds`) more than any other candidate's
  // (a title `Pikachu` over a number misread as Raichu's is Pikachu's title, whatever the number says).
  const noTitle = !read.nameKey || read.nameIsSentence;
  const pinnedByNumber = best.numberMatch && ((e.denominator ?? 0) > 0 || contextOk);
  const resembles = best.nameSimilarity >= RESEMBLING_NAME && !scored.some((s) => s.card.nameKey !== best.card.nameKey && s.nameSimilarity > best.nameSimilarity);
  if (pinnedByNumber && (noTitle || resembles)) return null;
  // Only a title was read (no number, year or publisher): a name that exactly one catalog card carries is
  // still that card; a name many cards share is not enough.
  const uniqueName = scored.filter((s) => s.card.nameKey === best.card.nameKey).length === 1;
  if (best.nameSimilarity >= 0.9 && read.numberKeys.length === 0 && read.year === null && uniqueName) return null;
  if (!read.nameKey && read.numberKeys.length === 0) return 'no title or number could be read';
  return 'no catalog card agrees with the title and number read';
}

export async function identifyCard(
  deps: { prisma: PrismaClient; fingerprints: FingerprintIndex },
  evidence: Evidence,
): Promise<IdentifyResult> {
  const read = readEvidence(evidence);
  const nearest = evidence.fingerprint.length > 0 ? deps.fingerprints.nearest(evidence.fingerprint, 5).filter((h) => h.similarity >= 0.9) : [];
  const cards = read.nameKey || read.numberKeys.length > 0 || nearest.length > 0 ? await retrieve(deps.prisma, read, nearest.map((h) => h.cardId)) : [];
  const refSims = evidence.fingerprint.length > 0 && deps.fingerprints.size > 0 ? deps.fingerprints.similarities(evidence.fingerprint, new Set(cards.map((c) => c.id))) : new Map<string, number>();
  const scored = cards.map((c) => scoreCandidate(read, c, refSims.get(c.id) ?? null)).sort((a, b) => b.score - a.score || a.card.id.localeCompare(b.card.id));
  // One distribution over the leading candidates, so the answer is always the most likely card and every
  // candidate's confidence reads on the same scale as the answer's.
  const shares = candidateShares(scored.slice(0, CANDIDATES_KEPT).map((s) => s.score));
  const candidates = scored.slice(0, CANDIDATES_KEPT).map((s, i) => ({ cardId: s.card.id, identification: identificationOf(s.card, chooseParallel(read, s.card)), score: shares[i]! }));
  const best = scored[0];
  const reason = best ? supported(best, read, scored) : read.nameKey || read.numberKeys.length > 0 ? 'no catalog card agrees with the title and number read' : 'no title or number could be read';
  if (!best || reason !== null) {
    // Not claimed: the candidates are what the evidence resembled, none of them as likely as a match.
    const confidence = Math.min(0.3, 0.1 + 0.2 * (best?.nameSimilarity ?? 0));
    return {
      identification: identificationFromEvidence(evidence, read),
      confidence: round3(confidence),
      inCatalog: false,
      cardId: null,
      candidates: candidates.map((c) => ({ ...c, score: round3(Math.min(c.score, confidence)) })),
      reason,
      explain: best?.explain ?? null,
    };
  }
  // The winner's share of the evidence, times how complete the evidence was; the runners-up keep their shares
  // under the same factor, so none of them can read as more likely than the answer.
  const strength = Math.min(1, 0.5 + 0.5 * best.nameSimilarity + (best.numberMatch ? 0.2 : 0));
  return {
    identification: identificationOf(best.card, chooseParallel(read, best.card)),
    confidence: round3(shares[0]! * strength),
    inCatalog: true,
    cardId: best.card.id,
    candidates: candidates.slice(1).map((c) => ({ ...c, score: round3(c.score * strength) })),
    reason: null,
    explain: best.explain,
  };
}

const CANDIDATES_KEPT = 6;
/** Score units per factor e in likelihood: the two-way case is the margin logistic 1 / (1 + e^(-1.5 d)). */
const SCORE_SHARPNESS = 1.5;
/** The share of a lone candidate: as if a runner-up scored 6 below it. */
const LONE_RUNNER_UP_GAP = 6;

/** Softmax of the candidates' scores (best first); a lone candidate is compared with a virtual runner-up. */
export function candidateShares(scores: number[]): number[] {
  if (scores.length === 0) return [];
  const top = scores[0]!;
  const weights = scores.map((s) => Math.exp(SCORE_SHARPNESS * (s - top)));
  if (scores.length === 1) weights.push(Math.exp(-SCORE_SHARPNESS * LONE_RUNNER_UP_GAP));
  const total = weights.reduce((a, w) => a + w, 0);
  return scores.map((_, i) => weights[i]! / total);
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

