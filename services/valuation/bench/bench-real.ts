/**
 * npm run bench:real — the vision engine and identification on real photographs of physical cards (the
 * development set described by packages/vision/bench/real/manifest.json: its committed fixtures, plus the
 * git-ignored photos when `npm run real:fetch` has filled them).
 *
 * Per card: the engine on front (+ back) with identification evidence, then identifyCard against the whole
 * catalog when the card has a catalog id (BENCH_REAL_IDENTIFY=0 skips the catalog). Measures:
 *   detectionRate        sides where a card-shaped outline was found / sides tried (an outline outside the bare
 *                        card's proportions, PHOTO_SUPPORT_LIMITS.outlineAspectRange, is a slab or holder or not
 *                        the card: not counted); detectionStandardSize the same without the minis (smaller cards the
 *                        engine is not built for) and the photos that show no whole card outline (`outlineShown`
 *                        false: scans cropped into the card); `minis` and `outlineNotShown` their photos and the
 *                        card-shaped outlines found in them (never the card's)
 *   identification       top-1 over English catalog cards, and per field (name, number, set)
 *   grade                AI grade vs the professional grade on the slab label: exact (predicted PSA-like grade) and
 *                        within ±1, over graded cards whose photo is adequate: the engine assessed the front's
 *                        corners, edges and surface (a card-shaped outline, enough pixels per mm, sharp enough)
 *   nearMint             over near-mint cards with adequate photos: median grade, share graded ≥ 8, and median count
 *                        of marked defects (every defect the engine marks on them is a false one); `found` counts
 *                        all near-mint cards whose card was found, assessed or not; `bareSurfaceAssessed` the same
 *                        over near-mint cards out of any holder whose front surface was assessed, corners and edges
 *                        assessed or not (what a bare card's grade rests on when its outline cannot show its wear)
 *   slabs                recognition (slabs whose label was found, bare cards taken for slabs), the recognised
 *                        slabs whose centering was measured (in a slab nothing else is), and their grades against
 *                        the label's (`vsLabel`: within ±1, more than one above, more than one below; `predicted`:
 *                        the predicted professional grade against the label's, over the slabs given one)
 *   tightScans           the scans the manifest says are cropped tightly to the card (its notes): the share whose
 *                        outline covers at least TIGHT_SCAN_MIN_COVER of the photo, the card's whole face
 *   centering            |engine share - hand-measured share| in points, median and p90, over both axes of the
 *                        sides whose centering the engine assessed (`n` sides); `notAssessed` counts the hand-measured
 *                        sides where it said it could not measure
 *   frontNothingAssessed photos whose front was found but could support none of centering, corners, edges and
 *                        surface (too few pixels per mm, a slab with no sure frame...): their grade is "nothing seen",
 *                        an upper bound and not a measurement, and no professional grade is predicted (these photos
 *                        are fronts only); `of` is the photos whose front was found
 * Writes a per-photo table beside the manifest (out/bench-real.tsv) and, with BENCH_REAL_OVERLAYS=1, each card's
 * overlay (out/<id>.png). BENCH_REAL_FILTER=<regex on id> runs a subset. The LAST line is one JSON object.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AppError } from '@cardlens/errors';
import { createCardEngine, PHOTO_SUPPORT_LIMITS, quadArea, type CardAnalysis } from '@cardlens/vision';
import { isNearMint, loadRealSet, readRealImage, REAL_SET_DIR, type RealCard } from '@cardlens/vision/real-set';
import { FingerprintIndex } from '../src/identification/fingerprint-index';
import { identifyCard, type IdentifyResult } from '../src/use-cases/identify-card';
import { openCatalog } from './catalog';
import { evidenceOf } from './evidence';

/**
 * Share of a tightly cropped scan's area its outline must cover to be the card's: a card-shaped outline that stops
 * short along the card's length, or follows its printed frame inside the border, covers 0.8-0.9.
 */
const TIGHT_SCAN_MIN_COVER = 0.93;

const FILTER = process.env.BENCH_REAL_FILTER ? new RegExp(process.env.BENCH_REAL_FILTER) : undefined;
const IDENTIFY = process.env.BENCH_REAL_IDENTIFY !== '0';
const OVERLAYS = process.env.BENCH_REAL_OVERLAYS === '1';
const OUT_DIR = path.join(REAL_SET_DIR, 'out');

const quantile = (xs: number[], q: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  return s[Math.floor(i)]! + (s[Math.ceil(i)]! - s[Math.floor(i)]!) * (i - Math.floor(i));
};
const round = (x: number, d = 3): number => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : x);
const rate = (hits: number, n: number): number | null => (n === 0 ? null : round(hits / n, 4));

interface Row {
  card: RealCard;
  sidesTried: number;
  sidesFound: number;
  error?: string;
  analysis?: CardAnalysis;
  pxPerMm?: number;
  identified?: IdentifyResult;
  ms: number;
}

/** A side found with the proportions of a bare card (not a slab's, a holder's or the table's). */
function cardShaped(analysis: CardAnalysis, side: 'front' | 'back'): boolean {
  const aspect = analysis.sides[side]?.support.outlineAspect;
  const [lo, hi] = PHOTO_SUPPORT_LIMITS.outlineAspectRange;
  return aspect !== undefined && aspect >= lo && aspect <= hi;
}

async function main(): Promise<void> {
  const all = loadRealSet();
  const cards = all.filter((c) => (!FILTER || FILTER.test(c.id)) && readRealImage(c.front) !== undefined);
  const missing = all.length - cards.length;
  process.stderr.write(`real set: ${cards.length} cards on this machine${missing ? `, ${missing} not here (npm run real:fetch)` : ''}\n`);
  const engine = await createCardEngine();
  await engine.warmUp();
  if (OVERLAYS) mkdirSync(OUT_DIR, { recursive: true });

  const rows: Row[] = [];
  for (const [i, card] of cards.entries()) {
    const front = readRealImage(card.front)!;
    const back = card.back ? readRealImage(card.back) : undefined;
    const row: Row = { card, sidesTried: back ? 2 : 1, sidesFound: 0, ms: 0 };
    const t = performance.now();
    try {
      row.analysis = await engine.analyzeCard({ front, ...(back ? { back } : {}) }, { evidence: true, overlay: OVERLAYS });
      row.sidesFound = (['front', 'back'] as const).filter((s) => cardShaped(row.analysis!, s)).length;
      row.pxPerMm = row.analysis.sides.front.support.pxPerMm;
      if (OVERLAYS && row.analysis.overlayPng) writeFileSync(path.join(OUT_DIR, `${card.id}.png`), row.analysis.overlayPng);
    } catch (error) {
      row.error = error instanceof AppError ? error.code : String(error);
      // Whether the front alone is found, so a failing back does not hide a found front.
      if (back) {
        try {
          row.analysis = await engine.analyzeCard({ front }, { evidence: true, overlay: OVERLAYS });
          row.sidesFound = cardShaped(row.analysis, 'front') ? 1 : 0;
          row.pxPerMm = row.analysis.sides.front.support.pxPerMm;
        } catch {
          // neither side found
        }
      }
    }
    row.ms = performance.now() - t;
    rows.push(row);
    if ((i + 1) % 10 === 0) process.stderr.write(`engine ${i + 1}/${cards.length}\n`);
  }
  await engine.close();

  const toIdentify = rows.filter((r) => r.card.identity?.catalogId);
  if (IDENTIFY && toIdentify.length > 0) {
    const { prisma, close } = await openCatalog();
    const fingerprints = new FingerprintIndex();
    for (const r of toIdentify) r.identified = await identifyCard({ prisma, fingerprints }, evidenceOf(r.analysis));
    // Truth fields of each catalog card, for the per-field rates.
    for (const r of toIdentify) {
      const [truth] = await prisma.$queryRawUnsafe<{ name: string; number: string; set_name: string }[]>(
        'SELECT name, number, set_name FROM valuation.catalog_cards WHERE id = $1',
        r.card.identity!.catalogId,
      );
      if (truth) r.card.identity = { ...r.card.identity, name: truth.name, number: truth.number, set: truth.set_name };
    }
    await close();
  }

  // ---- measures ----
  const sidesTried = rows.reduce((a, r) => a + r.sidesTried, 0);
  const sidesFound = rows.reduce((a, r) => a + r.sidesFound, 0);
  // Minis are smaller cards (Allen & Ginter, Gypsy Queen: about 37 x 67 mm, 0.55 wide per high): the engine is built
  // for the standard 63 x 88 mm, so a mini never has a card-shaped outline, and where one was found it is not the mini.
  const standard = rows.filter((r) => r.card.size === undefined && r.card.outlineShown !== false);
  const minis = rows.filter((r) => r.card.size === 'mini');
  // A scan cropped into the card shows none of its edges on two sides: there is no outline to find.
  const outlineNotShown = rows.filter((r) => r.card.outlineShown === false);
  // Photos left out of the detection rate, and the card-shaped outlines found in them (never the card's).
  const photosAndCardShaped = (rs: Row[]) => ({ photos: rs.reduce((a, r) => a + r.sidesTried, 0), cardShaped: rs.reduce((a, r) => a + r.sidesFound, 0) });
  const english = toIdentify.filter((r) => r.card.language === 'en' && r.identified);
  const top1 = english.filter((r) => r.identified!.cardId === r.card.identity!.catalogId).length;
  const fieldRate = (f: 'name' | 'number' | 'set') => {
    const norm = (s: string | undefined) => (s ?? '').toLowerCase().replace(/^0+(?=\d)/, '').trim();
    const hits = english.filter((r) => {
      const got = r.identified!.identification[f];
      const want = r.card.identity![f];
      return f === 'number' ? norm(got.split('/')[0]) === norm(want) : norm(got) === norm(want);
    }).length;
    return rate(hits, english.length);
  };
  // Adequate: the engine assessed the front's wear (a card-shaped outline, enough pixels per mm, sharp enough).
  const assessed = (r: Row) => r.analysis !== undefined && !['front_corners', 'front_edges', 'front_surface'].some((i) => r.analysis!.grading.notAssessed.includes(i as never));
  const graded = rows.filter((r) => r.card.grade && assessed(r));
  const gradeExact = graded.filter((r) => r.analysis!.grading.predictedGrade === Math.floor(r.card.grade!.value)).length;
  const gradeWithin1 = graded.filter((r) => Math.abs(r.analysis!.grading.grade - r.card.grade!.value) <= 1).length;
  const nearMintFound = rows.filter((r) => isNearMint(r.card) && r.analysis);
  const nearMint = nearMintFound.filter(assessed);
  const nmGrades = nearMint.map((r) => r.analysis!.grading.grade);
  const nmDefects = nearMint.map((r) => r.analysis!.grading.defects.length);
  const bareNearMint = nearMintFound.filter((r) => r.card.holder === 'none' && !r.analysis!.grading.notAssessed.includes('front_surface'));
  // In a recognised slab only the centering is assessed: the corners, edges and surface are seen through plastic.
  const inSlab = (r: Row) => r.analysis?.sides.front.support.slab != null;
  const slabFronts = rows.filter(inSlab);
  const slabGradeGaps = slabFronts.filter((r) => r.card.grade).map((r) => r.analysis!.grading.grade - r.card.grade!.value);
  // The recognised slabs for which a professional grade was predicted (none where nothing was assessed).
  const slabPredictedGaps = slabFronts
    .filter((r) => r.card.grade && r.analysis!.grading.predictedGrade !== null)
    .map((r) => r.analysis!.grading.predictedGrade! - Math.floor(r.card.grade!.value));
  const frontFound = rows.filter((r) => r.analysis);
  const centeringErrors: number[] = [];
  let centeringSides = 0;
  let centeringNotAssessed = 0;
  for (const r of rows) {
    for (const side of ['front', 'back'] as const) {
      const truth = r.card.centering?.[side];
      const got = r.analysis?.sides[side]?.centering;
      if (!truth || !got || !cardShaped(r.analysis!, side)) continue;
      // Where the engine says it cannot measure the frame, its shares are not its answer.
      if (r.analysis!.grading.notAssessed.includes(`${side}_centering`)) {
        centeringNotAssessed++;
        continue;
      }
      centeringSides++;
      centeringErrors.push(Math.abs(got.leftRight - truth.leftRight), Math.abs(got.topBottom - truth.topBottom));
    }
  }
  const ms = rows.filter((r) => r.analysis).map((r) => r.ms);
  // Scans the manifest says are cropped tightly to the card: the card is the photo, so its outline should cover it.
  const tightScans = rows.filter((r) => /tightly cropped scan/.test(r.card.notes ?? '') && r.analysis);
  const coversPhoto = (r: Row): boolean => {
    const { quadPx, imageSize } = r.analysis!.sides.front;
    return quadArea(quadPx) >= TIGHT_SCAN_MIN_COVER * imageSize.width * imageSize.height;
  };

  // ---- per-photo table ----
  mkdirSync(OUT_DIR, { recursive: true });
  const header = ['id', 'game', 'lang', 'holder', 'kind', 'sides', 'found', 'pxPerMm', 'outline', 'slab', 'notAssessed', 'grade', 'predicted', 'centering', 'corners', 'edges', 'surface', 'defects', 'pro', 'nearMint', 'frontLR', 'frontTB', 'truthLR', 'truthTB', 'identified', 'truthId', 'idConfidence', 'title', 'number', 'error', 'ms'];
  const lines = rows.map((r) => {
    const g = r.analysis?.grading;
    const c = r.analysis?.sides.front.centering;
    const e = r.analysis?.evidence;
    return [
      r.card.id, r.card.game, r.card.language, r.card.holder, r.card.kind, r.sidesTried, r.sidesFound, round(r.pxPerMm ?? NaN, 1),
      round(r.analysis?.sides.front.support.outlineAspect ?? NaN, 2), inSlab(r) ? 'slab' : '', g ? g.notAssessed.join(' ') : '',
      g?.grade ?? '', g?.predictedGrade ?? '', g?.subGrades.centering ?? '', g?.subGrades.corners ?? '', g?.subGrades.edges ?? '', g?.subGrades.surface ?? '',
      g ? g.defects.map((d) => `${d.side[0]}:${d.kind}@${d.location}:${round(d.severity, 2)}`).join(' ') : '',
      r.card.grade ? `${r.card.grade.company} ${r.card.grade.value}` : '', isNearMint(r.card) ? 'yes' : '',
      round(c?.leftRight ?? NaN, 1), round(c?.topBottom ?? NaN, 1), r.card.centering?.front?.leftRight ?? '', r.card.centering?.front?.topBottom ?? '',
      r.identified ? (r.identified.cardId ?? `not-in-catalog: ${r.identified.reason}`) : '', r.card.identity?.catalogId ?? '', r.identified ? round(r.identified.confidence, 2) : '',
      JSON.stringify(e?.titleText ?? ''), JSON.stringify(e?.numberText ?? ''), r.error ?? '', Math.round(r.ms),
    ].join('\t');
  });
  writeFileSync(path.join(OUT_DIR, 'bench-real.tsv'), `${[header.join('\t'), ...lines].join('\n')}\n`);

  const summary = {
    cards: rows.length,
    photos: sidesTried,
    detectionRate: rate(sidesFound, sidesTried),
    detectionStandardSize: rate(standard.reduce((a, r) => a + r.sidesFound, 0), standard.reduce((a, r) => a + r.sidesTried, 0)),
    minis: photosAndCardShaped(minis),
    outlineNotShown: photosAndCardShaped(outlineNotShown),
    identification: { n: english.length, top1: rate(top1, english.length), name: fieldRate('name'), number: fieldRate('number'), set: fieldRate('set') },
    grade: { n: graded.length, gradedTotal: rows.filter((r) => r.card.grade).length, exact: rate(gradeExact, graded.length), within1: rate(gradeWithin1, graded.length) },
    nearMint: {
      found: nearMintFound.length,
      n: nearMint.length,
      medianGrade: round(quantile(nmGrades, 0.5), 2),
      gradedAtLeast8: rate(nmGrades.filter((g) => g >= 8).length, nmGrades.length),
      medianFalseDefects: round(quantile(nmDefects, 0.5), 2),
      bareSurfaceAssessed: {
        n: bareNearMint.length,
        medianGrade: round(quantile(bareNearMint.map((r) => r.analysis!.grading.grade), 0.5), 2),
        gradedAtLeast8: rate(bareNearMint.filter((r) => r.analysis!.grading.grade >= 8).length, bareNearMint.length),
        medianFalseDefects: round(quantile(bareNearMint.map((r) => r.analysis!.grading.defects.length), 0.5), 2),
      },
    },
    slabs: {
      // Recognition on the fronts found: slabs (by the manifest) whose label was found, bare cards taken for slabs.
      recognised: `${slabFronts.filter((r) => r.card.holder === 'slab').length}/${frontFound.filter((r) => r.card.holder === 'slab').length}`,
      bareTakenForSlab: `${slabFronts.filter((r) => r.card.holder !== 'slab').length}/${frontFound.filter((r) => r.card.holder !== 'slab').length}`,
      // Recognised slabs whose front centering was measured: the only aspect a slab's plastic leaves to measure.
      centeringAssessed: `${slabFronts.filter((r) => !r.analysis!.grading.notAssessed.includes('front_centering')).length}/${slabFronts.length}`,
      // Their grades (an upper bound where nothing else is seen) against the label's: within ±1, and more than one
      // grade above and below it.
      vsLabel: {
        n: slabGradeGaps.length,
        within1: rate(slabGradeGaps.filter((d) => Math.abs(d) <= 1).length, slabGradeGaps.length),
        above: slabGradeGaps.filter((d) => d > 1).length,
        below: slabGradeGaps.filter((d) => d < -1).length,
        predicted: {
          n: slabPredictedGaps.length,
          exact: rate(slabPredictedGaps.filter((d) => d === 0).length, slabPredictedGaps.length),
          within1: rate(slabPredictedGaps.filter((d) => Math.abs(d) <= 1).length, slabPredictedGaps.length),
        },
      },
    },
    tightScans: { n: tightScans.length, outlineCoversPhoto: rate(tightScans.filter(coversPhoto).length, tightScans.length) },
    centering: { n: centeringSides, notAssessed: centeringNotAssessed, medianError: round(quantile(centeringErrors, 0.5), 2), p90Error: round(quantile(centeringErrors, 0.9), 2) },
    frontNothingAssessed: {
      photos: frontFound.filter((r) => (['front_centering', 'front_corners', 'front_edges', 'front_surface'] as const).every((i) => r.analysis!.grading.notAssessed.includes(i))).length,
      of: frontFound.length,
    },
    msPerCardP50: round(quantile(ms, 0.5), 0),
  };
  console.log(`real photos: ${summary.cards} cards, ${summary.photos} photos; per-photo table: ${path.relative(process.cwd(), path.join(OUT_DIR, 'bench-real.tsv'))}`);
  console.log(JSON.stringify(summary));
}

await main();
