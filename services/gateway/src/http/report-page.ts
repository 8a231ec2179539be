import type { Response } from 'express';
import { ASPECTS } from '@cardlens/contracts';
import { escapeHtml } from './html';
import type { GradeView } from './grade-view';
import type { AssessedSubGradesView, CenteringRatioView, DefectView, EngineView, ScanCompletedView, ValueEstimateView } from './scan-view';

/**
 * The report page of a share link (GET /r/{token}): a completed scan for people, without an API key. One
 * self-contained HTML document: no scripts, no external resources, inline styles, the overlay from this same
 * link. Readable on a phone, printable, and accessible (landmarks, a heading per section, alt text, table
 * headers, contrast above WCAG AA). Grades are presented as AI estimates and the page carries the attribution
 * link the terms ask for wherever results appear.
 */

export const REPORT_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const ASPECT_LABELS: Record<(typeof ASPECTS)[number], string> = { centering: 'Centering', corners: 'Corners', edges: 'Edges', surface: 'Surface' };

const STYLE = [
  ':root{color-scheme:light}',
  'body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:#fff;max-width:46rem;margin:0 auto;padding:1rem;line-height:1.5}',
  'header{border-bottom:2px solid #1a1a1a;margin-bottom:1rem}',
  'h1{font-size:1.6rem;margin:.25rem 0}h2{font-size:1.25rem;margin:1.5rem 0 .5rem;border-bottom:1px solid #767676}h3{font-size:1.05rem;margin:1rem 0 .25rem}',
  '.sub{color:#3d3d3d;margin:0 0 .5rem}',
  '.notice{background:#fff4ce;border-left:4px solid #7a5c00;padding:.5rem .75rem}',
  '.grade{font-size:2.5rem;font-weight:700;line-height:1}.grade small{font-size:1rem;font-weight:400}',
  'table{border-collapse:collapse;width:100%;margin:.25rem 0}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #c8c8c8;vertical-align:top}',
  'th{font-weight:600}.num{text-align:right;font-variant-numeric:tabular-nums}',
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:0}dt{font-weight:600}dd{margin:0}',
  'img{max-width:100%;height:auto;border:1px solid #c8c8c8}',
  'footer{margin-top:2rem;border-top:1px solid #767676;padding-top:.5rem;font-size:.9rem;color:#3d3d3d}',
  'a{color:#0b4f9c}',
  '@media print{body{max-width:none;padding:0}a{color:#1a1a1a}.notice{border:1px solid #1a1a1a}h2{break-after:avoid}table,figure{break-inside:avoid}}',
].join('');

const text = (value: string | null | undefined, fallback = 'Not known'): string => escapeHtml(value && value.trim() !== '' ? value : fallback);
const usd = (value: number | null): string => (value === null ? 'No estimate' : `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`);
const gradeText = (value: number | null): string => (value === null ? 'Not assessed' : value.toFixed(1).replace(/\.0$/, ''));
const dateText = (iso: string | null): string => (iso ? escapeHtml(iso.slice(0, 10)) : 'Not known');

function identitySection(view: ScanCompletedView): string {
  const id = view.identification;
  const rows: [string, string][] = [
    ['Subject', id.subject],
    ['Set', id.set],
    ['Year', id.year],
    ['Number', id.number],
    ['Parallel', id.parallel],
    ['Print run', id.printRun],
    ['Category', id.category],
  ];
  const match = id.inCatalog ? `Matched in the catalog (confidence ${Math.round(id.confidence * 100)}%)` : 'Not matched to a catalog card';
  return (
    `<section aria-labelledby="identity"><h2 id="identity">Identification</h2><dl>` +
    rows.map(([label, value]) => `<dt>${label}</dt><dd>${text(value)}</dd>`).join('') +
    `<dt>Match</dt><dd>${escapeHtml(match)}</dd></dl></section>`
  );
}

function centeringRow(side: string, ratio: CenteringRatioView | null): string {
  if (!ratio) return `<tr><th scope="row">${side}</th><td colspan="2">Not assessed</td></tr>`;
  return `<tr><th scope="row">${side}</th><td class="num">${escapeHtml(ratio.leftRight)}</td><td class="num">${escapeHtml(ratio.topBottom)}</td></tr>`;
}

/** What the grade section shows: a scan's grading, or a commercial grade's (no defects list, no overlay kept). */
interface GradeShown {
  grade: number | null;
  subGrades: AssessedSubGradesView;
  confidence?: AssessedSubGradesView;
  summary: string;
  justification?: string;
  centering: { front: CenteringRatioView | null; back: CenteringRatioView | null };
  defects?: DefectView[];
  notAssessedReasons: { item: string; reason: string }[];
  engine: EngineView;
  overlaySrc?: string;
}

function gradingSection(grading: GradeShown): string {
  const assessed = ASPECTS.flatMap((aspect) => (grading.subGrades[aspect] === null ? [] : [{ aspect, value: grading.subGrades[aspect]! }]));
  const lowest = assessed.length > 0 ? assessed.reduce((low, item) => (item.value < low.value ? item : low)) : undefined;
  const limitedBy =
    grading.grade === null
      ? 'Nothing on the card could be assessed from these photos, so no grade is given.'
      : lowest
        ? `The lowest sub-grade, ${ASPECT_LABELS[lowest.aspect].toLowerCase()} at ${gradeText(lowest.value)}, limits the grade.`
        : '';
  const confidenceHeader = grading.confidence ? '<th scope="col" class="num">Confidence</th>' : '';
  const subGradeRows = ASPECTS.map((aspect) => {
    const confidence = grading.confidence?.[aspect];
    const confidenceCell = grading.confidence ? `<td class="num">${confidence === null || confidence === undefined ? '-' : `${Math.round(confidence * 100)}%`}</td>` : '';
    return `<tr><th scope="row">${ASPECT_LABELS[aspect]}</th><td class="num">${gradeText(grading.subGrades[aspect])}</td>${confidenceCell}</tr>`;
  }).join('');
  const defects =
    grading.defects === undefined
      ? ''
      : '<h3>Defects</h3>' +
        (grading.defects.length === 0
          ? '<p>No defects were found on the assessed parts of the card.</p>'
          : `<table><caption class="sub">Defects found</caption><thead><tr><th scope="col">Kind</th><th scope="col">Side</th><th scope="col">Where</th><th scope="col">Severity</th></tr></thead><tbody>` +
            grading.defects
              .map((d) => `<tr><td>${escapeHtml(d.kind.replace(/_/g, ' '))}</td><td>${d.side}</td><td>${text(d.location, '-')}</td><td>${d.severity}</td></tr>`)
              .join('') +
            '</tbody></table>');
  const notAssessed =
    grading.notAssessedReasons.length === 0
      ? ''
      : `<h3>Not assessed</h3><ul>${grading.notAssessedReasons.map((r) => `<li><strong>${escapeHtml(r.item)}</strong>: ${escapeHtml(r.reason)}</li>`).join('')}</ul>`;
  const overlay = grading.overlaySrc
    ? `<figure><img src="${escapeHtml(grading.overlaySrc)}" alt="The card photo with the measured card outline, the centering borders and each defect marked" width="640"><figcaption class="sub">Grading overlay: what was measured.</figcaption></figure>`
    : '';
  return (
    `<section aria-labelledby="grading"><h2 id="grading">AI condition estimate</h2>` +
    `<p class="notice"><strong>AI estimate.</strong> This grade is an estimate made by software from photos. It is not a certified grade from a grading company.</p>` +
    `<p class="grade">${gradeText(grading.grade)} <small>out of 10</small></p>` +
    `<p>${text(grading.summary, '')}</p><p><strong>What limited it:</strong> ${escapeHtml(limitedBy)} ${text(grading.justification, '')}</p>` +
    `<table><caption class="sub">Sub-grades (1-10)${grading.confidence ? ' and how sure each is' : ''}</caption><thead><tr><th scope="col">Aspect</th><th scope="col" class="num">Sub-grade</th>${confidenceHeader}</tr></thead><tbody>${subGradeRows}</tbody></table>` +
    `<h3>Centering</h3><table><thead><tr><th scope="col">Side</th><th scope="col" class="num">Left/right</th><th scope="col" class="num">Top/bottom</th></tr></thead><tbody>` +
    centeringRow('Front', grading.centering.front) +
    centeringRow('Back', grading.centering.back) +
    `</tbody></table>${defects}${notAssessed}${overlay}` +
    `<p class="sub">Grading engine ${text(grading.engine.version, 'unversioned')}, rubric ${text(grading.engine.rubricVersion, 'unversioned')}.</p></section>`
  );
}

function sourceText(source: ValueEstimateView['sources']['raw']): string {
  if (!source) return '';
  return ` <span class="sub">(${escapeHtml(source.name)}, ${escapeHtml(source.asOf)}, ${source.dataPoints} data point${source.dataPoints === 1 ? '' : 's'}${source.attribution ? `; ${escapeHtml(source.attribution)}` : ''})</span>`;
}

function valueSection(view: ScanCompletedView): string {
  const value = view.value;
  if (!value) return '';
  const range = value.rawRange ? ` <span class="sub">(listings ${usd(value.rawRange.low)} to ${usd(value.rawRange.high)})</span>` : '';
  const spread =
    value.gradedValueSpread.length === 0
      ? ''
      : `<table><caption class="sub">Estimated value by grade</caption><thead><tr><th scope="col">Grade</th><th scope="col" class="num">Value</th><th scope="col">Confidence</th></tr></thead><tbody>` +
        value.gradedValueSpread.map((e) => `<tr><th scope="row">${gradeText(e.grade)}</th><td class="num">${usd(e.value)}</td><td>${e.confidence}</td></tr>`).join('') +
        '</tbody></table>';
  const market = view.market;
  const trend = market?.trend;
  const change = (v: number | null) => (v === null ? 'not known' : `${v > 0 ? '+' : ''}${v.toFixed(1)}%`);
  return (
    `<section aria-labelledby="value"><h2 id="value">Value estimate (USD)</h2><dl>` +
    `<dt>Raw</dt><dd>${usd(value.rawEstimate)}${range}${sourceText(value.sources.raw)}</dd>` +
    `<dt>Graded</dt><dd>${usd(value.gradedEstimate)}${sourceText(value.sources.graded)}</dd>` +
    (value.printing ? `<dt>Printing</dt><dd>${escapeHtml(value.printing)}</dd>` : '') +
    `<dt>Latest data</dt><dd>${dateText(value.freshness.latestSaleDate)}</dd></dl>` +
    (value.sampleData ? '<p class="notice">These figures come from sample sales data, not from a market feed.</p>' : '') +
    (value.reasons.length > 0 ? `<ul>${value.reasons.map((r) => `<li>${escapeHtml(r)}</li>`).join('')}</ul>` : '') +
    spread +
    (market
      ? `<h3>Market</h3><p>${text(market.insights, '')}</p>` +
        `<p>30-day change ${change(trend?.change30dPercent ?? null)}, 90-day change ${change(trend?.change90dPercent ?? null)}. ` +
        `Grading recommendation: ${escapeHtml(market.gradingRecommendation.replace('_', ' '))}.</p>`
      : '') +
    '</section>'
  );
}

function page(kind: 'scan' | 'grade', title: string, subtitle: string, main: string, footer: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="robots" content="noindex, nofollow"><link rel="icon" href="data:,"><title>${escapeHtml(title)}: CardLens report</title><style>${STYLE}</style></head><body>` +
    `<header><p class="sub">CardLens ${kind} report</p><h1>${escapeHtml(title)}</h1>${subtitle ? `<p class="sub">${escapeHtml(subtitle)}</p>` : ''}</header>` +
    `<main>${main}</main><footer>${footer}</footer></body></html>`
  );
}

function footer(options: { baseUrl: string; expiresAt: string | null }, madeAt: string | null, values: boolean): string {
  return (
    `<p>Grades are AI estimates, not certified grades.${values ? ' Values are estimates from the market data named beside them.' : ''}</p>` +
    `<p>Report by <a href="${escapeHtml(options.baseUrl)}/api-docs">CardLens</a>, made ${dateText(madeAt)}. ` +
    `This link ${options.expiresAt ? `works until ${dateText(options.expiresAt)}` : 'may be revoked'} unless its owner revokes it sooner.</p>`
  );
}

type PageOptions = { token: string; baseUrl: string; expiresAt: string | null };

/** A scan's page. `token` only builds the overlay's path (relative, so the page works behind any prefix). */
export function renderReportPage(view: ScanCompletedView, options: PageOptions): string {
  const id = view.identification;
  const title = id.name.trim() !== '' ? id.name : 'Unidentified card';
  const subtitle = [id.set, id.year, id.number ? `#${id.number}` : ''].filter((part) => part.trim() !== '').join(' · ');
  const grading = view.grading
    ? gradingSection({
        grade: view.grading.grade,
        subGrades: view.grading.subGrades,
        confidence: view.grading.subGradeConfidence,
        summary: view.grading.summary,
        justification: view.grading.justification,
        centering: view.grading.centering,
        defects: view.grading.defects,
        notAssessedReasons: view.grading.notAssessedReasons,
        engine: view.grading.engine,
        ...(view.grading.links.overlay ? { overlaySrc: `${options.token}/overlay.png` } : {}),
      })
    : '';
  return page('scan', title, subtitle, identitySection(view) + grading + valueSection(view), footer(options, view.completedAt, view.value !== undefined));
}

/** A commercial grade's page: the condition only (a commercial grade has no identification, value or photos kept). */
export function renderGradeReportPage(view: GradeView, options: PageOptions): string {
  const grading = view.grading!;
  const main = gradingSection({
    grade: grading.grade,
    subGrades: grading.subGrades,
    summary: grading.summary,
    centering: grading.centering,
    notAssessedReasons: grading.notAssessedReasons,
    engine: grading.engine,
  });
  return page('grade', `Grade ${view.gradeId}`, '', main, footer(options, view.completedAt, false));
}

/** The page a browser gets for an unknown, expired or revoked link (status 404). */
export function renderReportGone(baseUrl: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="robots" content="noindex, nofollow"><link rel="icon" href="data:,"><title>Report not found: CardLens</title><style>${STYLE}</style></head><body><main>` +
    `<h1>Report not found</h1><p>This report link does not exist, has expired or was revoked by its owner. Ask them for a new link.</p>` +
    `<p><a href="${escapeHtml(baseUrl)}/api-docs">CardLens</a></p></main></body></html>`
  );
}

/** Headers of both: not indexed, not cached (a revoked link must stop showing at once), no referrer (the token is in the URL). */
export function setReportHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', REPORT_PAGE_CSP);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Robots-Tag', 'noindex, nofollow');
}
