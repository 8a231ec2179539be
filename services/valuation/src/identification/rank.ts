// Re-ranking of catalog candidates with all the evidence. Each term is a log-odds-like vote, so every score can
// be explained term by term (`explain`); weights were set on generator validation renders (see IDENTIFY.md).
import { sportsColourWord, type CandidateCard } from './candidate';
import { POKEMON_PRINTING_NAMES, pokemonStandardPrinting } from '../catalog/printings';
import { textKey, trigramSimilarity } from '../catalog/text-keys';
import type { ReadEvidence } from './read-evidence';

export interface ScoredCandidate {
  card: CandidateCard;
  score: number;
  nameSimilarity: number;
  numberMatch: boolean;
  /** Term by term, for logs and the bench. */
  explain: Record<string, number>;
}

function editDistanceAtMostOne(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (b.length > a.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

/**
 * The best trigram similarity of `name` to a run of consecutive words of `text` about as long as the name, so
 * a line like `team aqua s mightyena 100 hp` still matches `team aqua s mightyena`.
 */
export function windowSimilarity(name: string, text: string): number {
  const words = text.split(' ').filter(Boolean);
  const n = name.split(' ').filter(Boolean).length;
  let best = 0;
  for (let len = Math.max(1, n - 1); len <= n + 1; len++) {
    for (let i = 0; i + len <= words.length; i++) best = Math.max(best, trigramSimilarity(name, words.slice(i, i + len).join(' ')));
  }
  return best;
}

/** The normalised subset name a sports card prints, or null (base subset, photo variations, Pokemon). */
export function printedSubsetKey(card: CandidateCard): string | null {
  if (!card.release || /^base( set)?$|variation/i.test(card.setName.trim())) return null;
  return textKey(card.setName) || null;
}

/**
 * How much shorter (as a ratio of lengths) a misread word may be than the word it stands for: an OCR slip changes a
 * letter or two, not the word. Without it the subset `Red` was found in `revered` (trigram similarity 0.5), and a
 * 1994 Bowman's Best Red #41 outranked the Volcarona whose number row read `041/197`.
 */
const MISREAD_MIN_LENGTH_RATIO = 0.75;

/** Share of the phrase's words found among the words read (a misread word counts when its trigrams mostly agree). */
function wordsFound(phrase: string, words: string[]): number {
  const wanted = phrase.split(' ').filter((w) => w.length > 1);
  if (wanted.length === 0) return 0;
  const misreadOf = (read: string, w: string): boolean =>
    Math.min(read.length, w.length) >= MISREAD_MIN_LENGTH_RATIO * Math.max(read.length, w.length) && trigramSimilarity(read, w) >= 0.5;
  let found = 0;
  for (const w of wanted) if (words.includes(w) || words.some((r) => misreadOf(r, w))) found++;
  return found / wanted.length;
}

function wordOverlap(a: string, b: string): number {
  // Single letters count: `Allen & Ginter X` is another release than `Allen & Ginter`.
  const wa = new Set(a.split(' ').filter(Boolean));
  const wb = new Set(b.split(' ').filter(Boolean));
  if (wa.size === 0 || wb.size === 0) return 0;
  let shared = 0;
  for (const w of wa) if (wb.has(w)) shared++;
  return shared / Math.max(wa.size, wb.size);
}

/** Scores one candidate; `referenceSimilarity` is its best fingerprint cosine, when references exist. */
export function scoreCandidate(read: ReadEvidence, card: CandidateCard, referenceSimilarity: number | null): ScoredCandidate {
  const explain: Record<string, number> = {};
  const titleSimilarity = read.nameKey ? trigramSimilarity(read.nameKey, card.nameKey) : 0;
  // Another text line can stand in for a misread title, discounted: it is less likely to be the title.
  let altSimilarity = 0;
  for (const alt of read.altNameKeys) altSimilarity = Math.max(altSimilarity, 0.85 * windowSimilarity(card.nameKey, alt));
  const nameSimilarity = Math.max(titleSimilarity, altSimilarity);
  if (read.nameKey || altSimilarity >= 0.5) explain.name = 5 * nameSimilarity;
  // The number and its denominator are scored together on the reading that agrees with the card best.
  let numberMatch = false;
  let bestReading: { number: number; denominator?: number } | null = null;
  for (const reading of read.numberReadings) {
    const match = reading.keys.includes(card.numberKey);
    // One OCR slip in a longer number still half counts; in a one- or two-character number it is another number.
    const near = reading.keys.some((k) => k.length >= 3 && editDistanceAtMostOne(k, card.numberKey));
    const terms: { number: number; denominator?: number } = { number: match ? 3 : near ? 0.8 : -1.5 };
    if (reading.denominator !== null && card.setOfficialCount !== null) terms.denominator = reading.denominator === card.setOfficialCount ? 1.5 : -1;
    const total = (t: typeof terms): number => t.number + (t.denominator ?? 0);
    if (!bestReading || total(terms) > total(bestReading)) {
      bestReading = terms;
      numberMatch = match;
    }
  }
  if (bestReading) Object.assign(explain, bestReading);
  if (read.year !== null && card.year !== null) {
    const off = Math.abs(read.year - card.year);
    // A copyright year one off the release year is common (cards printed late in a season, or early).
    explain.year = off === 0 ? 1.5 : off === 1 ? 0.3 : -1;
  }
  if (read.brandKey && card.brandKey) {
    const overlap = wordOverlap(read.brandKey, card.brandKey);
    explain.brand = overlap > 0 ? 2 * overlap : -0.5;
  }
  if (read.pokemonHints) explain.game = card.game === 'pokemon' ? 0.5 : -0.5;
  if (read.serial) {
    const numbered = card.parallels.some((p) => p.printRun === read.serial!.printRun);
    explain.serial = numbered ? 1.5 : -1;
  }
  if (referenceSimilarity !== null) {
    explain.fingerprint = Math.max(-1.5, Math.min(3, (3 * (referenceSimilarity - 0.8)) / 0.2));
  }
  // Insert and subset cards print their subset's name; base cards and photo variations do not.
  const subset = printedSubsetKey(card);
  if (subset && read.textWords.length > 0) explain.subset = wordsFound(subset, read.textWords) >= 0.6 ? 2 : -1;
  // Print-identical cards (a base card and its photo variation) cannot be told apart by text: prefer the base
  // subset, by far the commoner card, and say so through a lower confidence.
  if (card.release && /^base( set)?$/i.test(card.setName)) explain.basePrior = 0.15;
  const score = Object.values(explain).reduce((a, b) => a + b, 0);
  return { card, score, nameSimilarity, numberMatch, explain };
}

export interface ChosenParallel {
  /** '' for the base card / standard printing. */
  parallel: string;
  printRun: number | null;
}

/** Which printing of the card the finish, border colour and serial numbering point to. */
export function chooseParallel(read: ReadEvidence, card: CandidateCard): ChosenParallel {
  if (card.game === 'pokemon') {
    const types = [...new Set(card.variants.map((v) => v.type))];
    const standard = pokemonStandardPrinting(types);
    const cues = read.finishCues;
    let type: string | null = null;
    if (cues.includes('reverse_holo') && types.includes('reverse')) type = 'reverse';
    else if (cues.includes('holo')) type = types.find((t) => t === 'holo' || t === 'lenticular' || t === 'metal') ?? null;
    if (type === null || type === standard) return { parallel: '', printRun: null };
    return { parallel: POKEMON_PRINTING_NAMES[type] ?? type, printRun: null };
  }
  let best: { name: string; printRun: number | null; score: number } | null = null;
  for (const p of card.parallels) {
    let score = 0;
    if (p.printRun !== null) score += read.serial && read.serial.printRun === p.printRun ? 2.5 : -2;
    const colour = sportsColourWord(p.name);
    if (colour) score += colour === read.borderColor ? 1.2 : -0.8;
    const refractorLike = /refractor|prizm|fractor|shimmer|cracked ice|finest|wave|mojo|chrome/i.test(p.name);
    const holoLike = /holo|foil|rainbow/i.test(p.name);
    if (refractorLike) score += read.finishCues.includes('refractor') ? 1 : -0.6;
    else if (holoLike) score += read.finishCues.includes('holo') ? 1 : -0.6;
    if (!best || score > best.score) best = { name: p.name, printRun: p.printRun, score };
  }
  // A parallel needs positive evidence: its serial numbering, or its colour together with its finish.
  if (best && best.score >= 1) return { parallel: best.name, printRun: read.serial?.printRun ?? best.printRun };
  return { parallel: '', printRun: read.serial?.printRun ?? null };
}
