import { describe, expect, it } from '@jest/globals';
import type { Quad } from '../image/types';
import { turnLocated, type LocatedCard } from './locate';

// A slab's label says which way is up more surely than the layout model: turning a located card by 180 degrees
// must turn its corners and every per-side fit together, and twice must give it back.
describe('turnLocated', () => {
  const quadWork: Quad = [[10, 20], [110, 22], [108, 160], [12, 158]];
  const located = {
    quadWork,
    quadPx: quadWork.map(([x, y]) => [x * 2, y * 2]) as Quad,
    refined: {
      quad: quadWork,
      lines: ['top', 'right', 'bottom', 'left'],
      sigmaPx: [0.1, 0.2, 0.3, 0.4],
      inlierFraction: [0.9, 0.8, 0.7, 0.6],
      confidence: 0.9,
    },
    orientation: { quad: quadWork, flipped: false, margin: 0.05 },
  } as unknown as LocatedCard;

  it("turns the corners (TL <-> BR, TR <-> BL) with each side's fit, and records the flip", () => {
    const turned = turnLocated(located);
    expect(turned.quadWork).toEqual([quadWork[2], quadWork[3], quadWork[0], quadWork[1]]);
    expect(turned.quadPx[0]).toEqual([216, 320]);
    expect(turned.refined.lines as unknown).toEqual(['bottom', 'left', 'top', 'right']);
    expect(turned.refined.sigmaPx).toEqual([0.3, 0.4, 0.1, 0.2]);
    expect(turned.refined.inlierFraction).toEqual([0.7, 0.6, 0.9, 0.8]);
    expect(turned.orientation).toMatchObject({ flipped: true, quad: turned.quadWork });
    expect(located.quadWork).toEqual(quadWork); // the original is left as it was
  });

  it('turning twice gives the card back', () => {
    const back = turnLocated(turnLocated(located));
    expect(back.quadWork).toEqual(located.quadWork);
    expect(back.quadPx).toEqual(located.quadPx);
    expect(back.refined).toEqual(located.refined);
    expect(back.orientation.flipped).toBe(false);
  });
});
