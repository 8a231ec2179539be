import { describe, it, expect } from '@jest/globals';
import { commonV1, scansV1, timestampFromIso } from '@cardlens/contracts';
import { expectMatchesOpenApi } from '@cardlens/testing';
import {
  centeringRatio,
  moduleNames,
  presentScan,
  presentScanAccepted,
  severityName,
  type ScanCompletedView,
  type ScanInFlightView,
} from '../../src/http/scan-view';

const { IDENTIFY, GRADE, MARKET, FULL, DEEP, UNSPECIFIED } = scansV1.Module;

/** Asserts the body is a documented 200 of GET /v1/scans/{id}, as the e2e suite checks it. */
function expectDocumentedScan(body: unknown, id = 123): void {
  expectMatchesOpenApi('GET', `/v1/scans/${id}`, 200, 'application/json', JSON.parse(JSON.stringify(body)), {
    'x-credits-remaining': '3',
    'x-ratelimit-policy': 'per-key;limit=60;window=60s',
  });
}

// ---------------------------------------------------------------------------------------------- fixtures

const identification: commonV1.Identification = {
  name: 'Charizard',
  subject: 'Charizard',
  category: 'Pokemon',
  year: '1999',
  set: 'Base Set',
  number: '4',
  parallel: 'Holo',
  printRun: '',
};

function grading(options: { back: boolean }): commonV1.Grading {
  return {
    grade: 7.5,
    predictedGrade: 7,
    subGrades: { centering: 7, corners: 8, edges: 7.5, surface: 8 },
    summary: 'Light corner wear, slightly off-centre left to right.',
    justification: 'Front centering 56/44 left to right; minor whitening on the top-left corner.',
    front: { centering: 7, corners: 8, edges: 7.5, surface: 8 },
    back: options.back ? { centering: 6.5, corners: 8, edges: 7.5, surface: 8.5 } : undefined,
    frontCentering: { leftRight: 56.25, topBottom: 51.7 },
    backCentering: options.back ? { leftRight: 60, topBottom: 50 } : undefined,
    confidence: options.back ? 0.85 : 0.7,
    subGradeConfidences: { centering: 0.9, corners: 0.8, edges: 0.75, surface: options.back ? 0.7 : 0.5 },
    defects: [
      { kind: commonV1.DefectKind.CORNER_WEAR, side: commonV1.Side.FRONT, location: 'top-left corner', severity: 0.2, region: { x: 0, y: 0, width: 0.1, height: 0.1 }, description: 'Light whitening.' },
      { kind: commonV1.DefectKind.SURFACE_SCRATCH, side: commonV1.Side.FRONT, location: 'center', severity: 0.5, region: undefined, description: 'A fine scratch.' },
      ...(options.back
        ? [{ kind: commonV1.DefectKind.CREASE, side: commonV1.Side.BACK, location: 'bottom edge', severity: 0.9, region: undefined, description: 'A crease.' }]
        : []),
    ],
    notAssessed: options.back ? [] : ['back_centering', 'back_corners', 'back_edges', 'back_surface'],
    notAssessedReasons: options.back ? [] : ['back_centering', 'back_corners', 'back_edges', 'back_surface'].map((item) => ({ item, reason: 'the back was not photographed' })),
    gradeDistribution: [{ grade: 7, probability: 0.6 }, { grade: 8, probability: 0.4 }],
    overlayAvailable: true,
    engineVersion: 'cardlens-vision-28',
    rubricVersion: '1.2.0',
  };
}

const coveredValue: commonV1.ValueEstimate = {
  rawEstimateCents: 12_345,
  gradedEstimateCents: 45_000,
  currency: 'USD',
  gradedValueSpread: [
    { grade: 7, valueCents: 30_000, confidence: commonV1.ConfidenceLevel.HIGH },
    { grade: 8, valueCents: 45_000, confidence: commonV1.ConfidenceLevel.MEDIUM },
    { grade: 10, valueCents: 250_000, confidence: commonV1.ConfidenceLevel.LOW },
  ],
  rawEstimateUnavailableReason: undefined,
  gradedEstimateUnavailableReason: undefined,
  gradedEstimateGrade: 7,
  latestCompAt: timestampFromIso('2026-10-30T18:45:00.000Z'),
  compCount: 12,
  sampleData: true,
  method: 'time-weighted median of 12 raw sales',
};

const uncoveredValue: commonV1.ValueEstimate = {
  rawEstimateCents: undefined,
  gradedEstimateCents: undefined,
  currency: 'USD',
  gradedValueSpread: [],
  rawEstimateUnavailableReason: 'card not in catalog',
  gradedEstimateUnavailableReason: 'no recent graded sales',
  gradedEstimateGrade: undefined,
  latestCompAt: undefined,
  compCount: 0,
  sampleData: false,
  method: '',
};

const market: commonV1.MarketAnalysis = {
  insights: 'Prices are up on steady volume.',
  gradingRecommendation: commonV1.GradingRecommendation.GRADE,
  context: 'Based on sample data (demo deployment).',
  trend: { change30dPercent: 4.5, change90dPercent: -2.25, sales30d: 8, sales90d: 21, medianPrice30dCents: 12_000, volatilityPercent: 12 },
};

function completed(
  modules: scansV1.Module[],
  sections: { grading?: commonV1.Grading; value?: commonV1.ValueEstimate; market?: commonV1.MarketAnalysis; inCatalog?: boolean } = {},
): scansV1.ScanResult {
  const inCatalog = sections.inCatalog ?? true;
  return {
    scanId: 123,
    status: scansV1.ScanStatus.COMPLETED,
    modules,
    createdAt: timestampFromIso('2026-11-02T10:14:00.000Z'),
    state: {
      $case: 'completed',
      value: {
        identification,
        grading: sections.grading,
        value: sections.value,
        market: sections.market,
        completedAt: timestampFromIso('2026-11-02T10:15:30.000Z'),
        identificationConfidence: inCatalog ? 0.93 : 0.41,
        inCatalog,
        cardId: inCatalog ? 'base1-4' : undefined,
        candidates: inCatalog
          ? [{ identification: { ...identification, set: 'Base Set 2', year: '2000' }, confidence: 0.04 }, { identification: undefined, confidence: 0.01 }]
          : [],
        notInCatalogReason: inCatalog ? '' : 'no catalog entry matched',
        creditsRefunded: 0,
        refundReason: '',
      },
    },
  };
}

/** The sections the scans service fills for the paid modules. */
function paidSections(modules: scansV1.Module[], back = true) {
  const all = modules.includes(FULL);
  return {
    grading: all || modules.includes(GRADE) ? grading({ back }) : undefined,
    value: all || modules.includes(MARKET) ? coveredValue : undefined,
    market: all || modules.includes(MARKET) ? market : undefined,
  };
}

const MODULE_SETS: scansV1.Module[][] = [
  [IDENTIFY],
  [GRADE],
  [MARKET],
  [IDENTIFY, GRADE],
  [IDENTIFY, MARKET],
  [GRADE, MARKET],
  [IDENTIFY, GRADE, MARKET],
  [FULL],
];

// ---------------------------------------------------------------------------------------------- tests

describe('presentScanAccepted', () => {
  it('renders the documented 202 body', () => {
    const body = presentScanAccepted({ scanId: 42, status: scansV1.ScanStatus.QUEUED, modules: [IDENTIFY, GRADE], creditsCharged: 2, creditsRemaining: 1, replayed: false });
    expect(body).toEqual({ id: 42, status: 'queued', modules: ['identify', 'grade'], creditsCharged: 2, creditsRemaining: 1, links: { self: '/v1/scans/42' } });
    expectMatchesOpenApi('POST', '/v1/scans', 202, 'application/json', body, { 'X-Credits-Remaining': '1', 'X-RateLimit-Policy': 'per-key;limit=60;window=60s', Location: 'http://gateway.test/v1/scans/42' });
  });

  it('says queued for a replay whatever the scan has become', () => {
    const body = presentScanAccepted({ scanId: 7, status: scansV1.ScanStatus.COMPLETED, modules: [FULL], creditsCharged: 2, creditsRemaining: 0, replayed: true });
    expect(body.status).toBe('queued');
    expect(body.modules).toEqual(['full']);
    expectMatchesOpenApi('POST', '/v1/scans', 202, 'application/json', body);
  });
});

describe('moduleNames', () => {
  it('names the API modules and leaves out the rest', () => {
    expect(moduleNames([IDENTIFY, GRADE, MARKET, FULL, DEEP, UNSPECIFIED])).toEqual(['identify', 'grade', 'market', 'full']);
  });
});

describe('presentScan: in flight', () => {
  it.each([
    [scansV1.ScanStatus.QUEUED, 'queued'],
    [scansV1.ScanStatus.PROCESSING, 'processing'],
  ] as const)('renders %s with progress and a nullable message', (status, name) => {
    const withMessage = presentScan({ scanId: 123, status, modules: [IDENTIFY], createdAt: undefined, state: { $case: 'inFlight', value: { progressPercent: 40, statusMessage: 'Grading' } } });
    expect(withMessage).toEqual({ id: 123, status: name, progressPercent: 40, statusMessage: 'Grading' });
    expectDocumentedScan(withMessage);

    const without = presentScan({ scanId: 123, status, modules: [IDENTIFY], createdAt: undefined, state: { $case: 'inFlight', value: { progressPercent: 0 } } });
    expect(without).toEqual({ id: 123, status: name, progressPercent: 0, statusMessage: null });
    expectDocumentedScan(without);
  });

  it('defaults a missing state and keeps progress an integer within 0-100', () => {
    const queued = presentScan({ scanId: 5, status: scansV1.ScanStatus.QUEUED, modules: [GRADE], createdAt: undefined, state: undefined });
    expect(queued).toEqual({ id: 5, status: 'queued', progressPercent: 0, statusMessage: null });
    const over = presentScan({ scanId: 5, status: scansV1.ScanStatus.PROCESSING, modules: [GRADE], createdAt: undefined, state: { $case: 'inFlight', value: { progressPercent: 140 } } });
    expect((over as ScanInFlightView).progressPercent).toBe(100);
    expectDocumentedScan(queued, 5);
    expectDocumentedScan(over, 5);
  });
});

describe('presentScan: failed', () => {
  it('renders the generic error with the optional progress and message', () => {
    const body = presentScan({
      scanId: 123,
      status: scansV1.ScanStatus.FAILED,
      modules: [FULL],
      createdAt: undefined,
      state: { $case: 'failed', value: { error: 'The scan could not be processed.', progressPercent: 60, statusMessage: 'Grading failed' } },
    });
    expect(body).toEqual({ id: 123, status: 'failed', error: 'The scan could not be processed.', progressPercent: 60, statusMessage: 'Grading failed' });
    expectDocumentedScan(body);
  });

  it('omits absent optional members (statusMessage is not nullable there) and never sends an empty error', () => {
    const body = presentScan({ scanId: 9, status: scansV1.ScanStatus.FAILED, modules: [IDENTIFY], createdAt: undefined, state: { $case: 'failed', value: { error: '' } } });
    expect(body).toEqual({ id: 9, status: 'failed', error: 'The scan could not be completed.' });
    expectDocumentedScan(body, 9);
  });
});

describe('presentScan: completed', () => {
  it.each(MODULE_SETS.map((modules) => [moduleNames(modules).join('+'), modules] as const))(
    'modules %s: only the paid sections, matching the document',
    (_label, modules) => {
      const body = presentScan(completed(modules, paidSections(modules))) as ScanCompletedView;
      const names = moduleNames(modules);
      const graded = names.includes('grade') || names.includes('full');
      const priced = names.includes('market') || names.includes('full');
      expect(body.status).toBe('completed');
      expect(body.modules).toEqual(names);
      expect(body.completedAt).toBe('2026-11-02T10:15:30.000Z');
      expect(body.identification.name).toBe('Charizard');
      expect('grading' in body).toBe(graded);
      expect('value' in body).toBe(priced);
      expect('market' in body).toBe(priced);
      expectDocumentedScan(body);
    },
  );

  it.each(MODULE_SETS.map((modules) => [moduleNames(modules).join('+'), modules] as const))(
    'modules %s without a back image',
    (_label, modules) => {
      const body = presentScan(completed(modules, paidSections(modules, false))) as ScanCompletedView;
      if (body.grading) {
        expect(body.grading.centering.back).toBeNull();
        expect(body.grading.frontBack.back).toBeNull();
        expect(body.grading.notAssessed).toEqual(['back_centering', 'back_corners', 'back_edges', 'back_surface']);
        expect(body.grading.notAssessedReasons.map((r) => r.reason)).toEqual(Array(4).fill('the back was not photographed'));
      }
      expectDocumentedScan(body);
    },
  );

  it('gates sections by the modules even when the proto carries more', () => {
    const body = presentScan(completed([IDENTIFY], { grading: grading({ back: true }), value: coveredValue, market })) as ScanCompletedView;
    expect(Object.keys(body).sort()).toEqual(['completedAt', 'id', 'identification', 'modules', 'status']);
    expectDocumentedScan(body);
  });

  it('renders identification with confidence, catalog flag and candidates', () => {
    const body = presentScan(completed([IDENTIFY])) as ScanCompletedView;
    expect(body.identification).toEqual({
      name: 'Charizard',
      subject: 'Charizard',
      category: 'Pokemon',
      year: '1999',
      set: 'Base Set',
      number: '4',
      parallel: 'Holo',
      printRun: '',
      confidence: 0.93,
      inCatalog: true,
      candidates: [
        { name: 'Charizard', subject: 'Charizard', category: 'Pokemon', year: '2000', set: 'Base Set 2', number: '4', parallel: 'Holo', printRun: '', confidence: 0.04 },
        { name: '', subject: '', category: '', year: '', set: '', number: '', parallel: '', printRun: '', confidence: 0.01 },
      ],
    });
  });

  it('renders a card outside the catalog with no candidates', () => {
    const body = presentScan(completed([IDENTIFY], { inCatalog: false })) as ScanCompletedView;
    expect(body.identification.inCatalog).toBe(false);
    expect(body.identification.candidates).toEqual([]);
    expectDocumentedScan(body);
  });

  it('keeps printRun in the documented /<n> form', () => {
    const withRun = (printRun: string) => {
      const scan = completed([IDENTIFY]);
      if (scan.state?.$case === 'completed') scan.state.value.identification = { ...identification, printRun };
      const body = presentScan(scan) as ScanCompletedView;
      expectDocumentedScan(body);
      return body.identification.printRun;
    };
    expect(withRun('/199')).toBe('/199');
    expect(withRun('199')).toBe('/199');
    expect(withRun('023/199')).toBe('/199');
    expect(withRun('1 of 1')).toBe('');
  });

  it('renders the grading report in full', () => {
    const body = presentScan(completed([GRADE], { grading: grading({ back: true }) })) as ScanCompletedView;
    expect(body.grading).toEqual({
      grade: 7.5,
      predictedGrade: 7,
      subGrades: { centering: 7, corners: 8, edges: 7.5, surface: 8 },
      summary: 'Light corner wear, slightly off-centre left to right.',
      justification: 'Front centering 56/44 left to right; minor whitening on the top-left corner.',
      centering: {
        front: { leftRight: '56/44', topBottom: '52/48', left: 56.3, right: 43.7, top: 51.7, bottom: 48.3 },
        back: { leftRight: '60/40', topBottom: '50/50', left: 60, right: 40, top: 50, bottom: 50 },
      },
      subGradeConfidence: { centering: 0.9, corners: 0.8, edges: 0.75, surface: 0.7 },
      defects: [
        { kind: 'corner_wear', side: 'front', location: 'top-left corner', severity: 'minor', description: 'Light whitening.' },
        { kind: 'scratch', side: 'front', location: 'center', severity: 'moderate', description: 'A fine scratch.' },
        { kind: 'crease', side: 'back', location: 'bottom edge', severity: 'major', description: 'A crease.' },
      ],
      notAssessed: [],
      notAssessedReasons: [],
      frontBack: {
        front: { centering: 7, corners: 8, edges: 7.5, surface: 8 },
        back: { centering: 6.5, corners: 8, edges: 7.5, surface: 8.5 },
      },
      engine: { version: 'cardlens-vision-28', rubricVersion: '1.2.0' },
      links: { overlay: '/v1/scans/123/overlay' },
    });
  });

  it('renders a missing predicted grade as null', () => {
    const body = presentScan(completed([GRADE], { grading: { ...grading({ back: false }), predictedGrade: undefined } })) as ScanCompletedView;
    expect(body.grading?.predictedGrade).toBeNull();
    expectDocumentedScan(body);
  });

  it('names every defect kind', () => {
    const kinds = [
      [commonV1.DefectKind.CORNER_WEAR, 'corner_wear'],
      [commonV1.DefectKind.EDGE_WEAR, 'edge_wear'],
      [commonV1.DefectKind.SURFACE_SCRATCH, 'scratch'],
      [commonV1.DefectKind.SURFACE_DENT, 'dent'],
      [commonV1.DefectKind.CREASE, 'crease'],
      [commonV1.DefectKind.STAIN, 'stain'],
      [commonV1.DefectKind.PRINT_DEFECT, 'print_defect'],
      [commonV1.DefectKind.OTHER, 'other'],
      [commonV1.DefectKind.UNSPECIFIED, 'other'],
    ] as const;
    const defects = kinds.map(([kind]) => ({ kind, side: commonV1.Side.UNSPECIFIED, location: 'edge', severity: 0, region: undefined, description: '' }));
    const body = presentScan(completed([FULL], { grading: { ...grading({ back: true }), defects }, value: coveredValue, market })) as ScanCompletedView;
    expect(body.grading?.defects.map((d) => d.kind)).toEqual(kinds.map(([, name]) => name));
    expect(body.grading?.defects.every((d) => d.side === 'front')).toBe(true);
    expectDocumentedScan(body);
  });

  it('says why each aspect was not assessed, in the order of notAssessed', () => {
    const limited: commonV1.Grading = {
      ...grading({ back: true }),
      notAssessed: ['front_corners', 'back_surface'],
      notAssessedReasons: [
        { item: 'back_surface', reason: 'the photo is blurred by about 0.25 mm; at most 0.15 mm keeps wear of a few tenths of a mm visible' },
        { item: 'front_corners', reason: 'the card spans 5.1 pixels per mm in the photo; 8 are needed to see wear of a few tenths of a mm' },
      ],
    };
    const body = presentScan(completed([GRADE], { grading: limited })) as ScanCompletedView;
    expect(body.grading?.notAssessedReasons).toEqual([
      { item: 'front_corners', reason: 'the card spans 5.1 pixels per mm in the photo; 8 are needed to see wear of a few tenths of a mm' },
      { item: 'back_surface', reason: 'the photo is blurred by about 0.25 mm; at most 0.15 mm keeps wear of a few tenths of a mm visible' },
    ]);
    expectDocumentedScan(body);
  });

  it('keeps scores, confidences and notAssessed within the document', () => {
    const odd: commonV1.Grading = {
      ...grading({ back: false }),
      grade: 0,
      predictedGrade: 11,
      subGrades: undefined,
      front: undefined,
      frontCentering: undefined,
      subGradeConfidences: { centering: 1.2, corners: -0.1, edges: 0.5, surface: Number.NaN },
      notAssessed: ['back_centering', 'back_centering', 'something_else'],
    };
    const body = presentScan(completed([GRADE], { grading: odd })) as ScanCompletedView;
    expect(body.grading?.grade).toBe(1);
    expect(body.grading?.predictedGrade).toBe(10);
    expect(body.grading?.subGradeConfidence).toEqual({ centering: 1, corners: 0, edges: 0.5, surface: 0 });
    expect(body.grading?.notAssessed).toEqual(['back_centering']);
    expect(body.grading?.notAssessedReasons).toEqual([{ item: 'back_centering', reason: 'the back was not photographed' }]);
    // No centering shares sent: none is made up (a 50/50 would read as a measurement).
    expect(body.grading?.centering.front).toBeNull();
    expectDocumentedScan(body);
  });

  it('shows no number for an aspect that was not assessed, and no grade where nothing was', () => {
    const partly: commonV1.Grading = { ...grading({ back: false }), notAssessed: ['front_centering', 'front_corners', 'back_centering', 'back_corners', 'back_edges', 'back_surface'] };
    const some = presentScan(completed([GRADE], { grading: partly })) as ScanCompletedView;
    expect(some.grading?.grade).toEqual(expect.any(Number));
    expect(some.grading?.subGrades).toEqual({ centering: null, corners: null, edges: expect.any(Number), surface: expect.any(Number) });
    expect(some.grading?.subGradeConfidence.centering).toBeNull();
    expect(some.grading?.frontBack.front).toMatchObject({ centering: null, corners: null });
    expect(some.grading?.centering).toEqual({ front: null, back: null });
    expect(some.refund).toBeUndefined();
    expectDocumentedScan(some);

    const none: commonV1.Grading = { ...partly, notAssessed: [...partly.notAssessed, 'front_edges', 'front_surface'], predictedGrade: undefined };
    const scan = completed([FULL], { grading: none, value: coveredValue, market });
    if (scan.state?.$case === 'completed') Object.assign(scan.state.value, { creditsRefunded: 1, refundReason: 'No grade could be given' });
    const body = presentScan(scan) as ScanCompletedView;
    expect(body.grading?.grade).toBeNull();
    expect(body.grading?.predictedGrade).toBeNull();
    expect(body.grading?.subGrades).toEqual({ centering: null, corners: null, edges: null, surface: null });
    expect(body.refund).toEqual({ credits: 1, reason: 'No grade could be given' });
    expect(body.grading?.engine).toEqual({ version: 'cardlens-vision-28', rubricVersion: '1.2.0' });
    expectDocumentedScan(body);
  });

  it('renders covered value estimates in USD', () => {
    const body = presentScan(completed([MARKET], { value: coveredValue, market })) as ScanCompletedView;
    expect(body.value).toEqual({
      rawEstimate: 123.45,
      gradedEstimate: 450,
      currency: 'USD',
      gradedValueSpread: [
        { grade: 7, value: 300, confidence: 'High' },
        { grade: 8, value: 450, confidence: 'Medium' },
        { grade: 10, value: 2500, confidence: 'Low' },
      ],
      reasons: [],
      freshness: { latestSaleDate: '2026-10-30', compCount: 12 },
      sampleData: true,
    });
    expectDocumentedScan(body);
  });

  it('renders missing coverage as null estimates with reasons, never as zero', () => {
    const body = presentScan(completed([MARKET], { value: uncoveredValue, market, inCatalog: false })) as ScanCompletedView;
    expect(body.value).toEqual({
      rawEstimate: null,
      gradedEstimate: null,
      currency: 'USD',
      gradedValueSpread: [],
      reasons: ['card not in catalog', 'no recent graded sales'],
      freshness: { latestSaleDate: null, compCount: 0 },
      sampleData: false,
    });
    expectDocumentedScan(body);

    const partial = presentScan(
      completed([FULL], {
        grading: grading({ back: false }),
        market,
        value: {
          ...coveredValue,
          gradedEstimateCents: 0,
          gradedEstimateUnavailableReason: 'no graded sales at 7',
          gradedValueSpread: [{ grade: 9, valueCents: 0, confidence: commonV1.ConfidenceLevel.HIGH }, ...coveredValue.gradedValueSpread],
        },
      }),
    ) as ScanCompletedView;
    expect(partial.value?.rawEstimate).toBe(123.45);
    expect(partial.value?.gradedEstimate).toBeNull();
    expect(partial.value?.reasons).toEqual(['no graded sales at 7']);
    expect(partial.value?.gradedValueSpread.map((e) => e.grade)).toEqual([7, 8, 10]);
    expectDocumentedScan(partial);

    const sameReason = presentScan(
      completed([MARKET], { value: { ...uncoveredValue, rawEstimateUnavailableReason: 'no sales for this card', gradedEstimateUnavailableReason: 'no sales for this card' }, market }),
    ) as ScanCompletedView;
    expect(sameReason.value?.reasons).toEqual(['no sales for this card']);
  });

  it('renders the market analysis with its trend', () => {
    const body = presentScan(completed([MARKET], { value: coveredValue, market })) as ScanCompletedView;
    expect(body.market).toEqual({
      insights: 'Prices are up on steady volume.',
      gradingRecommendation: 'grade',
      context: 'Based on sample data (demo deployment).',
      trend: { change30dPercent: 4.5, change90dPercent: -2.25, salesLast30Days: 8, salesLast90Days: 21 },
    });
  });

  it.each([
    [commonV1.GradingRecommendation.GRADE, 'grade'],
    [commonV1.GradingRecommendation.NEUTRAL, 'neutral'],
    [commonV1.GradingRecommendation.DONT_GRADE, 'dont_grade'],
    [commonV1.GradingRecommendation.SKIP, 'dont_grade'],
    [commonV1.GradingRecommendation.UNSPECIFIED, 'neutral'],
  ] as const)('maps grading recommendation %s to %s; thin data gives nulls', (recommendation, name) => {
    const thin: commonV1.MarketAnalysis = { insights: '', gradingRecommendation: recommendation, context: undefined, trend: undefined };
    const body = presentScan(completed([MARKET], { value: uncoveredValue, market: thin })) as ScanCompletedView;
    expect(body.market).toEqual({
      insights: '',
      gradingRecommendation: name,
      context: null,
      trend: { change30dPercent: null, change90dPercent: null, salesLast30Days: 0, salesLast90Days: 0 },
    });
    expectDocumentedScan(body);
  });

  it('renders a missing completion time as null', () => {
    const scan = completed([IDENTIFY]);
    if (scan.state?.$case === 'completed') scan.state.value.completedAt = undefined;
    const body = presentScan(scan) as ScanCompletedView;
    expect(body.completedAt).toBeNull();
    expectDocumentedScan(body);
  });

  it('is checked by the document: a graded scan without grading would not validate', () => {
    const body = presentScan(completed([GRADE], { grading: grading({ back: true }) })) as ScanCompletedView;
    const { grading: _dropped, ...withoutGrading } = body;
    expect(() => expectDocumentedScan(withoutGrading)).toThrow(/grading/);
  });
});

describe('presentScan: inconsistent scans', () => {
  it('throws (a 500) for a completed scan without a result or an unknown status', () => {
    expect(() => presentScan({ scanId: 1, status: scansV1.ScanStatus.COMPLETED, modules: [IDENTIFY], createdAt: undefined, state: undefined })).toThrow();
    expect(() => presentScan({ scanId: 1, status: scansV1.ScanStatus.UNSPECIFIED, modules: [IDENTIFY], createdAt: undefined, state: undefined })).toThrow();
  });
});

describe('centeringRatio and severityName', () => {
  it('turns the left/top share into both shares and rounded strings', () => {
    expect(centeringRatio({ leftRight: 50, topBottom: 50 })).toEqual({ leftRight: '50/50', topBottom: '50/50', left: 50, right: 50, top: 50, bottom: 50 });
    expect(centeringRatio({ leftRight: 44.44, topBottom: 65.55 })).toEqual({ leftRight: '44/56', topBottom: '66/34', left: 44.4, right: 55.6, top: 65.6, bottom: 34.4 });
    expect(centeringRatio({ leftRight: 120, topBottom: -5 })).toEqual({ leftRight: '100/0', topBottom: '0/100', left: 100, right: 0, top: 0, bottom: 100 });
  });

  it('buckets severity at 0.34 and 0.67', () => {
    expect([0, 0.33, 0.34, 0.66, 0.67, 1].map(severityName)).toEqual(['minor', 'minor', 'moderate', 'moderate', 'major', 'major']);
  });
});
