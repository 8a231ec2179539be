import { describe, expect, it } from '@jest/globals';
import { classifyLines, cleanCopyright, cleanTitle, fixDigits } from './fields';
import type { ReadLine } from './readLines';

function line(text: string, y: number, h: number, x = 50, confidence = 92): ReadLine {
  return {
    text,
    confidence,
    line: { x0: x, y0: y, x1: x + text.length * h * 0.6, y1: y + h, polarity: 'dark', glyphHeight: h, glyphs: text.length, contrast: 120, inkLuma: 30, spans: [] },
  };
}

describe('classifyLines', () => {
  it('reads a Pokemon layout: title on top, set number beside the copyright on the bottom row', () => {
    const f = classifyLines(
      [
        line('STAGE 2', 46, 10),
        line('Wigglytuff', 60, 24),
        line('80 HP', 60, 17, 460),
        line('©2004 Pokémon/Nintendo', 819, 10),
        line('52/112', 818, 11, 500),
      ],
      880,
    );
    expect(f.titleText).toBe('Wigglytuff');
    expect(f.numberText).toBe('52/112');
    expect(f.serialText).toBe('');
    expect(f.copyrightText).toBe('©2004 Pokémon/Nintendo');
    expect(f.otherText).toEqual(['STAGE 2', '80 HP']);
  });

  it('a # inside flavour text is not the number when the bottom row prints a slash number', () => {
    const f = classifyLines(
      [
        line('Pikachu', 60, 24),
        line('It stores electricity in its cheeks (#173 in the index).', 700, 9),
        line('049/195', 840, 9, 40),
        line('Illus. Mitsuhiro Arita', 840, 8, 300),
      ],
      880,
    );
    expect(f.numberText).toBe('049/195');
    expect(f.serialText).toBe('');
  });

  it('tells a serial from the card number on a sports front', () => {
    const f = classifyLines(
      [
        line('PANINI', 67, 17),
        line('#9', 71, 15, 540),
        line('023/199', 723, 15, 500),
        line('MAURICIO DUBON', 772, 21, 180),
        line('CATCHER', 812, 9),
        line('©2021 Panini Select', 811, 9, 445),
      ],
      880,
    );
    expect(f.numberText).toBe('#9');
    expect(f.serialText).toBe('023/199');
    // PANINI is the maker (it is in the copyright line), not the title.
    expect(f.titleText).toBe('MAURICIO DUBON');
    expect(f.copyrightText).toBe('©2021 Panini Select');
  });

  it('takes a lone slash number above the bottom row as a serial when no # number was read', () => {
    const f = classifyLines([line('1/1', 723, 15, 530), line('MARK CLARK', 772, 21), line('©1993 Fleer', 811, 9, 445)], 880);
    expect(f.serialText).toBe('1/1');
    expect(f.numberText).toBe('');
  });

  it('repairs OCR look-alikes in numbers and the copyright sign', () => {
    expect(fixDigits('O23')).toBe('023');
    expect(fixDigits('l99')).toBe('199');
    expect(fixDigits('TG05')).toBe('TG05');
    expect(cleanCopyright('12007 Pokémon/Nintendo')).toBe('©2007 Pokémon/Nintendo');
    expect(cleanCopyright('@1992 Stadium Club')).toBe('©1992 Stadium Club');
    expect(cleanTitle('Omanyte &')).toBe('Omanyte');
    const f = classifyLines([line('Bagon', 60, 24), line('7G/132', 818, 11, 500), line('(2007 Pokémon/Nintendo', 819, 10)], 880);
    expect(f.numberText).toBe('76/132');
    expect(f.copyrightText).toBe('©2007 Pokémon/Nintendo');
  });

  it('never takes the HP, stage or illustrator line as the title', () => {
    const f = classifyLines([line('BASIC', 50, 10), line('50 HPO)', 62, 30, 470), line('Bacon', 67, 20, 50, 40), line('lius. Atsuko Nishida', 799, 8)], 880);
    expect(f.titleText).toBe('Bacon');
  });

  it("never takes a stage card's \"Evolves from\" line as the title", () => {
    const f = classifyLines([line('Evolves from Charmeleon', 80, 26), line('Charizard', 56, 24)], 880);
    expect(f.titleText).toBe('Charizard');
  });

  it('a name printed on one row with the HP is the words before the HP', () => {
    const f = classifyLines(
      [
        line('Shining Gyarados 100 HP &', 55, 39),
        line('Once it appears, it goes on a rampage. It remains enraged until it demolishes everything around it. LV. 44', 773, 18),
        line('65/64', 826, 15, 538),
      ],
      880,
    );
    expect(f.titleText).toBe('Shining Gyarados');
    expect(f.numberText).toBe('65/64');
  });

  it('passes on the other title-like lines beside the title, but not sentences, numbers or the title again', () => {
    // A Sprigatito held in the hand: its name line read with low confidence loses to a clean attack name.
    const f = classifyLines(
      [
        line('fSprigatito', 15, 30, 50, 24),
        line('+00 0', 13, 30, 500, 41),
        line('Gather Sunlight', 350, 26, 200, 88),
        line('them, and put them into your hand. Then, shuffle your deck.', 650, 18, 20, 67),
        line('Seed Bomb', 737, 28, 200, 93),
        line('10', 735, 28, 580, 94),
      ],
      880,
    );
    expect(f.titleText).toBe('Seed Bomb');
    expect(f.titleAlternatives).toEqual(['Gather Sunlight', 'fSprigatito']);
  });

  it('a line read too unsurely to be the title (confidence under 20) is still passed on beside it', () => {
    // A silver-bordered Glaceon: its name line reads `$55 Glaceoit]` at 17.
    const f = classifyLines([line('$55 Glaceoit]', 30, 30, 50, 17), line('hs. cia', 793, 18, 50, 45)], 880);
    expect(f.titleText).toBe('hs. cia');
    expect(f.titleAlternatives).toEqual(['55 Glaceoit']);
    expect(f.otherText).toEqual([]);
  });
});
