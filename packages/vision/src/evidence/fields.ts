// From OCR'd lines (text + where they are printed) to identification fields: card number (`4/102`, `#810`),
// serial numbering (`023/199`), copyright/set line, title, and the rest. Content patterns decide what a line
// can be; position and size decide between look-alikes (a set number `74/110` and a serial `023/199` share a
// pattern: the set number sits on the card's bottom text row beside the copyright line, a serial stands
// alone higher up, and a card whose number is printed `#810` can only carry a slash as a serial).
import type { ReadLine } from './readLines';

export interface OcrFields {
  titleText: string;
  /** Other title-like lines, most title-like first (TITLE_ALTERNATIVES at most). */
  titleAlternatives: string[];
  numberText: string;
  serialText: string;
  copyrightText: string;
  otherText: string[];
}

export interface FieldCandidate {
  kind: 'number_slash' | 'number_hash' | 'serial';
  text: string;
  read: ReadLine;
}

// OCR look-alikes inside digit runs.
const DIGIT_FIX: Record<string, string> = { O: '0', o: '0', D: '0', Q: '0', l: '1', I: '1', '|': '1', i: '1', '!': '1', L: '1', Z: '2', z: '2', S: '5', s: '5', B: '8', g: '9', q: '9', G: '6', b: '6' };

/** Maps look-alike letters to digits in a token that is mostly digits. */
export function fixDigits(token: string): string {
  const digits = (token.match(/\d/g) ?? []).length;
  if (digits === 0 || digits < token.replace(/[^A-Za-z0-9|!]/g, '').length / 2) return token;
  // A run of two or more capitals in front is a set prefix (TG05, SV049, SWSH050): kept as letters.
  const prefix = token.match(/^[A-Z]{2,}/)?.[0] ?? '';
  return prefix + token.slice(prefix.length).replace(/[OoDQlI|i!LZzSsBgqGb]/g, (c) => DIGIT_FIX[c] ?? c);
}

/** `74/110`, `TG05/TG30`, `SV049/SV094`, `023/199` (spaces around the slash tolerated). */
const SLASH_RE = /(?<![A-Za-z0-9])([A-Z]{0,4}\d[0-9OoIl|SBGZDQgz]{0,3}[a-z]?|[OoIl|SBGZDQgz][0-9OoIl|SBGZDQgz]{0,3})\s?[/\u2044]\s?([A-Z]{0,4}[0-9OoIl|SBGZDQgz]{1,4})(?![A-Za-z0-9])/;
/** `#810`, `# 62`, `#T-12`, `#BDC-150`. */
const HASH_RE = /(?:^|\s)[#]\s?([A-Za-z0-9][A-Za-z0-9-]{0,9})(?![A-Za-z0-9])/;
/** `©2004 Pokémon/Nintendo`, `© 1992 Stadium Club`, OCR variants of the © sign, or a year plus words. */
const COPY_RE = /(?:[©@®]|\(c\)|\(©\))\s?((?:19|20)[0-9OoIl]{2})/i;
const YEAR_WORDS_RE = /\b(19[5-9]\d|20[0-4]\d)\b\s+[A-Za-z]{3,}/;
/** A © read as `1`, `(`, `l`... in front of the year at the start of the line: `12007 Pokémon/Nintendo`. */
const LEAD_SIGN_RE = /^[1lI|([{]\s?((?:19|20)\d\d)\s+\p{L}{3,}/u;
const STOP_TITLE = /^(stage\s*\d|basic|trainer|energy|weakness|resistance|retreat\s*cost|evolves\s+from|\S{0,4}us\.|no\.\s|rc\b)/i;
const HP_RE = /\b\d{2,3}\s?HP/i;
/**
 * Title-like lines passed on beside the title: a card's name line read with low confidence (`fSprigatito`, 24) loses
 * the title to a clean attack name or a word read in the art, and identification can still find the name among them.
 */
const TITLE_ALTERNATIVES = 3;
/** OCR confidence a line needs to be taken for any field. */
const MIN_CONFIDENCE = 20;

function clean(text: string): string {
  return text
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

/** Strips stray marks OCR adds at the ends of a title (energy symbols, frame bits): keeps letters, digits, '.'. */
export function cleanTitle(text: string): string {
  let t = clean(text);
  t = t.replace(/^[^\p{L}\p{N}]+/u, '').replace(/[^\p{L}\p{N}.'!?)\u2640\u2642]+$/u, '');
  // Single stray characters after the name ("Omanyte &", "Gastly ©").
  t = t.replace(/\s[^\p{L}\p{N}\s]$/u, '');
  return t.trim();
}

/**
 * A line's text as a title: cleaned (cleanTitle), and, where the name and the HP are printed on one row and read as
 * one line (`Shining Gyarados 100 HP`, every Wizards-era card), the words before the HP.
 */
function titleOf(text: string): string {
  const hp = HP_RE.exec(text);
  return cleanTitle(hp && hp.index > 0 ? text.slice(0, hp.index) : text);
}

/** A title reads as a name: 1-5 words with letters in them (a longer line is flavour or rules text). */
export function isTitleLike(text: string): boolean {
  const words = text.split(/\s+/).filter((w) => /\p{L}/u.test(w));
  return words.length >= 1 && words.length <= 5 && text.replace(/[^\p{L}]/gu, '').length >= 3;
}

function letters(text: string): number {
  return (text.match(/\p{L}/gu) ?? []).length;
}

function centreY(r: ReadLine): number {
  return (r.line.y0 + r.line.y1) / 2;
}

function sameRow(a: ReadLine, b: ReadLine): boolean {
  const h = Math.max(a.line.glyphHeight, b.line.glyphHeight);
  return Math.abs(centreY(a) - centreY(b)) < 0.8 * h;
}

function normaliseSlash(m: RegExpMatchArray): string {
  return `${fixDigits(m[1]!)}/${fixDigits(m[2]!)}`;
}

function isCopyright(text: string): boolean {
  return COPY_RE.test(text) || YEAR_WORDS_RE.test(text) || LEAD_SIGN_RE.test(text);
}

/** Normalises a copyright line: `©` sign, year digits fixed. */
export function cleanCopyright(text: string): string {
  let t = clean(text);
  t = t.replace(/^.*?(?:[©@®]|\(c\)|\(©\))\s?((?:19|20)[0-9OoIl]{2})/i, (_m, y: string) => `©${fixDigits(y)}`);
  t = t.replace(LEAD_SIGN_RE, (m, y: string) => `©${y}${m.slice(m.indexOf(y) + 4)}`);
  return t;
}

/** Classifies the read lines of one side. `cardHeight` in px (the rectified side's height). */
export function classifyLines(reads: ReadLine[], cardHeight: number): OcrFields & { candidates: FieldCandidate[] } {
  const usable = reads.filter((r) => r.text.length > 0 && r.confidence >= MIN_CONFIDENCE);
  const used = new Set<ReadLine>();
  const candidates: FieldCandidate[] = [];

  // Copyright: a © (or OCR look-alike) with a year, else a year followed by words; the lowest such line wins.
  let copyrightText = '';
  const copy = usable.filter((r) => isCopyright(r.text)).sort((a, b) => Number(COPY_RE.test(b.text)) - Number(COPY_RE.test(a.text)) || centreY(b) - centreY(a));
  if (copy[0]) {
    copyrightText = cleanCopyright(copy[0].text);
    used.add(copy[0]);
  }

  // Numbers.
  for (const r of usable) {
    if (used.has(r)) continue;
    const t = clean(r.text);
    const hash = t.match(HASH_RE);
    if (hash) candidates.push({ kind: 'number_hash', text: `#${fixDigits(hash[1]!)}`, read: r });
    const slash = t.match(SLASH_RE);
    if (slash && !HP_RE.test(t)) candidates.push({ kind: 'number_slash', text: normaliseSlash(slash), read: r });
  }
  const hashes = candidates.filter((c) => c.kind === 'number_hash');
  const slashes = candidates.filter((c) => c.kind === 'number_slash');
  let numberText = '';
  let serialText = '';
  // The bottom text row of the card: lines within a glyph height of the lowest confident line.
  const lowest = usable.reduce<ReadLine | null>((lo, r) => (r.confidence >= 50 && (!lo || centreY(r) > centreY(lo)) ? r : lo), null);
  const onBottomRow = (r: ReadLine): boolean =>
    !!lowest && (sameRow(r, lowest) || (copy[0] !== undefined && sameRow(r, copy[0])) || centreY(r) > cardHeight * 0.93);
  // A `#173` inside flavour or attack text is no card number: a slash number printed on the bottom row
  // (every Pokemon layout's collector number, `025/198`) outranks a # read anywhere but on that row.
  const bottomSlash = slashes.some((c) => onBottomRow(c.read));
  const numberHashes = bottomSlash ? hashes.filter((c) => onBottomRow(c.read)) : hashes;
  if (numberHashes.length > 0) {
    // Prefer the biggest print (the front's corner number / the back's number box).
    const h = [...numberHashes].sort((a, b) => b.read.line.glyphHeight - a.read.line.glyphHeight)[0]!;
    numberText = h.text;
    used.add(h.read);
    const s = slashes.find((c) => c.read !== h.read);
    if (s) {
      serialText = s.text;
      s.kind = 'serial';
      used.add(s.read);
    }
  } else if (slashes.length > 0) {
    const bottom = slashes.filter((c) => onBottomRow(c.read)).sort((a, b) => centreY(b.read) - centreY(a.read));
    const others = slashes.filter((c) => !bottom.includes(c));
    if (bottom[0]) {
      numberText = bottom[0].text;
      used.add(bottom[0].read);
    }
    if (others[0]) {
      const s = others.sort((a, b) => b.read.confidence - a.read.confidence)[0]!;
      serialText = s.text;
      s.kind = 'serial';
      used.add(s.read);
    }
  }

  // Title: the biggest mostly-letter line that is nothing else. A line repeated inside the copyright line is
  // the maker's logo (`TOPPS` / `©2008 Topps`), not the title.
  const maker = copyrightText.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, ' ');
  const isMaker = (t: string): boolean => {
    const n = t.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
    return n.length >= 3 && maker.includes(n);
  };
  let titleText = '';
  // Lines read with a confidence of 10-20 are too unsure to be the title, but may still be passed on beside it.
  const titleLike: { r: ReadLine; score: number }[] = [];
  for (const r of reads) {
    if (used.has(r) || r.text.length === 0) continue;
    const t = titleOf(r.text);
    const nl = letters(t);
    if (nl < 3 || STOP_TITLE.test(t) || HP_RE.test(t) || r.confidence < 10 || isMaker(t)) continue;
    const alnum = (t.match(/[\p{L}\p{N}]/gu) ?? []).length || 1;
    const letterRatio = nl / alnum;
    if (letterRatio < 0.6) continue;
    const score = r.line.glyphHeight * (0.5 + 0.5 * letterRatio) * (0.4 + (0.6 * Math.min(r.confidence, 90)) / 90);
    titleLike.push({ r, score });
  }
  titleLike.sort((a, b) => b.score - a.score);
  const best = titleLike.find((t) => t.r.confidence >= MIN_CONFIDENCE);
  if (best) {
    titleText = titleOf(best.r.text);
    used.add(best.r);
  }
  const titleAlternatives = [...new Set(titleLike.filter((t) => t !== best).map((t) => titleOf(t.r.text)))].filter((t) => t !== titleText && isTitleLike(t)).slice(0, TITLE_ALTERNATIVES);

  const otherText = usable
    .filter((r) => !used.has(r) && r.confidence >= 50 && (r.text.match(/[\p{L}\p{N}]/gu) ?? []).length >= 2)
    .map((r) => clean(r.text));
  return { titleText, titleAlternatives, numberText, serialText, copyrightText, otherText, candidates };
}
