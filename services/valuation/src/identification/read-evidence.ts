// What the OCR'd evidence says, in catalog terms: the name key, the card number (and a Pokemon set's printed
// denominator), the year and publisher words of the copyright line, the serial numbering, and the finish.
import { numberKey, textKey } from '../catalog/text-keys';

export interface Evidence {
  titleText: string;
  /** Other lines that could be the title, most title-like first. */
  titleAlternatives: string[];
  numberText: string;
  /** Other readings of the number (another OCR layout's), best first. */
  numberAlternatives: string[];
  serialText: string;
  copyrightText: string;
  fingerprint: number[];
  finishCues: string[];
  otherText: string[];
  borderColor: string;
  /** OCR of a graded slab's label, top to bottom; empty when the card was not in one. */
  holderLabelText: string[];
}

export interface NumberReading {
  /** The reading's number keys, OCR confusions included (numberVariants). */
  keys: string[];
  /** Its printed denominator (`132/193` -> 193), when it has one. */
  denominator: number | null;
}

export interface ReadEvidence {
  /** Normalised title, '' when nothing was read or the title line holds a generic word (`CATCHER`). */
  nameKey: string;
  /** The title is a sentence: flavour or rules text read where OCR found no title line (no name to go by). */
  nameIsSentence: boolean;
  /** Other text lines that could be the title when the title line misread (normalised, 4-40 characters). */
  altNameKeys: string[];
  /** Number keys to look up: every reading's (numberReadings), the number as read plus common OCR confusions. */
  numberKeys: string[];
  /**
   * Each reading of the number with its denominator, the number as read first (with a slab label's number beside
   * it), then the alternatives: a candidate is scored on the reading that agrees with it best.
   */
  numberReadings: NumberReading[];
  /** The number as read, display form without denominator (e.g. `4`, `TG05`, `810`). */
  number: string;
  /** Printed denominator of `4/102`, when present. */
  denominator: number | null;
  /** From the copyright line (`©1999 Wizards` -> 1999), when present. */
  year: number | null;
  /** Publisher words of the copyright line, normalised (`wizards`, `upper deck`). */
  brandKey: string;
  /** Serial numbering: `023/199` -> { serial: 23, printRun: 199 }. */
  serial: { serial: number; printRun: number } | null;
  finishCues: string[];
  borderColor: string;
  /** Every word read anywhere on the card (normalised), for printed subset names. */
  textWords: string[];
  /** The text looks like a Pokemon card (an `HP` line, Wizards/Nintendo/Pokemon rights line). */
  pokemonHints: boolean;
}

const DIGIT_FIXES: Record<string, string> = { o: '0', i: '1', l: '1', s: '5', b: '8', z: '2', g: '6' };

/**
 * The number as read, plus variants with letters OCR confuses for digits turned into digits: all of them when
 * that leaves only digits, else O and I/l beside digits (`HO05` -> `H005` -> `h5`).
 */
function numberVariants(raw: string): string[] {
  const key = numberKey(raw);
  if (!key) return [];
  const out = new Set([key]);
  const digitsOnly = key.replace(/[oilsbzg]/g, (c) => DIGIT_FIXES[c] ?? c);
  if (/^\d+$/.test(digitsOnly)) out.add(numberKey(digitsOnly));
  out.add(numberKey(key.replace(/[oil](?=\d)|(?<=\d)[oil]/g, (c) => DIGIT_FIXES[c] ?? c)));
  return [...out];
}

/**
 * Lines that sit where a title does but are not one: card backs' and frames' generic words. Reading one as the
 * title would make a card look absent from the catalog.
 */
const GENERIC_TITLE = new RegExp(
  '^(?:trading card game|pokemon|trainer|energy|basic|stage \\d|' +
    'catcher|pitcher|outfield|outfielder|infield|shortstop|(?:1st|2nd|3rd|first|second|third) base(?:man)?|designated hitter|' +
    'quarterback|running back|wide receiver|tight end|linebacker|guard|forward|center|defense(?:man)?|goalie|goaltender|' +
    'rookie|rookie card|all star)$',
);

function titleKey(text: string): string {
  const key = textKey(text);
  if (GENERIC_TITLE.test(key)) return '';
  // Mostly digits or one-letter fragments is OCR noise, not a title.
  const letters = key.replace(/[^a-z]/g, '').length;
  return letters >= 3 && letters >= key.replace(/ /g, '').length * 0.6 ? key : '';
}

/** A grade and its words as slab labels print them (`GEM MT 10`, `NM-MT 8`, `AUTHENTIC`): not part of the name. */
const GRADE_WORDS = /\b(?:gem\s*mt|gem\s*mint|pristine|mint|nm\s*-?\s*mt|nm|ex\s*-?\s*mt|ex|vg\s*-?\s*ex|vg|good|fair|fr|pr|poor|authentic|auth)\b\s*\+?\s*(?:10|[1-9](?:\.5)?)?\s*$/i;
/** A label's variant suffix after the name (`CHARIZARD - HOLO`, `CHARIZARD HOLO`, `DARK GYARADOS-HOLO`, `... 1ST EDITION`). */
const VARIANT_SUFFIX = /(?:\s*-\s*|\s+)(?:holo|reverse holo|rev\.? holo|1st edition|1st ed\.?|shadowless|promo|full art|fa)\b.*$/i;

export interface HolderLabel {
  year: number | null;
  /** The number printed after `#` (`#011` -> `011`, `#SM226` -> `SM226`), '' when none was read. */
  number: string;
  /** The card's name as the label gives it, normalised; '' when no line reads as one. */
  nameKey: string;
  /** Every word of the label (normalised), set names included. */
  words: string[];
}

/**
 * What a grading company's slab label says (PSA, BGS, CGC and SGC print the same facts: year and set on the first
 * line, `#number` at its end or on its own, the name and variant below, then the grade and the certificate
 * number): the year, the number and the name.
 */
export function readHolderLabel(lines: readonly string[]): HolderLabel | null {
  if (lines.length === 0) return null;
  const text = lines.join(' ');
  const yearIndex = lines.findIndex((l) => /\b(?:19[4-9]\d|20[0-4]\d)\b/.test(l));
  const year = yearIndex >= 0 ? Number(/\b(?:19[4-9]\d|20[0-4]\d)\b/.exec(lines[yearIndex]!)![0]) : null;
  const printed = /#\s*([A-Za-z]{0,4}\d{1,4}[A-Za-z]?)\b/.exec(text)?.[1] ?? '';
  const words = [...new Set(textKey(text).split(' ').filter((w) => w.length > 1))];
  const number = promoNumber(printed, words);
  // The name: the first line after the year's with three letters or more that is not the grade or the number.
  let nameKey = '';
  for (const line of lines.slice(yearIndex + 1)) {
    const candidate = titleKey(line.replace(/#\s*\S+/g, ' ').replace(VARIANT_SUFFIX, '').replace(GRADE_WORDS, ''));
    if (candidate && !/^\d+$/.test(candidate.replace(/ /g, ''))) {
      nameKey = candidate;
      break;
    }
  }
  return { year, number, nameKey, words };
}

/** The letters of each era's black star promo numbers in the catalog (`SWSH066`, `SM226`, `XY01`). */
const PROMO_ERA_LETTERS: Record<string, string> = { swsh: 'SWSH', sm: 'SM', xy: 'XY', bw: 'BW', dp: 'DP' };

/**
 * A black star promo's number as the catalog prints it: a label may give only its digits (PSA's
 * `2020 POKEMON SWSH BSP #066` for the card numbered `SWSH066`), so the era's letters go in front when the label
 * names the era and a promo (`BSP`, `PROMO`, `BLACK STAR`). Any other number is as printed.
 */
function promoNumber(printed: string, words: readonly string[]): string {
  if (!/^\d+$/.test(printed)) return printed;
  const promo = words.includes('bsp') || words.includes('promo') || (words.includes('black') && words.includes('star'));
  const era = words.find((w) => PROMO_ERA_LETTERS[w] !== undefined);
  return promo && era ? `${PROMO_ERA_LETTERS[era]}${printed}` : printed;
}

/** Titles run to five words as keys ("team rocket s mewtwo ex"); a longer line is a sentence. */
const MAX_TITLE_WORDS = 5;

function isSentence(nameKey: string): boolean {
  return nameKey.split(' ').length > MAX_TITLE_WORDS;
}

/** A number as printed: `4/102` -> 4 over 102, `#810` -> 810, `TG05/TG30` -> TG05 (a lettered total is no count). */
function parseNumber(text: string): { number: string; denominator: number | null } {
  const numberText = text.trim();
  const fraction = /([A-Za-z]{0,4}\s*[0-9OoIlSB]{1,4}[a-z]?)\s*\/\s*([A-Za-z]{0,4}\s*\d{1,4})/.exec(numberText);
  if (fraction) {
    const den = /\d+/.exec(fraction[2]!)?.[0];
    return { number: fraction[1]!.replace(/\s+/g, ''), denominator: den && /^\d+$/.test(fraction[2]!.trim()) ? Number(den) : null };
  }
  const hash = /(?:#|No\.?)\s*([A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)/.exec(numberText);
  return { number: hash ? hash[1]! : numberText.replace(/[^A-Za-z0-9-]/g, ''), denominator: null };
}

export function readEvidence(evidence: Evidence): ReadEvidence {
  const { number, denominator } = parseNumber(evidence.numberText);
  const copyright = evidence.copyrightText;
  const yearMatch = /(?:19[4-9]\d|20[0-4]\d)/.exec(copyright);
  const year = yearMatch ? Number(yearMatch[0]) : null;
  const brandKey = textKey(
    copyright
      .replace(/©|\(c\)/gi, ' ')
      .replace(/(?:19|20)\d\d(?:-\d{2,4})?/g, ' ')
      .replace(/printed in u\.?s\.?a\.?/i, ' '),
  );
  const serialMatch = /(\d{1,4})\s*\/\s*(\d{1,4})/.exec(evidence.serialText);
  const serial = serialMatch ? { serial: Number(serialMatch[1]), printRun: Number(serialMatch[2]) } : null;
  const allText = [evidence.titleText, evidence.copyrightText, ...evidence.otherText, ...evidence.holderLabelText].join(' ');
  const pokemonHints = /\bHP\s?\d{2,3}\b|\b\d{2,3}\s?HP\b|wizards|nintendo|pok[eé]mon|game freak|creatures/i.test(allText);
  // A title line that only repeats the publisher (`BOWMAN` over `©1991 Bowman`) is the logo, not the title.
  const rawTitle = titleKey(evidence.titleText);
  const nameKey = rawTitle && brandKey.split(' ').includes(rawTitle) ? '' : rawTitle;
  const cardWords = textKey([evidence.titleText, evidence.copyrightText, ...evidence.otherText].join(' ')).split(' ').filter((w) => w.length > 1);
  const cardAltNames = [...evidence.titleAlternatives, ...evidence.otherText].map(titleKey).filter((k) => k.length >= 4 && k.length <= 40);
  // A slab's label is printed by the grader in plain type: its number and year stand beside the card's own (which
  // OCR often misses on holo and full-art cards), and its name is a candidate title.
  const label = readHolderLabel(evidence.holderLabelText);
  const labelName = label?.nameKey ?? '';
  // A title read as a sentence is the card's flavour or rules text (OCR found no title on a holo name bar): the
  // label's name leads then, and the sentence stays a candidate beside it.
  const titleIsSentence = isSentence(nameKey);
  const name = labelName && (!nameKey || titleIsSentence) ? labelName : nameKey;
  const asRead = { keys: [...new Set([...(label?.number ? numberVariants(label.number) : []), ...numberVariants(number)])], denominator };
  const alternatives = evidence.numberAlternatives.map(parseNumber).map((n) => ({ keys: numberVariants(n.number), denominator: n.denominator })).filter((n) => n.keys.length > 0);
  const numberReadings = asRead.keys.length > 0 ? [asRead, ...alternatives] : alternatives;
  return {
    nameKey: name,
    nameIsSentence: isSentence(name),
    altNameKeys: [...new Set([...cardAltNames, ...(labelName ? [labelName] : []), ...(nameKey ? [nameKey] : [])].filter((k) => k !== name))],
    textWords: [...new Set([...cardWords, ...(label?.words ?? [])])],
    numberKeys: [...new Set(numberReadings.flatMap((n) => n.keys))],
    numberReadings,
    number: number || label?.number || '',
    denominator,
    year: year ?? label?.year ?? null,
    brandKey,
    serial: serial && serial.printRun > 0 && serial.serial <= serial.printRun ? serial : null,
    finishCues: evidence.finishCues,
    borderColor: evidence.borderColor,
    pokemonHints,
  };
}
