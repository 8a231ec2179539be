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
 *   gradeOrder           over every card with a professional grade (slab label): coverage (cards given a grade at
 *                        all) beside Spearman's rank correlation of the AI grade with the label's and within ±1
 *   labelled             against the hand labels (labels/labels-v1.json, by eye; LABELLING.md): which way is up
 *                        (the engine's reading of the card's top edge against the label's), holders (how each
 *                        labelled holder was taken: the engine recognises slabs only), coverage (adequate photos:
 *                        card in frame, out of a slab, 8+ px/mm; the share with front corners, edges and surface all
 *                        assessed), clean cards (seen clean by the labeller: graded ≥ 8, false major defects) and
 *                        defects per kind (per photo, front: recall over labelled photos, precision over marked ones)
 *   split                every figure again on the sources looked at while tuning (manifest.split.tunedOn) and on
 *                        the held-out ones, never looked at; `labels` gives the labels' size and agreement
 * Writes a per-photo table beside the manifest (out/bench-real.tsv) and, with BENCH_REAL_OVERLAYS=1, each card's
 * overlay (out/<id>.png). BENCH_REAL_FILTER=<regex on id> runs a subset. The LAST line is one JSON object.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AppError } from '@cardlens/errors';
import { createCardEngine, PHOTO_SUPPORT_LIMITS, quadArea, type CardAnalysis } from '@cardlens/vision';
import { isNearMint, loadRealSet, readRealImage, REAL_SET_DIR, type RealCard } from '@cardlens/vision/real-set';
import { agreement, labelsById, loadLabels, LABELS_FILE, type DefectKindLabel, type PhotoLabel } from '@cardlens/vision/real-labels';
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

/** In a recognised slab only the centering is assessed: the corners, edges and surface are seen through plastic. */
const inSlab = (r: Row): boolean => r.analysis?.sides.front.support.slab != null;

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

  // ---- per-photo table ----
  mkdirSync(OUT_DIR, { recursive: true });
  const header = ['id', 'game', 'lang', 'holder', 'kind', 'sides', 'found', 'pxPerMm', 'outline', 'slab', 'notAssessed', 'grade', 'predicted', 'centering', 'corners', 'edges', 'surface', 'defects', 'pro', 'nearMint', 'frontLR', 'frontTB', 'truthLR', 'truthTB', 'identified', 'truthId', 'idConfidence', 'title', 'number', 'error', 'ms', 'engineUp', 'quadPx', 'imageSize', 'ocrCapped'];
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
      JSON.stringify(e?.titleText ?? ''), JSON.stringify(e?.numberText ?? ''), r.error ?? '', Math.round(r.ms), r.analysis ? engineUp(r.analysis) : '',
      r.analysis ? JSON.stringify(r.analysis.sides.front.quadPx.map(([x, y]) => [round(x, 1), round(y, 1)])) : '', r.analysis ? `${r.analysis.sides.front.imageSize.width}x${r.analysis.sides.front.imageSize.height}` : '',
      r.analysis?.ocrWork?.capped ? 'yes' : '',
    ].join('\t');
  });
  writeFileSync(path.join(OUT_DIR, 'bench-real.tsv'), `${[header.join('\t'), ...lines].join('\n')}\n`);

  const allLabels = existsSync(LABELS_FILE) ? loadLabels() : [];
  const labels = labelsById(allLabels);
  const tunedOn = new Set(loadSplit().tunedOn);
  const summary = {
    ...measure(rows, labels),
    // The hand labels: how many photos, and how often two labellers of the same photo agreed.
    labels: { photos: labels.size, labellers: [...new Set(allLabels.map((l) => l.labeller))].sort(), agreement: agreement(allLabels) },
    // Every figure again on the sources looked at while the engine was tuned, and on those never looked at.
    split: {
      tunedOnSources: [...tunedOn].sort(),
      tunedOn: measure(rows.filter((r) => tunedOn.has(r.card.front.repo)), labels),
      heldOut: measure(rows.filter((r) => !tunedOn.has(r.card.front.repo)), labels),
    },
  };
  console.log(`real photos: ${summary.cards} cards, ${summary.photos} photos; per-photo table: ${path.relative(process.cwd(), path.join(OUT_DIR, 'bench-real.tsv'))}`);
  console.log(JSON.stringify(summary));
}

/**
 * The identification OCR's work on the photos analysed (packages/vision/src/evidence/ocrWork.ts): how many analyses
 * its allowance cut short (meant to be none on real photos), and the largest readings beside the limits they are
 * set from.
 */
function ocrWorkFigures(rows: Row[]) {
  const works = rows.flatMap((r) => (r.analysis?.ocrWork ? [r.analysis.ocrWork] : []));
  const figures = (values: number[]) => ({ p50: round(quantile(values, 0.5), 0), p99: round(quantile(values, 0.99), 0), max: round(Math.max(0, ...values), 0) });
  return {
    cut: works.filter((w) => w.capped).length,
    of: works.length,
    emsPerAnalysis: figures(works.map((w) => w.ems)),
    emsPerReading: figures(works.map((w) => w.largestReadingEms)),
    blobsPerCall: figures(works.map((w) => w.largestCallBlobs)),
    blobsPerAnalysis: figures(works.map((w) => w.blobs)),
  };
}

/** The manifest's split: the sources looked at while the engine was tuned (every other source is held out). */
function loadSplit(): { tunedOn: string[] } {
  const manifest = JSON.parse(readFileSync(path.join(REAL_SET_DIR, 'manifest.json'), 'utf8')) as { split?: { tunedOn: string[] } };
  return { tunedOn: manifest.split?.tunedOn ?? [] };
}

/** Spearman's rank correlation (average ranks for ties); null under 3 pairs. */
function spearman(xs: number[], ys: number[]): number | null {
  if (xs.length < 3) return null;
  const ranks = (v: number[]) => {
    const order = v.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(v.length);
    for (let i = 0; i < order.length; ) {
      let j = i;
      while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
      for (let k = i; k <= j; k++) r[order[k]![1]] = (i + j) / 2 + 1;
      i = j + 1;
    }
    return r;
  };
  const rx = ranks(xs);
  const ry = ranks(ys);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const mx = mean(rx);
  const my = mean(ry);
  let num = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < rx.length; i++) {
    num += (rx[i]! - mx) * (ry[i]! - my);
    dx += (rx[i]! - mx) ** 2;
    dy += (ry[i]! - my) ** 2;
  }
  return dx === 0 || dy === 0 ? null : round(num / Math.sqrt(dx * dy), 3);
}

/**
 * Grade order against professional grades (every card with a label grade, in a slab or not): coverage (cards given
 * a grade at all: something was assessed) beside Spearman and within ±1 over those given one.
 */
function gradeOrder(rows: Row[]) {
  const withPro = rows.filter((r) => r.card.grade);
  const graded = withPro.filter((r) => r.analysis && r.analysis.grading.predictedGrade !== null);
  const ai = graded.map((r) => r.analysis!.grading.grade);
  const pro = graded.map((r) => r.card.grade!.value);
  return {
    n: withPro.length,
    graded: graded.length,
    coverage: rate(graded.length, withPro.length),
    spearman: spearman(ai, pro),
    within1: rate(graded.filter((r) => Math.abs(r.analysis!.grading.grade - r.card.grade!.value) <= 1).length, graded.length),
  };
}

/** Degrees the photo must turn clockwise for the card to read as the engine reads it (from its top edge's direction). */
export function engineUp(analysis: CardAnalysis): 0 | 90 | 180 | 270 {
  const [tl, tr] = analysis.sides.front.quadPx;
  const angle = (Math.atan2(tr[1] - tl[1], tr[0] - tl[0]) * 180) / Math.PI; // clockwise from +x, image y down
  const quarter = (((Math.round(angle / 90) * 90) % 360) + 360) % 360;
  return ((360 - quarter) % 360) as 0 | 90 | 180 | 270;
}

const ENGINE_KINDS: Partial<Record<DefectKindLabel, string[]>> = {
  'corner-wear': ['corner_wear'],
  'edge-wear': ['edge_wear'],
  crease: ['crease'],
  scratch: ['scratch', 'scuff'],
  dent: ['dent'],
  stain: ['stain'],
  'print-line': ['print_line'],
};
const MAJOR = 0.67;

/** Figures against the hand labels (labels/labels-v1.json), each with the number of labelled photos it rests on. */
function labelledFigures(rows: Row[], labels: Map<string, PhotoLabel>) {
  const labelled = rows.filter((r) => labels.has(r.card.id));
  const found = labelled.filter((r) => r.analysis);
  const label = (r: Row) => labels.get(r.card.id)!;
  // Which way is up, where the label can tell and the engine found the card.
  const upKnown = found.filter((r) => label(r).up !== null);
  const upRight = upKnown.filter((r) => engineUp(r.analysis!) === label(r).up);
  // Holders: the engine recognises slabs only; how each labelled holder was taken.
  const holders = Object.fromEntries(
    (['none', 'sleeve', 'toploader', 'semi-rigid', 'slab', 'binder'] as const).map((h) => {
      const of = found.filter((r) => label(r).holder === h);
      return [h, { n: of.length, takenForSlab: of.filter(inSlab).length }];
    }),
  );
  // Adequate photos: card in frame, out of a slab, at least 8 px/mm on the card.
  const adequate = found.filter((r) => label(r).cardInFrame && label(r).holder !== 'slab' && (r.pxPerMm ?? 0) >= 8);
  const wearAssessed = (r: Row) => !['front_corners', 'front_edges', 'front_surface'].some((i) => r.analysis!.grading.notAssessed.includes(i as never));
  // Clean cards: the labeller could see wear and saw none.
  const clean = found.filter((r) => label(r).defectsVisible && label(r).defects.length === 0 && label(r).holder !== 'slab');
  const cleanGraded = clean.filter((r) => r.analysis!.grading.predictedGrade !== null);
  const majors = (r: Row) => r.analysis!.grading.defects.filter((d) => d.severity >= MAJOR).length;
  // Defects per kind, per photo: recall over photos labelled with the kind, precision over photos the engine marked.
  const judged = found.filter((r) => label(r).defectsVisible && label(r).holder !== 'slab');
  const defects = Object.fromEntries(
    Object.entries(ENGINE_KINDS).map(([kind, engineKinds]) => {
      const has = (r: Row) => label(r).defects.some((d) => d.kind === kind);
      const marked = (r: Row) => r.analysis!.grading.defects.some((d) => d.side === 'front' && engineKinds!.includes(d.kind));
      const labelledWith = judged.filter(has);
      const markedWith = judged.filter(marked);
      return [kind, { labelled: labelledWith.length, marked: markedWith.length, recall: rate(labelledWith.filter(marked).length, labelledWith.length), precision: rate(markedWith.filter(has).length, markedWith.length) }];
    }),
  );
  return {
    photos: labelled.length,
    orientation: { n: upKnown.length, right: rate(upRight.length, upKnown.length) },
    holders,
    coverage: { adequate: adequate.length, wearAssessed: rate(adequate.filter(wearAssessed).length, adequate.length) },
    clean: {
      n: clean.length,
      graded: cleanGraded.length,
      gradedAtLeast8: rate(cleanGraded.filter((r) => r.analysis!.grading.grade >= 8).length, cleanGraded.length),
      medianFalseMajorDefects: round(quantile(clean.map(majors), 0.5), 2),
    },
    defects: { judgedPhotos: judged.length, perKind: defects },
  };
}

/** Every figure of the bench over a slice of the rows (the whole set, the tuned-on or the held-out sources). */
function measure(rows: Row[], labels: Map<string, PhotoLabel>) {
  const toIdentify = rows.filter((r) => r.card.identity?.catalogId);
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

  return {
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
    gradeOrder: gradeOrder(rows),
    labelled: labelledFigures(rows, labels),
    ocrWork: ocrWorkFigures(rows),
    msPerCardP50: round(quantile(ms, 0.5), 0),
  };
}

await main();
