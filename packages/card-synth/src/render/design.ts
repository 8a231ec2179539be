// Card designs as SVG in millimetres (viewBox 0 0 63 88), so one design renders identically at any scale.
// A design is drawn once from the seed (colours, art shapes, filler text) and placed relative to the printed
// frame rectangle, which the condition moves around to set the centering.
import type { Side } from '@cardlens/grading-rubric';
import { bodyColour, type CardSpec, type Rgb } from '../card';
import { hsl, luminance, rgbHex, type Rng } from '../prng';
import { noiseTile, NOISE_TILE_COUNT } from './assets';
import { attackName, capitalize, escapeXml, fitFont, sentence, textWidthEm, word } from './words';

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export type TextRole = 'title' | 'number' | 'copyright' | 'serial' | 'brand' | 'hp' | 'subset';

/** Where a piece of identifying text is printed (mm on that side; approximate box from font metrics). */
export interface TextBox {
  role: TextRole;
  side: Side;
  text: string;
  xMm: number;
  yMm: number;
  wMm: number;
  hMm: number;
}

interface ArtShape {
  type: 'circle' | 'ellipse' | 'poly' | 'wave' | 'star';
  /** Unit coordinates relative to the art rectangle. */
  x: number;
  y: number;
  rx: number;
  ry: number;
  rot: number;
  points: number;
  colour: Rgb;
  colour2: Rgb;
  opacity: number;
}

interface Art {
  bgA: Rgb;
  bgB: Rgb;
  bgAngle: number;
  tile: number;
  tileOpacity: number;
  shapes: ArtShape[];
  creature: { x: number; y: number; size: number; colour: Rgb; eye: Rgb } | null;
}

interface Player {
  x: number;
  scale: number;
  skin: Rgb;
  pose: number;
  hasBat: boolean;
}

export interface CardDesign {
  spec: CardSpec;
  /** Nominal (centred) border widths [left/right, top/bottom] per side, mm. */
  borders: Record<Side, [number, number]>;
  borderRgb: Record<Side, Rgb>;
  frameLineRgb: Record<Side, Rgb>;
  frameLineWidth: Record<Side, number>;
  body: Rgb;
  accent: Rgb;
  art: Art;
  holoAngle: number;
  holoCentre: [number, number];
  sparkles: [number, number, number][];
  // Pokemon
  stageText: string;
  infoText: string;
  attacks: { name: string; damage: string; energy: number; lines: string[] }[];
  trainerLines: string[];
  // Sports
  player: Player;
  sky: [Rgb, Rgb];
  field: Rgb;
  crowd: [number, number, number, Rgb][];
  brand: string;
  position: string;
  // Backs
  backPanel: Rgb;
  bioLines: string[];
  statHeader: string;
  statRows: string[];
  blurb: string[];
  pokeBackSwirl: { rx: number; ry: number; rot: number }[];
}

function frameLineFor(border: Rgb, preferred: Rgb): Rgb {
  // The frame edge is what centering is measured against: keep it well contrasted with the border.
  const lb = luminance(border);
  if (Math.abs(lb - luminance(preferred)) >= 90) return preferred;
  return lb > 110 ? [28, 28, 34] : [232, 232, 236];
}

function darken(c: Rgb, f: number): Rgb {
  return [c[0] * f, c[1] * f, c[2] * f];
}

function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

function makeArt(rng: Rng, pokemon: boolean, base: Rgb): Art {
  const hue = rng.range(0, 360);
  const shapes: ArtShape[] = [];
  const n = rng.int(5, 11);
  for (let i = 0; i < n; i++) {
    shapes.push({
      type: rng.pick(['circle', 'ellipse', 'poly', 'wave', 'star'] as const),
      x: rng.range(0, 1),
      y: rng.range(0, 1),
      rx: rng.range(0.05, 0.35),
      ry: rng.range(0.05, 0.35),
      rot: rng.range(0, 180),
      points: rng.int(3, 7),
      colour: hsl(hue + rng.range(-80, 80), rng.range(0.4, 0.9), rng.range(0.3, 0.8)),
      colour2: hsl(hue + rng.range(-120, 120), rng.range(0.3, 0.9), rng.range(0.2, 0.7)),
      opacity: rng.range(0.35, 0.9),
    });
  }
  return {
    bgA: mix(hsl(hue, rng.range(0.3, 0.7), rng.range(0.55, 0.85)), base, 0.2),
    bgB: hsl(hue + rng.range(30, 150), rng.range(0.3, 0.8), rng.range(0.25, 0.6)),
    bgAngle: rng.range(0, 180),
    tile: rng.int(0, NOISE_TILE_COUNT - 1),
    tileOpacity: rng.range(0.12, 0.3),
    shapes,
    creature: pokemon
      ? {
          x: rng.range(0.35, 0.65),
          y: rng.range(0.5, 0.65),
          size: rng.range(0.25, 0.4),
          colour: hsl(rng.range(0, 360), rng.range(0.4, 0.8), rng.range(0.45, 0.7)),
          eye: [20, 20, 30],
        }
      : null,
  };
}

function statTable(rng: Rng, game: string, year: number): { header: string; rows: string[] } {
  const team = () => word(rng, 1, 2).slice(0, 3).toUpperCase().padEnd(4);
  const pad = (v: number | string, n: number) => String(v).padStart(n);
  const rows: string[] = [];
  const nRows = rng.int(5, 8);
  let header: string;
  for (let i = nRows; i >= 1; i--) {
    const yr = String((year - i) % 100).padStart(2, '0');
    const t = team();
    if (game === 'basketball') {
      rows.push(`${yr} ${t}${pad(rng.int(40, 82), 3)}${pad(rng.range(0.38, 0.55).toFixed(3).slice(1), 5)}${pad(rng.range(0.6, 0.9).toFixed(3).slice(1), 5)}${pad(rng.int(100, 900), 4)}${pad(rng.int(50, 700), 4)}${pad(rng.int(300, 2400), 5)}`);
    } else if (game === 'football') {
      rows.push(`${yr} ${t}${pad(rng.int(8, 17), 3)}${pad(rng.int(20, 350), 4)}${pad(rng.int(80, 1800), 5)}${pad(rng.range(2.5, 6.5).toFixed(1), 5)}${pad(rng.int(0, 18), 3)}`);
    } else if (game === 'hockey') {
      rows.push(`${yr} ${t}${pad(rng.int(40, 82), 3)}${pad(rng.int(2, 50), 3)}${pad(rng.int(5, 70), 3)}${pad(rng.int(10, 110), 4)}${pad(rng.int(4, 120), 4)}`);
    } else {
      const ab = rng.int(150, 650);
      const h = Math.round(ab * rng.range(0.2, 0.33));
      rows.push(`${yr} ${t}${pad(rng.int(40, 162), 4)}${pad(ab, 4)}${pad(rng.int(15, 120), 4)}${pad(h, 4)}${pad(rng.int(0, 45), 3)}${pad(rng.int(10, 130), 4)}${pad((h / ab).toFixed(3).slice(1), 5)}`);
    }
  }
  if (game === 'basketball') header = 'YR TEAM  G  FG%  FT%  REB AST  PTS';
  else if (game === 'football') header = 'YR TEAM  G ATT  YDS  AVG TD';
  else if (game === 'hockey') header = 'YR TEAM GP  G  A PTS PIM';
  else header = 'YR TEAM    G  AB   R   H HR RBI  AVG';
  return { header, rows };
}

export function createDesign(spec: CardSpec, rng: Rng): CardDesign {
  const pokemon = spec.game === 'pokemon';
  const body = bodyColour(spec, rng);
  const accent = pokemon ? darken(body, 0.55) : hsl(rng.range(0, 360), rng.range(0.5, 0.9), rng.range(0.25, 0.45));
  const frontBorder = spec.borderRgb;
  const backBorder: Rgb = pokemon
    ? [rng.range(40, 56), rng.range(100, 120), rng.range(196, 214)]
    : rng.pick<Rgb>([
        [214, 206, 186],
        [244, 242, 236],
        [196, 196, 200],
        [226, 220, 204],
      ]);
  const frontBorders: [number, number] = pokemon
    ? [rng.range(2.7, 3.3), rng.range(2.8, 3.4)]
    : [rng.range(2.8, 4.4), rng.range(2.8, 4.6)];
  const backBorders: [number, number] = pokemon
    ? [rng.range(3.2, 3.8), rng.range(3.2, 3.8)]
    : [rng.range(2.6, 4.0), rng.range(2.6, 4.0)];
  const frontLinePref: Rgb = pokemon ? [40, 36, 30] : darken(accent, 0.6);
  const backLinePref: Rgb = pokemon ? [10, 22, 62] : [40, 40, 48];
  const year = spec.year ?? 2000;
  const { header, rows } = statTable(rng, spec.game, year);
  const attacks: CardDesign['attacks'] = [];
  const nAttacks = spec.category === 'Pokemon' || spec.category === null ? rng.int(1, 2) : 0;
  for (let i = 0; i < nAttacks; i++) {
    attacks.push({
      name: attackName(rng),
      damage: `${rng.int(1, 12) * 10}${rng.chance(0.2) ? '+' : ''}`,
      energy: rng.int(1, 3),
      lines: [sentence(rng, rng.int(5, 8)), ...(rng.chance(0.6) ? [sentence(rng, rng.int(4, 7))] : [])],
    });
  }
  const sparkles: [number, number, number][] = [];
  for (let i = 0; i < 160; i++) sparkles.push([rng.range(0, 1), rng.range(0, 1), rng.range(0.15, 0.5)]);
  const crowd: CardDesign['crowd'] = [];
  for (let i = 0; i < 90; i++) {
    crowd.push([rng.range(0, 1), rng.range(0.28, 0.5), rng.range(0.008, 0.02), hsl(rng.range(0, 360), 0.5, rng.range(0.3, 0.7))]);
  }
  const brandWord = spec.release
    ? (spec.release.replace(/^\d{4}\s+/, '').split(/\s+/)[0] ?? 'Cards').toUpperCase()
    : 'CARDS';
  const positions: Record<string, string[]> = {
    baseball: ['PITCHER', 'CATCHER', 'OUTFIELD', 'SHORTSTOP', '1ST BASE', '3RD BASE'],
    basketball: ['GUARD', 'FORWARD', 'CENTER'],
    football: ['QUARTERBACK', 'RUNNING BACK', 'WIDE RECEIVER', 'LINEBACKER'],
    hockey: ['CENTER', 'DEFENSE', 'GOALIE', 'RIGHT WING'],
  };
  return {
    spec,
    borders: { front: frontBorders, back: backBorders },
    borderRgb: { front: frontBorder, back: backBorder },
    frameLineRgb: { front: frameLineFor(frontBorder, frontLinePref), back: frameLineFor(backBorder, backLinePref) },
    frameLineWidth: { front: rng.range(0.35, 0.6), back: rng.range(0.35, 0.55) },
    body,
    accent,
    art: makeArt(rng, pokemon, body),
    holoAngle: rng.range(0, 180),
    holoCentre: [rng.range(0.2, 0.8), rng.range(0.2, 0.8)],
    sparkles,
    stageText: pokemon
      ? spec.category === 'Trainer'
        ? 'TRAINER'
        : spec.category === 'Energy'
          ? 'ENERGY'
          : rng.pick(['BASIC', 'STAGE 1', 'STAGE 2'])
      : '',
    infoText: `NO. ${String(rng.int(1, 999)).padStart(3, '0')}  ${capitalize(word(rng))} Pokémon  HT: ${rng.int(1, 9)}'${rng.int(0, 11)}"  WT: ${rng.range(2, 300).toFixed(1)} lbs.`,
    attacks,
    trainerLines: [sentence(rng, 6), sentence(rng, 7), sentence(rng, 5), sentence(rng, 6)],
    player: { x: rng.range(0.35, 0.65), scale: rng.range(0.75, 1), skin: hsl(rng.range(15, 35), 0.45, rng.range(0.3, 0.75)), pose: rng.range(-1, 1), hasBat: spec.game === 'baseball' && rng.chance(0.6) },
    sky: rng.chance(0.6)
      ? [hsl(rng.range(195, 220), 0.6, rng.range(0.45, 0.6)), hsl(rng.range(190, 210), 0.4, 0.85)]
      : [hsl(rng.range(220, 270), 0.5, 0.12), hsl(rng.range(220, 260), 0.4, 0.35)],
    field: spec.game === 'basketball' ? [196, 150, 96] : spec.game === 'hockey' ? [222, 232, 240] : hsl(rng.range(95, 125), 0.45, rng.range(0.3, 0.45)),
    crowd,
    brand: brandWord,
    position: rng.pick(positions[spec.game] ?? ['PLAYER']),
    backPanel: pokemon ? [30, 60, 140] : mix([238, 234, 222], hsl(rng.range(0, 360), 0.4, 0.8), rng.range(0, 0.4)),
    bioLines: [
      `HT: ${rng.int(5, 6)}'${rng.int(0, 11)}"  WT: ${rng.int(160, 250)}  BATS: ${rng.pick(['R', 'L', 'S'])}  THROWS: ${rng.pick(['R', 'L'])}`,
      `BORN: ${rng.int(1, 28)}-${rng.int(1, 12)}-${year - rng.int(20, 35)}, ${capitalize(word(rng))}, ${capitalize(word(rng, 1, 2))}`,
      `DRAFTED: ${capitalize(word(rng))} #${rng.int(1, 40)}, ${year - rng.int(2, 8)}`,
    ],
    statHeader: header,
    statRows: rows,
    blurb: [sentence(rng, 9), sentence(rng, 8), sentence(rng, 7)],
    pokeBackSwirl: Array.from({ length: 7 }, () => ({ rx: rng.range(8, 30), ry: rng.range(4, 14), rot: rng.range(0, 180) })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// SVG
// ---------------------------------------------------------------------------------------------------------

const n = (v: number) => (Math.round(v * 1000) / 1000).toString();
const c = (rgb: Rgb) => rgbHex(rgb);

interface SvgOut {
  defs: string[];
  body: string[];
  texts: TextBox[];
}

function text(
  out: SvgOut,
  side: Side,
  role: TextRole | null,
  str: string,
  x: number,
  y: number,
  size: number,
  opts: { bold?: boolean; italic?: boolean; anchor?: 'start' | 'middle' | 'end'; fill?: string; family?: string; stroke?: string; strokeWidth?: number; mono?: boolean } = {},
): void {
  const family = opts.mono ? 'DejaVu Sans Mono' : (opts.family ?? 'DejaVu Sans');
  const attrs = [
    `x="${n(x)}"`,
    `y="${n(y)}"`,
    `font-family="${family}"`,
    `font-size="${n(size)}"`,
    opts.bold ? 'font-weight="bold"' : '',
    opts.italic ? 'font-style="italic"' : '',
    opts.anchor && opts.anchor !== 'start' ? `text-anchor="${opts.anchor}"` : '',
    `fill="${opts.fill ?? '#1a1a1a'}"`,
    opts.stroke ? `stroke="${opts.stroke}" stroke-width="${n(opts.strokeWidth ?? 0.2)}" paint-order="stroke"` : '',
    opts.mono ? 'xml:space="preserve"' : '',
  ]
    .filter(Boolean)
    .join(' ');
  out.body.push(`<text ${attrs}>${escapeXml(str)}</text>`);
  if (role) {
    const w = textWidthEm(str, opts.bold, opts.mono) * size;
    const x0 = opts.anchor === 'end' ? x - w : opts.anchor === 'middle' ? x - w / 2 : x;
    const r = (v: number) => Math.round(v * 100) / 100;
    out.texts.push({ role, side, text: str, xMm: r(x0), yMm: r(y - size * 0.78), wMm: r(w), hMm: r(size * 0.98) });
  }
}

function gradientDef(out: SvgOut, id: string, a: Rgb, b: Rgb, angleDeg: number): void {
  const rad = (angleDeg * Math.PI) / 180;
  const dx = Math.cos(rad) / 2;
  const dy = Math.sin(rad) / 2;
  out.defs.push(
    `<linearGradient id="${id}" x1="${n(0.5 - dx)}" y1="${n(0.5 - dy)}" x2="${n(0.5 + dx)}" y2="${n(0.5 + dy)}"><stop offset="0" stop-color="${c(a)}"/><stop offset="1" stop-color="${c(b)}"/></linearGradient>`,
  );
}

function artSvg(out: SvgOut, d: CardDesign, r: Rect, idPrefix: string): void {
  const art = d.art;
  gradientDef(out, `${idPrefix}bg`, art.bgA, art.bgB, art.bgAngle);
  out.body.push(`<rect x="${n(r.x)}" y="${n(r.y)}" width="${n(r.w)}" height="${n(r.h)}" fill="url(#${idPrefix}bg)"/>`);
  out.body.push(
    `<image x="${n(r.x)}" y="${n(r.y)}" width="${n(r.w)}" height="${n(r.h)}" preserveAspectRatio="none" opacity="${n(art.tileOpacity)}" href="${noiseTile(art.tile)}"/>`,
  );
  out.defs.push(`<clipPath id="${idPrefix}clip"><rect x="${n(r.x)}" y="${n(r.y)}" width="${n(r.w)}" height="${n(r.h)}"/></clipPath>`);
  const g: string[] = [];
  art.shapes.forEach((s, i) => {
    const cx = r.x + s.x * r.w;
    const cy = r.y + s.y * r.h;
    const rx = s.rx * r.w;
    const ry = s.ry * r.h;
    // Gradients are the costliest thing librsvg draws: every third shape gets one, the others a flat fill.
    const gid = `${idPrefix}s${i}`;
    const fill = i % 3 === 0 ? `url(#${gid})` : c(s.colour);
    if (i % 3 === 0) {
      out.defs.push(
        `<radialGradient id="${gid}"><stop offset="0" stop-color="${c(s.colour)}"/><stop offset="1" stop-color="${c(s.colour2)}"/></radialGradient>`,
      );
    }
    const tr = `transform="rotate(${n(s.rot)} ${n(cx)} ${n(cy)})"`;
    switch (s.type) {
      case 'circle':
        g.push(`<circle cx="${n(cx)}" cy="${n(cy)}" r="${n(Math.min(rx, ry))}" fill="${fill}" opacity="${n(s.opacity)}"/>`);
        break;
      case 'ellipse':
        g.push(`<ellipse cx="${n(cx)}" cy="${n(cy)}" rx="${n(rx)}" ry="${n(ry)}" fill="${fill}" opacity="${n(s.opacity)}" ${tr}/>`);
        break;
      case 'poly':
      case 'star': {
        const pts: string[] = [];
        const k = s.type === 'star' ? s.points * 2 : s.points;
        for (let j = 0; j < k; j++) {
          const a = (j / k) * Math.PI * 2;
          const f = s.type === 'star' && j % 2 === 1 ? 0.45 : 1;
          pts.push(`${n(cx + Math.cos(a) * rx * f)},${n(cy + Math.sin(a) * ry * f)}`);
        }
        g.push(`<polygon points="${pts.join(' ')}" fill="${fill}" opacity="${n(s.opacity)}" ${tr}/>`);
        break;
      }
      case 'wave': {
        const x0 = r.x - 2;
        const x1 = r.x + r.w + 2;
        const amp = ry * 0.4;
        g.push(
          `<path d="M ${n(x0)} ${n(cy)} C ${n(x0 + (x1 - x0) / 3)} ${n(cy - amp)} ${n(x0 + (2 * (x1 - x0)) / 3)} ${n(cy + amp)} ${n(x1)} ${n(cy)}" fill="none" stroke="${c(s.colour)}" stroke-width="${n(Math.max(0.6, rx * 0.15))}" opacity="${n(s.opacity * 0.8)}"/>`,
        );
        break;
      }
    }
  });
  if (art.creature) {
    const cr = art.creature;
    const cx = r.x + cr.x * r.w;
    const cy = r.y + cr.y * r.h;
    const s = cr.size * Math.min(r.w, r.h);
    const col = c(cr.colour);
    const dark = c(darken(cr.colour, 0.6));
    g.push(`<ellipse cx="${n(cx)}" cy="${n(cy + s * 0.35)}" rx="${n(s * 0.75)}" ry="${n(s * 0.6)}" fill="${col}" stroke="${dark}" stroke-width="0.35"/>`);
    g.push(`<circle cx="${n(cx)}" cy="${n(cy - s * 0.35)}" r="${n(s * 0.5)}" fill="${col}" stroke="${dark}" stroke-width="0.35"/>`);
    for (const ex of [-0.2, 0.2]) {
      g.push(`<circle cx="${n(cx + ex * s)}" cy="${n(cy - s * 0.4)}" r="${n(s * 0.11)}" fill="#fff"/>`);
      g.push(`<circle cx="${n(cx + ex * s + s * 0.03)}" cy="${n(cy - s * 0.38)}" r="${n(s * 0.06)}" fill="${c(cr.eye)}"/>`);
    }
    g.push(`<ellipse cx="${n(cx - s * 0.7)}" cy="${n(cy - s * 0.8)}" rx="${n(s * 0.15)}" ry="${n(s * 0.4)}" fill="${col}" stroke="${dark}" stroke-width="0.3" transform="rotate(-25 ${n(cx - s * 0.7)} ${n(cy - s * 0.8)})"/>`);
    g.push(`<ellipse cx="${n(cx + s * 0.7)}" cy="${n(cy - s * 0.8)}" rx="${n(s * 0.15)}" ry="${n(s * 0.4)}" fill="${col}" stroke="${dark}" stroke-width="0.3" transform="rotate(25 ${n(cx + s * 0.7)} ${n(cy - s * 0.8)})"/>`);
  }
  out.body.push(`<g clip-path="url(#${idPrefix}clip)">${g.join('')}</g>`);
}

function holoDefs(out: SvgOut, d: CardDesign): void {
  const hues = [0, 50, 110, 180, 240, 300, 360];
  const stops = hues.map((h, i) => `<stop offset="${n(i / (hues.length - 1))}" stop-color="${c(hsl(h, 0.9, 0.65))}"/>`).join('');
  const rad = (d.holoAngle * Math.PI) / 180;
  out.defs.push(
    `<linearGradient id="holo" gradientUnits="userSpaceOnUse" x1="0" y1="0" x2="${n(Math.cos(rad) * 9)}" y2="${n(Math.sin(rad) * 9)}" spreadMethod="repeat">${stops}</linearGradient>`,
  );
  const rad2 = ((d.holoAngle + 60) * Math.PI) / 180;
  out.defs.push(
    `<linearGradient id="holoLines" gradientUnits="userSpaceOnUse" x1="0" y1="0" x2="${n(Math.cos(rad2) * 1.2)}" y2="${n(Math.sin(rad2) * 1.2)}" spreadMethod="repeat"><stop offset="0" stop-color="#fff" stop-opacity="1"/><stop offset="0.22" stop-color="#fff" stop-opacity="1"/><stop offset="0.22" stop-color="#fff" stop-opacity="0"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></linearGradient>`,
  );
  const [hx, hy] = d.holoCentre;
  out.defs.push(
    `<radialGradient id="refr" gradientUnits="userSpaceOnUse" cx="${n(hx * 63)}" cy="${n(hy * 88)}" r="7" spreadMethod="repeat">${stops}</radialGradient>`,
  );
}

function finishOverlay(out: SvgOut, d: CardDesign, frame: Rect, art: Rect | null): void {
  const f = d.spec.finish;
  if (f === 'plain') return;
  holoDefs(out, d);
  const rectD = (r: Rect) => `M ${n(r.x)} ${n(r.y)} h ${n(r.w)} v ${n(r.h)} h ${n(-r.w)} Z`;
  if (f === 'holo') {
    const r = art ?? frame;
    out.body.push(`<rect x="${n(r.x)}" y="${n(r.y)}" width="${n(r.w)}" height="${n(r.h)}" fill="url(#holo)" opacity="0.26"/>`);
    out.body.push(`<rect x="${n(r.x)}" y="${n(r.y)}" width="${n(r.w)}" height="${n(r.h)}" fill="url(#holoLines)" opacity="0.08"/>`);
  } else if (f === 'reverse_holo') {
    const inner = art ?? { x: frame.x + 4, y: frame.y + 6, w: frame.w - 8, h: frame.h * 0.45 };
    const path = `${rectD(frame)} ${rectD(inner)}`;
    out.body.push(`<path d="${path}" fill-rule="evenodd" fill="url(#holo)" opacity="0.22"/>`);
    out.body.push(`<path d="${path}" fill-rule="evenodd" fill="url(#holoLines)" opacity="0.07"/>`);
  } else {
    // Refractor / prizm: rainbow rings across the whole card, sparkles inside the frame.
    out.body.push(`<rect x="0" y="0" width="63" height="88" fill="url(#refr)" opacity="0.06"/>`);
    out.body.push(`<rect x="${n(frame.x)}" y="${n(frame.y)}" width="${n(frame.w)}" height="${n(frame.h)}" fill="url(#refr)" opacity="0.16"/>`);
    const sp: string[] = [];
    for (const [u, v, s] of d.sparkles) {
      const x = frame.x + 1 + u * (frame.w - 2);
      const y = frame.y + 1 + v * (frame.h - 2);
      sp.push(`M ${n(x - s)} ${n(y)} L ${n(x)} ${n(y - s * 0.18)} L ${n(x + s)} ${n(y)} L ${n(x)} ${n(y + s * 0.18)} Z M ${n(x)} ${n(y - s)} L ${n(x + s * 0.18)} ${n(y)} L ${n(x)} ${n(y + s)} L ${n(x - s * 0.18)} ${n(y)} Z`);
    }
    out.body.push(`<path d="${sp.join(' ')}" fill="#ffffff" opacity="0.6"/>`);
  }
}

function frameLine(out: SvgOut, d: CardDesign, side: Side, frame: Rect): void {
  const w = d.frameLineWidth[side];
  out.body.push(
    `<rect x="${n(frame.x + w / 2)}" y="${n(frame.y + w / 2)}" width="${n(frame.w - w)}" height="${n(frame.h - w)}" fill="none" stroke="${c(d.frameLineRgb[side])}" stroke-width="${n(w)}"/>`,
  );
}

function rarityMark(spec: CardSpec, x: number, y: number): string {
  const r = spec.rarity ?? '';
  if (/rare|holo|ultra|secret|illustration/i.test(r)) {
    return `<path d="M ${n(x)} ${n(y - 0.8)} L ${n(x + 0.25)} ${n(y - 0.25)} L ${n(x + 0.8)} ${n(y - 0.2)} L ${n(x + 0.38)} ${n(y + 0.15)} L ${n(x + 0.5)} ${n(y + 0.75)} L ${n(x)} ${n(y + 0.42)} L ${n(x - 0.5)} ${n(y + 0.75)} L ${n(x - 0.38)} ${n(y + 0.15)} L ${n(x - 0.8)} ${n(y - 0.2)} L ${n(x - 0.25)} ${n(y - 0.25)} Z" fill="#111"/>`;
  }
  if (/uncommon/i.test(r)) return `<rect x="${n(x - 0.5)}" y="${n(y - 0.5)}" width="1" height="1" transform="rotate(45 ${n(x)} ${n(y)})" fill="#111"/>`;
  return `<circle cx="${n(x)}" cy="${n(y)}" r="0.5" fill="#111"/>`;
}

function pokemonFront(out: SvgOut, d: CardDesign, frame: Rect): void {
  const s = d.spec;
  const fx = frame.x;
  const fy = frame.y;
  const fw = frame.w;
  const fh = frame.h;
  gradientDef(out, 'body', mix(d.body, [255, 255, 255], 0.35), darken(d.body, 0.85), 90);
  out.body.push(`<rect x="${n(fx)}" y="${n(fy)}" width="${n(fw)}" height="${n(fh)}" fill="url(#body)"/>`);
  const artRect: Rect = { x: fx + 3.2, y: fy + 7, w: fw - 6.4, h: fh * 0.44 };
  // Foil lies under the ink: reverse holo over the body, holo over the art, both before any text.
  if (s.finish === 'reverse_holo') finishOverlay(out, d, frame, artRect);
  text(out, 'front', null, d.stageText, fx + 2.4, fy + 2.9, 1.3, { bold: true, fill: '#2a2a2a' });
  const hasHp = s.hp !== null && s.category !== 'Trainer' && s.category !== 'Energy';
  const nameMax = hasHp ? fw * 0.6 : fw - 5;
  const nameSize = fitFont(s.name, 3.4, nameMax, true);
  text(out, 'front', 'title', s.name, fx + 2.4, fy + 6.1, nameSize, { bold: true, fill: '#121212' });
  if (hasHp) {
    text(out, 'front', 'hp', `${s.hp} HP`, fx + fw - 5.8, fy + 5.9, 2.3, { bold: true, anchor: 'end', fill: '#b8161e' });
    out.body.push(`<circle cx="${n(fx + fw - 3.6)}" cy="${n(fy + 5.1)}" r="1.45" fill="${c(d.body)}" stroke="#222" stroke-width="0.25"/>`);
  }
  out.body.push(`<rect x="${n(artRect.x - 0.45)}" y="${n(artRect.y - 0.45)}" width="${n(artRect.w + 0.9)}" height="${n(artRect.h + 0.9)}" fill="#c9a64a"/>`);
  artSvg(out, d, artRect, 'art');
  if (s.finish !== 'reverse_holo') finishOverlay(out, d, frame, artRect);
  const stripY = artRect.y + artRect.h + 0.8;
  out.body.push(`<rect x="${n(fx + 4.5)}" y="${n(stripY)}" width="${n(fw - 9)}" height="2.1" fill="${c(mix(d.body, [255, 255, 255], 0.55))}" stroke="#8a7a40" stroke-width="0.15"/>`);
  text(out, 'front', null, d.infoText, fx + fw / 2, stripY + 1.45, fitFont(d.infoText, 1.05, fw - 10, false), { italic: true, anchor: 'middle', fill: '#222' });
  let y = stripY + 6.2;
  if (d.attacks.length > 0) {
    for (const atk of d.attacks) {
      for (let e = 0; e < atk.energy; e++) {
        out.body.push(`<circle cx="${n(fx + 3.6 + e * 2.5)}" cy="${n(y - 0.8)}" r="1.05" fill="${c(d.body)}" stroke="#222" stroke-width="0.2"/>`);
      }
      text(out, 'front', null, atk.name, fx + 11.5, y, fitFont(atk.name, 2.2, fw - 22, true), { bold: true, fill: '#141414' });
      text(out, 'front', null, atk.damage, fx + fw - 3, y, 2.5, { bold: true, anchor: 'end', fill: '#141414' });
      y += 2.4;
      for (const line of atk.lines) {
        text(out, 'front', null, line, fx + 3.2, y, fitFont(line, 1.25, fw - 6.4), { fill: '#262626' });
        y += 1.7;
      }
      y += 2.6;
    }
  } else {
    for (const line of d.trainerLines) {
      text(out, 'front', null, line, fx + 3.2, y, fitFont(line, 1.35, fw - 6.4), { fill: '#262626' });
      y += 2;
    }
  }
  const rowY = fy + fh - 8.2;
  out.body.push(`<line x1="${n(fx + 2.5)}" y1="${n(rowY - 1.9)}" x2="${n(fx + fw - 2.5)}" y2="${n(rowY - 1.9)}" stroke="#555" stroke-width="0.12"/>`);
  for (const [i, label] of ['weakness', 'resistance', 'retreat cost'].entries()) {
    const x = fx + 3 + (i * (fw - 6)) / 3;
    text(out, 'front', null, label, x, rowY, 1.0, { fill: '#333' });
    out.body.push(`<circle cx="${n(x + 8.6)}" cy="${n(rowY - 0.35)}" r="0.75" fill="${c(mix(d.body, [0, 0, 0], 0.2))}" stroke="#222" stroke-width="0.12"/>`);
  }
  if (s.illustrator) text(out, 'front', null, `Illus. ${s.illustrator}`, fx + 2.6, fy + fh - 4.4, 1.0, { italic: true, fill: '#2a2a2a' });
  text(out, 'front', 'copyright', s.copyright, fx + 2.6, fy + fh - 1.55, 1.25, { fill: '#1c1c1c' });
  const numSize = 1.4;
  text(out, 'front', 'number', s.printedNumber, fx + fw - 4.2, fy + fh - 1.5, numSize, { bold: true, anchor: 'end', fill: '#111' });
  out.body.push(rarityMark(s, fx + fw - 2.9, fy + fh - 2));
}

function sportsFront(out: SvgOut, d: CardDesign, frame: Rect): void {
  const s = d.spec;
  const fx = frame.x;
  const fy = frame.y;
  const fw = frame.w;
  const fh = frame.h;
  // The "photo": sky, crowd, field and a player figure, clipped to the frame.
  gradientDef(out, 'sky', d.sky[0], d.sky[1], 90);
  out.defs.push(`<clipPath id="photo"><rect x="${n(fx)}" y="${n(fy)}" width="${n(fw)}" height="${n(fh)}"/></clipPath>`);
  out.body.push('<g clip-path="url(#photo)">');
  out.body.push(`<rect x="${n(fx)}" y="${n(fy)}" width="${n(fw)}" height="${n(fh)}" fill="url(#sky)"/>`);
  const crowd: string[] = [];
  for (const [u, v, r, col] of d.crowd) crowd.push(`<circle cx="${n(fx + u * fw)}" cy="${n(fy + v * fh)}" r="${n(r * fw * 1.4)}" fill="${c(col)}" opacity="0.7"/>`);
  out.body.push(crowd.join(''));
  gradientDef(out, 'field', mix(d.field, [255, 255, 255], 0.15), darken(d.field, 0.75), 90);
  out.body.push(`<rect x="${n(fx)}" y="${n(fy + fh * 0.52)}" width="${n(fw)}" height="${n(fh * 0.48)}" fill="url(#field)"/>`);
  if (s.game === 'baseball') {
    out.body.push(`<ellipse cx="${n(fx + fw * 0.5)}" cy="${n(fy + fh * 0.78)}" rx="${n(fw * 0.6)}" ry="${n(fh * 0.12)}" fill="#a87850" opacity="0.8"/>`);
  }
  out.body.push(
    `<image x="${n(fx)}" y="${n(fy)}" width="${n(fw)}" height="${n(fh)}" preserveAspectRatio="none" opacity="${n(d.art.tileOpacity * 0.7)}" href="${noiseTile(d.art.tile)}"/>`,
  );
  // Player
  const p = d.player;
  const px = fx + p.x * fw;
  const sc = p.scale * fh * 0.012;
  const team = c(d.accent);
  const pants = c(mix(d.accent, [240, 240, 240], 0.75));
  const skin = c(p.skin);
  const hipY = fy + fh * 0.6;
  const shoulderY = hipY - 22 * sc;
  const headY = shoulderY - 6.5 * sc;
  const lean = p.pose * 4 * sc;
  const fig: string[] = [];
  const limb = (x1: number, y1: number, x2: number, y2: number, col: string, w: number) =>
    fig.push(`<line x1="${n(x1)}" y1="${n(y1)}" x2="${n(x2)}" y2="${n(y2)}" stroke="${col}" stroke-width="${n(w)}" stroke-linecap="round"/>`);
  limb(px - 3 * sc, hipY, px - 8 * sc + lean, hipY + 16 * sc, pants, 4.2 * sc);
  limb(px + 3 * sc, hipY, px + 7 * sc + lean, hipY + 17 * sc, pants, 4.2 * sc);
  fig.push(`<path d="M ${n(px - 7 * sc + lean)} ${n(shoulderY)} L ${n(px + 7 * sc + lean)} ${n(shoulderY)} L ${n(px + 5 * sc)} ${n(hipY + 1.5 * sc)} L ${n(px - 5 * sc)} ${n(hipY + 1.5 * sc)} Z" fill="${team}"/>`);
  fig.push(`<text x="${n(px + lean * 0.5)}" y="${n(shoulderY + 10 * sc)}" font-family="DejaVu Sans" font-weight="bold" font-size="${n(6 * sc)}" text-anchor="middle" fill="#fff">${(Number.parseInt(s.number, 10) % 100) || 7}</text>`);
  limb(px - 6.5 * sc + lean, shoulderY + 1 * sc, px - 12 * sc + lean, shoulderY + 9 * sc - p.pose * 5 * sc, team, 3.2 * sc);
  limb(px + 6.5 * sc + lean, shoulderY + 1 * sc, px + 11 * sc + lean, shoulderY - 4 * sc + p.pose * 4 * sc, team, 3.2 * sc);
  fig.push(`<circle cx="${n(px + lean)}" cy="${n(headY)}" r="${n(4.2 * sc)}" fill="${skin}"/>`);
  fig.push(`<path d="M ${n(px + lean - 4.4 * sc)} ${n(headY - 0.5 * sc)} A ${n(4.4 * sc)} ${n(4.4 * sc)} 0 0 1 ${n(px + lean + 4.4 * sc)} ${n(headY - 0.5 * sc)} L ${n(px + lean + 7 * sc)} ${n(headY - 0.2 * sc)} Z" fill="${team}"/>`);
  if (p.hasBat) limb(px + 11 * sc + lean, shoulderY - 4 * sc, px + 20 * sc + lean, shoulderY - 22 * sc, '#c8a070', 1.6 * sc);
  else fig.push(`<circle cx="${n(px - 13 * sc + lean)}" cy="${n(shoulderY + 9 * sc)}" r="${n(2.6 * sc)}" fill="${s.game === 'basketball' ? '#d2691e' : s.game === 'football' ? '#7a3e1a' : s.game === 'hockey' ? '#111' : '#f4f4f0'}"/>`);
  out.body.push(fig.join(''), '</g>');
  finishOverlay(out, d, frame, null);
  // Brand logo
  const brandSize = fitFont(d.brand, 2.2, 15, true);
  const bw = textWidthEm(d.brand, true) * brandSize + 2.2;
  out.body.push(`<rect x="${n(fx + 2)}" y="${n(fy + 2)}" width="${n(bw)}" height="3.6" rx="0.8" fill="#ffffff" stroke="${team}" stroke-width="0.3"/>`);
  text(out, 'front', 'brand', d.brand, fx + 3.1, fy + 4.6, brandSize, { bold: true, fill: team });
  // Insert and subset cards carry their subset's name (base cards and photo variations do not).
  const subset = printedSubset(s.set);
  if (subset) {
    text(out, 'front', 'subset', subset, fx + 3.1, fy + 8.6, fitFont(subset, 1.9, fw * 0.6, true), { bold: true, fill: '#ffffff', stroke: '#111', strokeWidth: 0.3 });
  }
  text(out, 'front', 'number', s.printedNumber, fx + fw - 2.3, fy + 4.8, 1.9, { bold: true, anchor: 'end', fill: '#ffffff', stroke: '#111', strokeWidth: 0.35 });
  if (s.attributes.some((a) => /rookie/i.test(a))) {
    out.body.push(`<rect x="${n(fx + fw - 8.5)}" y="${n(fy + 6.3)}" width="6.2" height="3.6" rx="0.6" fill="#d4202a"/>`);
    text(out, 'front', null, 'RC', fx + fw - 5.4, fy + 9.0, 2.4, { bold: true, anchor: 'middle', fill: '#fff' });
  }
  if (s.serial) {
    text(out, 'front', 'serial', s.serial, fx + fw - 2.5, fy + fh - 10.8, 2.0, { bold: true, anchor: 'end', fill: '#e8c24a', stroke: '#5a4310', strokeWidth: 0.3 });
  }
  // Name plate
  const plateY = fy + fh - 9;
  out.body.push(`<rect x="${n(fx + 1.4)}" y="${n(plateY)}" width="${n(fw - 2.8)}" height="7.2" fill="${team}"/>`);
  out.body.push(`<rect x="${n(fx + 1.4)}" y="${n(plateY)}" width="${n(fw - 2.8)}" height="0.6" fill="${c(mix(d.accent, [255, 255, 255], 0.6))}"/>`);
  const nameText = s.name.toUpperCase();
  text(out, 'front', 'title', nameText, fx + fw / 2, plateY + 3.6, fitFont(nameText, 2.8, fw - 6, true), { bold: true, anchor: 'middle', fill: '#ffffff' });
  text(out, 'front', null, d.position, fx + 3, plateY + 6.3, 1.15, { bold: true, fill: '#ffffff' });
  text(out, 'front', 'copyright', s.copyright, fx + fw - 3, plateY + 6.3, fitFont(s.copyright, 1.15, fw * 0.55), { anchor: 'end', fill: '#ffffff' });
}

/** The subset name a sports card prints, upper case; null for the base subset and photo variations. */
export function printedSubset(set: string): string | null {
  if (/^base( set)?$|variation/i.test(set.trim())) return null;
  return set.toUpperCase();
}

function pokemonBack(out: SvgOut, d: CardDesign, frame: Rect): void {
  const fx = frame.x;
  const fy = frame.y;
  const fw = frame.w;
  const fh = frame.h;
  out.defs.push(
    `<radialGradient id="pb" cx="0.5" cy="0.5" r="0.7"><stop offset="0" stop-color="#4a86e0"/><stop offset="0.6" stop-color="#2456b0"/><stop offset="1" stop-color="#16357a"/></radialGradient>`,
  );
  out.body.push(`<rect x="${n(fx)}" y="${n(fy)}" width="${n(fw)}" height="${n(fh)}" fill="url(#pb)"/>`);
  const cx = fx + fw / 2;
  const cy = fy + fh / 2;
  const sw: string[] = [];
  for (const e of d.pokeBackSwirl) {
    sw.push(`<ellipse cx="${n(cx)}" cy="${n(cy)}" rx="${n(e.rx)}" ry="${n(e.ry)}" fill="none" stroke="#7fb0f0" stroke-width="1.2" opacity="0.35" transform="rotate(${n(e.rot)} ${n(cx)} ${n(cy)})"/>`);
  }
  out.defs.push(`<clipPath id="pbc"><rect x="${n(fx)}" y="${n(fy)}" width="${n(fw)}" height="${n(fh)}"/></clipPath>`);
  out.body.push(`<g clip-path="url(#pbc)">${sw.join('')}</g>`);
  out.body.push(
    `<image x="${n(fx)}" y="${n(fy)}" width="${n(fw)}" height="${n(fh)}" preserveAspectRatio="none" opacity="0.12" href="${noiseTile(d.art.tile + 1)}"/>`,
  );
  const r = 13;
  out.body.push(`<g transform="rotate(-18 ${n(cx)} ${n(cy + 4)})">`);
  out.body.push(`<circle cx="${n(cx)}" cy="${n(cy + 4)}" r="${r}" fill="#f2f2f2" stroke="#111" stroke-width="0.9"/>`);
  out.body.push(`<path d="M ${n(cx - r)} ${n(cy + 4)} A ${r} ${r} 0 0 1 ${n(cx + r)} ${n(cy + 4)} Z" fill="#d8262e" stroke="#111" stroke-width="0.9"/>`);
  out.body.push(`<rect x="${n(cx - r)}" y="${n(cy + 3)}" width="${2 * r}" height="2" fill="#111"/>`);
  out.body.push(`<circle cx="${n(cx)}" cy="${n(cy + 4)}" r="3.6" fill="#111"/><circle cx="${n(cx)}" cy="${n(cy + 4)}" r="2.2" fill="#f2f2f2"/>`);
  out.body.push('</g>');
  out.body.push(
    `<text x="${n(fx + 5)}" y="${n(fy + 16)}" font-family="DejaVu Sans" font-weight="bold" font-size="7.2" fill="#fccc1c" stroke="#1f4aa0" stroke-width="0.7" paint-order="stroke" transform="rotate(-10 ${n(fx + 5)} ${n(fy + 16)})">POKéMON</text>`,
  );
  text(out, 'back', null, 'TRADING CARD GAME', fx + fw - 4, fy + fh - 8, 1.9, { bold: true, anchor: 'end', fill: '#ffffff', stroke: '#1a3a80', strokeWidth: 0.3 });
}

function sportsBack(out: SvgOut, d: CardDesign, frame: Rect): void {
  const s = d.spec;
  const fx = frame.x;
  const fy = frame.y;
  const fw = frame.w;
  const fh = frame.h;
  out.body.push(`<rect x="${n(fx)}" y="${n(fy)}" width="${n(fw)}" height="${n(fh)}" fill="${c(d.backPanel)}"/>`);
  const team = c(d.accent);
  out.body.push(`<rect x="${n(fx + 1.2)}" y="${n(fy + 1.2)}" width="${n(fw - 2.4)}" height="11" fill="${team}"/>`);
  out.body.push(`<rect x="${n(fx + 2.2)}" y="${n(fy + 2.2)}" width="10" height="9" fill="#ffffff"/>`);
  text(out, 'back', 'number', s.printedNumber, fx + 7.2, fy + 8.0, fitFont(s.printedNumber, 3.2, 9, true), { bold: true, anchor: 'middle', fill: '#111' });
  const name = s.name.toUpperCase();
  text(out, 'back', 'title', name, fx + 14, fy + 6.4, fitFont(name, 2.8, fw - 17, true), { bold: true, fill: '#ffffff' });
  text(out, 'back', null, `${d.position}  ·  ${capitalize(d.brand.toLowerCase())}`, fx + 14, fy + 10, 1.3, { fill: '#ffffff' });
  let y = fy + 16;
  for (const line of d.bioLines) {
    text(out, 'back', null, line, fx + 2.5, y, fitFont(line, 1.3, fw - 5), { fill: '#222' });
    y += 2;
  }
  y += 1.5;
  const tableW = fw - 4;
  const mono = fitFont(d.statHeader.padEnd(Math.max(...d.statRows.map((r) => r.length))), 1.45, tableW - 1, false, true);
  out.body.push(`<rect x="${n(fx + 2)}" y="${n(y - 1.6)}" width="${n(tableW)}" height="2.2" fill="${team}"/>`);
  text(out, 'back', null, d.statHeader, fx + 2.5, y, mono, { mono: true, bold: true, fill: '#fff' });
  y += 2.3;
  d.statRows.forEach((row, i) => {
    if (i % 2 === 0) out.body.push(`<rect x="${n(fx + 2)}" y="${n(y - 1.6)}" width="${n(tableW)}" height="2.2" fill="#000" opacity="0.07"/>`);
    text(out, 'back', null, row, fx + 2.5, y, mono, { mono: true, fill: '#1a1a1a' });
    y += 2.2;
  });
  y += 2;
  for (const line of d.blurb) {
    text(out, 'back', null, line, fx + 2.5, y, fitFont(line, 1.3, fw - 5), { italic: true, fill: '#333' });
    y += 1.9;
  }
  const copy = `${s.copyright}. Printed in U.S.A.`;
  text(out, 'back', 'copyright', copy, fx + fw / 2, fy + fh - 2, fitFont(copy, 1.2, fw - 5), { anchor: 'middle', fill: '#222' });
}

/** The printed design of one side (border, frame, content), in mm, for the given frame rectangle. */
export function designSvg(d: CardDesign, side: Side, frame: Rect): SvgOut {
  const out: SvgOut = { defs: [], body: [], texts: [] };
  out.body.push(`<rect x="-1" y="-1" width="65" height="90" fill="${c(d.borderRgb[side])}"/>`);
  const pokemon = d.spec.game === 'pokemon';
  if (side === 'front') {
    if (pokemon) pokemonFront(out, d, frame);
    else sportsFront(out, d, frame);
  } else if (pokemon) pokemonBack(out, d, frame);
  else sportsBack(out, d, frame);
  frameLine(out, d, side, frame);
  return out;
}
