// From a catalog record to the card as printed: title, number, copyright line, parallel, serial numbering,
// finish and border colour. Everything the renderer prints and the label reports comes from here.
import { isPokemon, type CatalogRecord, type PokemonRecord, type SportsRecord } from './catalog';
import { hsl, type Rng } from './prng';

export type Finish = 'plain' | 'holo' | 'reverse_holo' | 'refractor';

export type Rgb = [number, number, number];

export interface CardSpec {
  catalogId: string;
  game: string;
  /** The title printed on the card (Pokemon name or player). */
  name: string;
  /** Who or what the card shows (same as the name for these catalogs). */
  subject: string;
  set: string;
  /** Sports release (e.g. `1989 Upper Deck Baseball`); null for Pokemon. */
  release: string | null;
  year: number | null;
  /** Number as in the catalog (e.g. `4`, `TG05`, `810`). */
  number: string;
  /** Number as printed (e.g. `4/102`, `#810`). */
  printedNumber: string;
  /** Copyright / set line as printed (e.g. `©1999 Wizards`, `©2021 Topps Chrome`). */
  copyright: string;
  parallel: string | null;
  printRun: number | null;
  /** Serial numbering as printed for numbered parallels (e.g. `023/199`), else null. */
  serial: string | null;
  finish: Finish;
  /** Border colour name (white, yellow, silver, gold, red, blue, green, black, orange, purple, pink, ...). */
  borderColor: string;
  borderRgb: Rgb;
  /** Pokemon extras used by the design. */
  hp: number | null;
  types: string[];
  category: string | null;
  illustrator: string | null;
  rarity: string | null;
  attributes: string[];
}

export const BORDER_COLOURS: Record<string, Rgb> = {
  white: [246, 245, 240],
  yellow: [250, 212, 40],
  silver: [196, 200, 206],
  gold: [205, 160, 50],
  red: [196, 30, 40],
  blue: [30, 80, 190],
  green: [30, 140, 70],
  black: [22, 22, 26],
  orange: [236, 120, 20],
  purple: [110, 50, 160],
  pink: [230, 110, 170],
  aqua: [40, 180, 200],
  grey: [150, 150, 155],
};

const COLOUR_WORDS: [RegExp, string][] = [
  [/\bgold\b/i, 'gold'],
  [/\bred\b/i, 'red'],
  [/\bblue\b/i, 'blue'],
  [/\bgreen\b/i, 'green'],
  [/\bblack\b/i, 'black'],
  [/\borange\b/i, 'orange'],
  [/\bpurple\b/i, 'purple'],
  [/\bpink\b/i, 'pink'],
  [/\baqua\b|\bteal\b/i, 'aqua'],
  [/\bsilver\b|\bplatinum\b/i, 'silver'],
  [/\byellow\b/i, 'yellow'],
];

function sportsFinish(parallel: string): Finish {
  if (/refractor|prizm|fractor|shimmer|cracked ice|finest|wave|mojo|chrome/i.test(parallel)) return 'refractor';
  if (/holo|foil|rainbow/i.test(parallel)) return 'holo';
  return 'plain';
}

function brandFromRelease(release: string): string {
  return release.replace(/\s+(Baseball|Basketball|Football|Hockey)\s*$/i, '').trim();
}

function pokemonSpec(r: PokemonRecord, rng: Rng): CardSpec {
  const variants = (r.variants ?? []).map((v) => v.type);
  const variant = variants.length > 0 ? rng.pick(variants) : 'normal';
  const finish: Finish =
    variant === 'holo' || variant === 'lenticular' || variant === 'metal'
      ? 'holo'
      : variant === 'reverse'
        ? 'reverse_holo'
        : 'plain';
  const year = r.year ?? null;
  // Scarlet & Violet era (2023+) cards have silver borders; a few promos/alt prints too.
  const border = year !== null && year >= 2023 ? 'silver' : rng.chance(0.04) ? 'silver' : 'yellow';
  const printedNumber = r.setOfficialCount ? `${r.number}/${r.setOfficialCount}` : r.number;
  const owner = year !== null && year <= 2003 ? 'Wizards' : 'Pokémon/Nintendo';
  return {
    catalogId: r.id,
    game: 'pokemon',
    name: r.name,
    subject: r.name,
    set: r.set,
    release: null,
    year,
    number: r.number,
    printedNumber,
    copyright: `©${year ?? 1999} ${owner}`,
    parallel: variant === 'normal' ? null : variant,
    printRun: null,
    serial: null,
    finish,
    borderColor: border,
    borderRgb: BORDER_COLOURS[border] as Rgb,
    hp: r.hp ?? null,
    types: r.types ?? [],
    category: r.category ?? null,
    illustrator: r.illustrator ?? null,
    rarity: r.rarity ?? null,
    attributes: [],
  };
}

function sportsSpec(r: SportsRecord, rng: Rng): CardSpec {
  const parallels = r.parallels ?? [];
  const chosen = parallels.length > 0 && rng.chance(0.45) ? rng.pick(parallels) : null;
  let finish: Finish = 'plain';
  let border = 'white';
  let printRun: number | null = null;
  if (chosen) {
    finish = sportsFinish(chosen.name);
    for (const [re, colour] of COLOUR_WORDS) {
      if (re.test(chosen.name)) {
        border = colour;
        break;
      }
    }
    printRun = chosen.printRun && chosen.printRun > 0 ? chosen.printRun : null;
  } else if (rng.chance(0.08)) {
    // A few base designs with coloured borders (think 1990 Topps, 1975 Topps).
    border = rng.pick(['red', 'blue', 'green', 'black', 'orange', 'grey']);
  }
  let serial: string | null = null;
  if (printRun !== null) {
    const n = rng.int(1, printRun);
    const digits = String(printRun).length;
    serial = `${String(n).padStart(digits, '0')}/${printRun}`;
  }
  const brand = brandFromRelease(r.release);
  return {
    catalogId: r.id,
    game: r.game,
    name: r.name,
    subject: r.name,
    set: r.set,
    release: r.release,
    year: r.year ?? null,
    number: r.number,
    printedNumber: `#${r.number}`,
    copyright: `©${r.year ?? 2000} ${brand.replace(/^\d{4}\s+/, '')}`,
    parallel: chosen ? chosen.name : null,
    printRun,
    serial,
    finish,
    borderColor: border,
    borderRgb: BORDER_COLOURS[border] as Rgb,
    hp: null,
    types: [],
    category: null,
    illustrator: null,
    rarity: null,
    attributes: r.attributes ?? [],
  };
}

export function cardSpecFromRecord(record: CatalogRecord, rng: Rng): CardSpec {
  return isPokemon(record) ? pokemonSpec(record, rng) : sportsSpec(record as SportsRecord, rng);
}

/** Pokemon type colours for the card body. */
export const POKEMON_TYPE_COLOURS: Record<string, Rgb> = {
  Fire: [214, 88, 52],
  Water: [70, 140, 214],
  Grass: [96, 170, 80],
  Lightning: [236, 200, 60],
  Psychic: [160, 100, 190],
  Fighting: [180, 110, 70],
  Darkness: [70, 70, 90],
  Metal: [160, 168, 178],
  Dragon: [190, 160, 70],
  Fairy: [230, 140, 190],
  Colorless: [200, 196, 186],
};

export function bodyColour(spec: CardSpec, rng: Rng): Rgb {
  if (spec.game === 'pokemon') {
    const t = spec.types[0];
    if (t && POKEMON_TYPE_COLOURS[t]) return POKEMON_TYPE_COLOURS[t] as Rgb;
    if (spec.category === 'Trainer') return [206, 206, 212];
    return hsl(rng.range(0, 360), 0.45, 0.6);
  }
  return hsl(rng.range(0, 360), rng.range(0.4, 0.8), rng.range(0.3, 0.5));
}
