import { describe, expect, it } from '@jest/globals';
import { gradeCard, mintSide, type SideCalibration, type SideMeasurements } from '../src/index';

const noCalibration = (): SideCalibration => ({
  corners: { TL: 0, TR: 0, BR: 0, BL: 0 },
  edges: { top: 0, right: 0, bottom: 0, left: 0 },
  surface: 0,
  conditions: 'glare on 12 % of the side',
});

/** A front whose top-left corner measures 3 mm² of whitening (a 6-level flaw on its own). */
function whitenedFront(): SideMeasurements {
  const side = mintSide();
  side.corners.TL = { whiteningAreaMm2: 3, roundingRadiusMm: 0, dingAreaMm2: 0 };
  return side;
}

describe('calibrated severities', () => {
  it('replace the measured ones in the sub-grade, and the justification gives both grades and the conditions', () => {
    const measuredOnly = gradeCard({ front: whitenedFront(), back: mintSide() });
    expect(measuredOnly.subGrades.corners).toBe(6);
    const calibrated = gradeCard({ front: { ...whitenedFront(), calibrated: noCalibration() }, back: mintSide() });
    expect(calibrated.subGrades.corners).toBe(10);
    expect(calibrated.sides.front.measured).toMatchObject({ corners: 6, conditions: 'glare on 12 % of the side' });
    expect(calibrated.justification).toMatch(/Corners 10 .*measured whitening of 3\.00 mm² on the front top-left corner .*front 6 from the measurements alone, 10 calibrated \(glare on 12 % of the side\)/);
    // the measured defect stays in the defect list with its own numbers
    expect(calibrated.defects.some((d) => d.location === 'top-left corner' && d.side === 'front')).toBe(true);
  });

  it('never lowers a grade below what the measurements saw, and changes nothing where it agrees', () => {
    // the calibration can explain a measurement away but cannot add damage nothing measured
    const cal = { ...noCalibration(), edges: { top: 0.5, right: 0, bottom: 0, left: 0 }, surface: 0.6 };
    const r = gradeCard({ front: { ...mintSide(), calibrated: cal }, back: mintSide() });
    expect(r.subGrades.edges).toBe(10);
    expect(r.subGrades.surface).toBe(10);
    expect(r.justification).not.toMatch(/calibrat/);
    // on a measured flaw it can lower the severity only down to the calibration's, not raise it
    const worse = gradeCard({ front: { ...whitenedFront(), calibrated: { ...noCalibration(), corners: { TL: 0.9, TR: 0, BR: 0, BL: 0 } } }, back: mintSide() });
    expect(worse.subGrades.corners).toBe(6);
    const agree = gradeCard({ front: { ...mintSide(), calibrated: noCalibration() }, back: mintSide() });
    expect(agree.subGrades).toEqual(gradeCard({ front: mintSide(), back: mintSide() }).subGrades);
    expect(agree.justification).not.toMatch(/calibrat/);
  });
});
