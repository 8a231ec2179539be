// Pure parts of identification: reading the evidence, the ranking votes, the choice of printing, and the
// fingerprint index.
import { describe, expect, it } from '@jest/globals';
import { FINGERPRINT_DIMS as VISION_FINGERPRINT_DIMS } from '@cardlens/vision';
import { numberKey, textKey, trigramSimilarity } from '../src/catalog/text-keys';
import type { CandidateCard } from '../src/identification/candidate';
import { decodeVector, encodeVector, FingerprintIndex } from '../src/identification/fingerprint-index';
import { chooseParallel, scoreCandidate } from '../src/identification/rank';
import { readEvidence, readHolderLabel, type Evidence } from '../src/identification/read-evidence';
import { candidateShares } from '../src/use-cases/identify-card';
import { FINGERPRINT_DIMS } from '../src/service';

const evidence = (e: Partial<Evidence>): Evidence => ({ titleText: '', titleAlternatives: [], numberText: '', numberAlternatives: [], serialText: '', copyrightText: '', fingerprint: [], finishCues: [], otherText: [], borderColor: '', holderLabelText: [], ...e });

const card = (c: Partial<CandidateCard>): CandidateCard => ({
  id: 'x', game: 'baseball', name: 'Ken Griffey Jr.', subject: 'Ken Griffey Jr.', setName: 'Base', release: '1989 Upper Deck Baseball', year: 1989,
  number: '1', setOfficialCount: null, parallels: [], variants: [], nameKey: 'ken griffey jr', numberKey: '1', brandKey: 'upper deck', ...c,
});

describe('text keys', () => {
  it('fold accents, case and punctuation; numbers lose leading zeros', () => {
    expect(textKey('Pokémon/Nintendo')).toBe('pokemon nintendo');
    expect(textKey("Farfetch'd & Co.")).toBe('farfetch d and co');
    expect(numberKey('059')).toBe('59');
    expect(numberKey('TG05')).toBe('tg5');
    expect(numberKey('BDC-12')).toBe('bdc12');
  });
  it('trigram similarity is 1 for equal keys and falls with OCR slips', () => {
    expect(trigramSimilarity('charizard', 'charizard')).toBe(1);
    expect(trigramSimilarity('charizrd', 'charizard')).toBeGreaterThan(0.45);
    expect(trigramSimilarity('pikachu', 'charizard')).toBeLessThan(0.1);
  });
});

describe('readEvidence', () => {
  it('reads number, denominator, year, publisher and serial numbering', () => {
    const r = readEvidence(evidence({ titleText: 'Charizard', numberText: '4/102', copyrightText: '©1999 Wizards', serialText: '' }));
    expect(r).toMatchObject({ nameKey: 'charizard', number: '4', denominator: 102, year: 1999, brandKey: 'wizards', serial: null });
    const s = readEvidence(evidence({ titleText: 'BOBBY WITT JR.', numberText: '#BDC-12', copyrightText: '©2024 Bowman Chrome', serialText: '023/199' }));
    expect(s).toMatchObject({ number: 'BDC-12', year: 2024, brandKey: 'bowman chrome', serial: { serial: 23, printRun: 199 } });
    expect(s.numberKeys).toContain('bdc12');
  });
  it('turns digit look-alikes into digits beside digits (HO05 -> H005)', () => {
    expect(readEvidence(evidence({ numberText: 'HO05/144' })).numberKeys).toContain('h5');
    expect(readEvidence(evidence({ numberText: '#1O2' })).numberKeys).toContain('102');
  });
  it("keeps each reading of the number with its own denominator, the number as read first", () => {
    const read = readEvidence(evidence({ numberText: '435/703', numberAlternatives: ['132/193', '#12'] }));
    expect(read.numberReadings).toEqual([
      { keys: ['435'], denominator: 703 },
      { keys: ['132'], denominator: 193 },
      { keys: ['12'], denominator: null },
    ]);
    expect(read).toMatchObject({ number: '435', denominator: 703 });
    expect(read.numberKeys).toEqual(['435', '132', '12']);
  });
  it('drops generic words and OCR noise read in the title position, keeping other lines as stand-ins', () => {
    expect(readEvidence(evidence({ titleText: 'OUTFIELD' })).nameKey).toBe('');
    expect(readEvidence(evidence({ titleText: 'TRADING CARD GAME' })).nameKey).toBe('');
    expect(readEvidence(evidence({ titleText: 'o10) 4 1' })).nameKey).toBe('');
    expect(readEvidence(evidence({ titleText: 'x', otherText: ['Team Aqua’s Mightyena', '60'] })).altNameKeys).toEqual(['team aqua s mightyena']);
  });
  it('refuses a serial number above its print run', () => {
    expect(readEvidence(evidence({ serialText: '250/99' })).serial).toBeNull();
  });
});

describe("a graded slab's label", () => {
  it('gives the year, the number and the name, without the variant or the grade', () => {
    expect(readHolderLabel(['2016 POKEMON XY EVOLUTIONS #011', 'CHARIZARD - HOLO', 'GEM MT 10', '42817693'])).toMatchObject({ year: 2016, number: '011', nameKey: 'charizard' });
    // The number on its own line, the variant glued to the name, the grade split over two lines.
    expect(readHolderLabel(['2002 POKEMON JAPANESE', '#014', 'SLOWPOKE-HOLO', 'NM-MT', "McDONALD'S", '8'])).toMatchObject({ year: 2002, number: '014', nameKey: 'slowpoke' });
    expect(readHolderLabel(['2019 P.M. SUN & MOON PROMO #SM226', 'CHARIZARD GX', 'NM-MT 8'])).toMatchObject({ year: 2019, number: 'SM226', nameKey: 'charizard gx' });
    expect(readHolderLabel([])).toBeNull();
  });

  it("gives a black star promo's number with its era's letters where the label prints only the digits", () => {
    expect(readHolderLabel(['2020 POKEMON SWSH BSP #066', 'CHARIZARD - HOLO', 'PRERELEASE', 'MINT 9'])).toMatchObject({ year: 2020, number: 'SWSH066', nameKey: 'charizard' });
    expect(readHolderLabel(['2018 POKEMON SUN & MOON BLACK STAR PROMO #SM226', 'CHARIZARD GX'])).toMatchObject({ number: 'SM226' });
    // Not a promo, or no era named: the number as printed.
    expect(readHolderLabel(['2016 POKEMON XY EVOLUTIONS #011', 'CHARIZARD - HOLO'])).toMatchObject({ number: '011' });
    expect(readHolderLabel(['2003 POKEMON PROMO #40', 'PIKACHU'])).toMatchObject({ number: '40' });
  });

  it("stands in for what the card's own OCR missed, and adds its number beside the card's", () => {
    const label = ['2016 POKEMON XY EVOLUTIONS #011', 'CHARIZARD - HOLO', 'GEM MT 10'];
    const read = readEvidence(evidence({ holderLabelText: label }));
    expect(read).toMatchObject({ nameKey: 'charizard', number: '011', year: 2016, pokemonHints: true });
    expect(read.numberKeys).toContain('11');
    expect(read.textWords).toEqual(expect.arrayContaining(['evolutions', 'xy']));
    // The card's own title and number come first; the label's name and number are candidates beside them.
    const both = readEvidence(evidence({ titleText: 'Charizard', numberText: '11/108', holderLabelText: ['2016 POKEMON XY EVOLUTIONS #012', 'CHARMELEON', 'MINT 9'] }));
    expect(both).toMatchObject({ nameKey: 'charizard', number: '11', denominator: 108 });
    expect(both.altNameKeys).toContain('charmeleon');
    expect(both.numberKeys).toEqual(expect.arrayContaining(['11', '12']));
  });

  it("leads with the label's name where the card's title was read as a sentence (flavour text)", () => {
    const read = readEvidence(evidence({ titleText: 'This Pokémon was created by Mewtwo to prove', holderLabelText: ['2019 P.M.SM BLACK STAR #SM226', 'CHARIZARD HOLO', 'NM MT 8'] }));
    expect(read).toMatchObject({ nameKey: 'charizard', number: 'SM226', year: 2019 });
    expect(read.altNameKeys).toContain('this pokemon was created by mewtwo to prove');
    // Without a label the sentence is all there is.
    expect(readEvidence(evidence({ titleText: 'This Pokémon was created by Mewtwo to prove' })).nameKey).toBe('this pokemon was created by mewtwo to prove');
  });
});

describe('scoreCandidate', () => {
  const read = readEvidence(evidence({ titleText: 'KEN GRIFFEY JR.', numberText: '#1', copyrightText: '©1989 Upper Deck' }));
  it('every agreeing piece of evidence votes for the card', () => {
    const s = scoreCandidate(read, card({}), null);
    expect(s.explain).toMatchObject({ name: 5, number: 3, year: 1.5, brand: 2, basePrior: 0.15 });
    expect(s.numberMatch).toBe(true);
  });
  it('a wrong year, publisher or number costs the card', () => {
    const other = scoreCandidate(read, card({ year: 1995, brandKey: 'topps', numberKey: '7' }), null);
    expect(other.explain).toMatchObject({ year: -1, brand: -0.5, number: -1.5 });
    expect(other.score).toBeLessThan(scoreCandidate(read, card({}), null).score);
  });
  it('a printed subset name decides between print-identical cards', () => {
    const withSubset = readEvidence(evidence({ titleText: 'KEN GRIFFEY JR.', numberText: '#1', copyrightText: '©1989 Upper Deck', otherText: ['STAR ROOKIE'] }));
    const base = scoreCandidate(withSubset, card({}), null);
    const insert = scoreCandidate(withSubset, card({ id: 'y', setName: 'Star Rookie' }), null);
    expect(insert.score).toBeGreaterThan(base.score);
    expect(scoreCandidate(read, card({ id: 'y', setName: 'Star Rookie' }), null).explain.subset).toBe(-1);
  });
  it('a short subset name is not found inside a longer word read (`Red` in `revered`), but a misread word still counts', () => {
    const red = card({ id: 'r', setName: 'Red' });
    expect(scoreCandidate(readEvidence(evidence({ otherText: ['I revered as an embodiment of the sun,'] })), red, null).explain.subset).toBe(-1);
    expect(scoreCandidate(readEvidence(evidence({ otherText: ['RED'] })), red, null).explain.subset).toBe(2);
    const rookie = card({ id: 'y', setName: 'Star Rookie' });
    expect(scoreCandidate(readEvidence(evidence({ otherText: ['STAR ROOKIES'] })), rookie, null).explain.subset).toBe(2);
  });
  it('the number and its denominator vote on the reading that agrees with the card best', () => {
    const twoWays = readEvidence(evidence({ titleText: 'Honchkrow', numberText: '435/703', numberAlternatives: ['132/193'] }));
    const honchkrow = card({ game: 'pokemon', name: 'Honchkrow', nameKey: 'honchkrow', number: '132', numberKey: '132', setOfficialCount: 193, release: null });
    const s = scoreCandidate(twoWays, honchkrow, null);
    expect(s.explain).toMatchObject({ number: 3, denominator: 1.5 });
    expect(s.numberMatch).toBe(true);
    expect(scoreCandidate(twoWays, { ...honchkrow, numberKey: '131' }, null).explain).toMatchObject({ number: 0.8, denominator: 1.5 });
  });
  it('a reference fingerprint votes by its cosine', () => {
    expect(scoreCandidate(read, card({}), 1).explain.fingerprint).toBeCloseTo(3, 6);
    expect(scoreCandidate(read, card({}), 0.5).explain.fingerprint).toBe(-1.5);
  });
});

describe('chooseParallel', () => {
  const parallels = [
    { name: 'Refractor', printRun: 499 },
    { name: 'Gold Refractor', printRun: 50 },
    { name: 'Pearl Refractor', printRun: null },
    { name: 'Red', printRun: null },
  ];
  it('serial numbering, finish and colour pick the numbered parallel', () => {
    const r = readEvidence(evidence({ serialText: '12/50', finishCues: ['refractor'], borderColor: 'gold' }));
    expect(chooseParallel(r, card({ parallels }))).toEqual({ parallel: 'Gold Refractor', printRun: 50 });
  });
  it('no positive evidence means the base card; a visible serial is reported even then', () => {
    expect(chooseParallel(readEvidence(evidence({ borderColor: 'white' })), card({ parallels }))).toEqual({ parallel: '', printRun: null });
    expect(chooseParallel(readEvidence(evidence({ serialText: '7/10' })), card({ parallels }))).toEqual({ parallel: '', printRun: 10 });
  });
  it('Pokemon: the finish picks the printing; the standard printing is the empty parallel', () => {
    const pokemon = card({ game: 'pokemon', release: null, variants: [{ type: 'normal', subtype: null, stamp: [] }, { type: 'reverse', subtype: null, stamp: [] }, { type: 'holo', subtype: null, stamp: [] }] });
    expect(chooseParallel(readEvidence(evidence({ finishCues: ['reverse_holo'] })), pokemon).parallel).toBe('Reverse Holo');
    expect(chooseParallel(readEvidence(evidence({ finishCues: ['holo'] })), pokemon).parallel).toBe('Holo');
    expect(chooseParallel(readEvidence(evidence({})), pokemon).parallel).toBe('');
    const holoOnly = card({ game: 'pokemon', release: null, variants: [{ type: 'holo', subtype: null, stamp: [] }] });
    expect(chooseParallel(readEvidence(evidence({ finishCues: ['holo'] })), holoOnly).parallel).toBe('');
  });
});

describe('FingerprintIndex', () => {
  it('finds the nearest reference per card and round-trips vectors through bytes', () => {
    const index = new FingerprintIndex();
    const a = Array.from({ length: 8 }, (_, i) => i + 1);
    const b = Array.from({ length: 8 }, (_, i) => 8 - i);
    index.add('card-a', '', a);
    index.add('card-b', '', b);
    index.add('card-a', 'Holo', a.map((v) => v * 2));
    const hits = index.nearest(a, 5);
    expect(hits[0]).toMatchObject({ cardId: 'card-a' });
    expect(hits[0]!.similarity).toBeCloseTo(1, 5);
    expect(hits.map((h) => `${h.cardId}/${h.parallel}`)).toEqual(expect.arrayContaining(['card-a/', 'card-a/Holo', 'card-b/']));
    expect(Array.from(decodeVector(encodeVector(a)))).toEqual(a);
    expect(() => index.add('card-c', '', [1, 2])).toThrow(/dims/);
  });
  it('uses the vision engine fingerprint size', () => {
    expect(FINGERPRINT_DIMS).toBe(VISION_FINGERPRINT_DIMS);
  });
});

describe('candidateShares', () => {
  it('is one distribution, best first: the answer is never less likely than a runner-up', () => {
    const shares = candidateShares([9, 8.9, 4, -2]);
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    for (const s of shares.slice(1)) expect(s).toBeLessThanOrEqual(shares[0]!);
    expect(shares[0]).toBeCloseTo(shares[1]! * Math.exp(0.15), 9);
  });
  it('a two-way split is the margin logistic; a lone candidate is compared with one 6 points below', () => {
    expect(candidateShares([5, 3])[0]).toBeCloseTo(1 / (1 + Math.exp(-3)), 9);
    expect(candidateShares([5])[0]).toBeCloseTo(1 / (1 + Math.exp(-9)), 9);
    expect(candidateShares([])).toEqual([]);
  });
});
