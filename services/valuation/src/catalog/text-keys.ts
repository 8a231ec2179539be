// Normalised keys shared by the catalog import and identification, so stored keys and OCR read the same way:
// lower case ASCII (accents folded: Pokémon -> pokemon), punctuation to spaces, single spaces.

export function textKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Card number key: alphanumerics only, leading zeros of each digit run dropped (`059` -> `59`, `TG05` -> `tg5`). */
export function numberKey(number: string): string {
  return number
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '')
    .replace(/(^|[a-z])0+(?=\d)/g, '$1');
}

/** Publisher words printed on a sports card's copyright line: the release without its year and sport. */
export function sportsBrand(release: string): string {
  return release
    .replace(/\s+(Baseball|Basketball|Football|Hockey)\s*$/i, '')
    .replace(/^\d{4}(-\d{2,4})?\s+/, '')
    .trim();
}

/** The rights holder on a Pokemon card's copyright line: Wizards of the Coast printed the English cards to 2003. */
export function pokemonBrand(year: number | null): string {
  return year !== null && year <= 2003 ? 'Wizards' : 'Pokemon Nintendo';
}

/** Trigram similarity as pg_trgm computes it (words padded with two leading and one trailing space). */
export function trigrams(key: string): Set<string> {
  const out = new Set<string>();
  for (const word of key.split(' ')) {
    if (!word) continue;
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  }
  return out;
}

export function trigramSimilarity(a: string, b: string): number {
  if (!a || !b) return 0;
  const ta = trigrams(a);
  const tb = trigrams(b);
  let shared = 0;
  for (const t of ta) if (tb.has(t)) shared++;
  const union = ta.size + tb.size - shared;
  return union === 0 ? 0 : shared / union;
}
