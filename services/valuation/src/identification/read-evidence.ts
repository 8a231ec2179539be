// What the OCR'd evidence says, in catalog terms: the name key, the card number (and a Pokemon set's printed
// denominator), the year and publisher words of the copyright line, the serial numbering, and the finish.
import { numberKey, textKey } from '../catalog/text-keys';

export interface Evidence {
  titleText: string;
  numberText: string;
  serialText: string;
  copyrightText: string;
  fingerprint: number[];
  finishCues: string[];
  otherText: string[];
  borderColor: string;
}

export interface ReadEvidence {
  /** Normalised title, '' when nothing was read. */
  nameKey: string;
  /** Number keys to look up: the number as read plus common OCR confusions (O/0, I/1, S/5, B/8). */
  numberKeys: string[];
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
  /** The text looks like a Pokemon card (an `HP` line, Wizards/Nintendo/Pokemon rights line). */
  pokemonHints: boolean;
}

const DIGIT_FIXES: Record<string, string> = { o: '0', i: '1', l: '1', s: '5', b: '8', z: '2', g: '6' };

/** The number as read, plus the variant with letters that OCR commonly confuses for digits turned into digits. */
function numberVariants(raw: string): string[] {
  const key = numberKey(raw);
  if (!key) return [];
  const out = new Set([key]);
  const digitsOnly = key.replace(/[oilsbzg]/g, (c) => DIGIT_FIXES[c] ?? c);
  if (/^\d+$/.test(digitsOnly)) out.add(numberKey(digitsOnly));
  return [...out];
}

export function readEvidence(evidence: Evidence): ReadEvidence {
  const numberText = evidence.numberText.trim();
  let number: string;
  let denominator: number | null = null;
  const fraction = /([A-Za-z]{0,4}\s*[0-9OoIlSB]{1,4}[a-z]?)\s*\/\s*([A-Za-z]{0,4}\s*\d{1,4})/.exec(numberText);
  const hash = /(?:#|No\.?)\s*([A-Za-z]{0,5}-?\d{1,4}[A-Za-z]?)/.exec(numberText);
  if (fraction) {
    number = fraction[1]!.replace(/\s+/g, '');
    const den = /\d+/.exec(fraction[2]!)?.[0];
    denominator = den && /^\d+$/.test(fraction[2]!.trim()) ? Number(den) : null;
  } else if (hash) {
    number = hash[1]!;
  } else {
    number = numberText.replace(/[^A-Za-z0-9-]/g, '');
  }
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
  const allText = [evidence.titleText, evidence.copyrightText, ...evidence.otherText].join(' ');
  const pokemonHints = /\bHP\s?\d{2,3}\b|wizards|nintendo|pok[eé]mon|game freak|creatures/i.test(allText);
  return {
    nameKey: textKey(evidence.titleText),
    numberKeys: numberVariants(number),
    number,
    denominator,
    year,
    brandKey,
    serial: serial && serial.printRun > 0 && serial.serial <= serial.printRun ? serial : null,
    finishCues: evidence.finishCues,
    borderColor: evidence.borderColor,
    pokemonHints,
  };
}
